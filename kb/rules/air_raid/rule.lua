-- air_raid: at each time in `times`, `count` aircraft of `unit_type` appear at `from` and attack-move
-- to the target: the first living unit tagged `target_tag` (or of `target_type`) of `target_team`,
-- else the `target` point, else the map centre.
-- Params: team, times, from, unit_type, count, target_tag, target_type, target_team, target, tag, announce.

-- Helpers from the engine's rule library (engine/rules/rule_lib.lua).
local point, label, list, target_position = lib.point, lib.label, lib.list, lib.target_position

local cfg

local function strike(i)
  local x, y = point(cfg.from)
  if x == nil then
    log("air_raid_skipped", {index = i, from = label(cfg.from), why = "unknown spawn point"})
    return
  end
  local tx, ty
  if cfg.target_type then
    local found = units(cfg.target_team, {type = cfg.target_type})
    if #found > 0 then tx, ty = found[1].x, found[1].y end
  end
  if tx == nil then tx, ty = target_position(cfg.target_tag, cfg.target_team, cfg.target) end
  local ids = spawn(cfg.team, cfg.unit_type, x, y, cfg.count, cfg.tag)
  if #ids > 0 then order(ids, "fight", tx, ty) end
  mark(x, y, "air raid " .. i)
  log("air_raid", {index = i, from = label(cfg.from), at = time(), count = #ids, x = x, y = y, tx = tx, ty = ty})
  if cfg.announce then message("Enemy aircraft inbound from the " .. label(cfg.from) .. "!") end
end

function on_start()
  cfg = {
    team = math.floor(tonumber(param("team", 1)) or 1),
    times = list(param("times", {60})),
    from = param("from", "north"),
    unit_type = tostring(param("unit_type", "bomber")),
    count = math.max(1, math.floor(tonumber(param("count", 3)) or 3)),
    target_tag = param("target_tag", nil),
    target_type = param("target_type", nil),
    target_team = math.floor(tonumber(param("target_team", 0)) or 0),
    target = param("target", nil),
    tag = tostring(param("tag", "air_raid")),
    announce = param("announce", true) ~= false,
  }
  for i, t in ipairs(cfg.times) do
    local when = tonumber(t)
    if when and when >= 0 then at(when, function() strike(i) end) end
  end
  log("air_raids_planned", {raids = #cfg.times, from = label(cfg.from), unit_type = cfg.unit_type})
end
