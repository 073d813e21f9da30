-- air_raid: at each time in `times`, `count` aircraft of `unit_type` appear at `from` and attack-move
-- to the target: the first living unit tagged `target_tag` (or of `target_type`) of `target_team`,
-- else the `target` point, else the map centre.
-- Params: team, times, from, unit_type, count, target_tag, target_type, target_team, target, tag, announce.

-- A point given as a map spawn name, {x, y} or {x=, y=}; nil when unknown or off the map.
local function point(p)
  local x, y
  if type(p) == "string" then
    local ok, px, py = pcall(spawn_point, p)
    if ok then x, y = px, py end
  elseif type(p) == "table" then
    x, y = p.x or p[1], p.y or p[2]
  end
  if type(x) ~= "number" or type(y) ~= "number" then return nil end
  local w, h = map_size()
  if x < 0 or y < 0 or x >= w or y >= h then return nil end
  return x, y
end

-- A printable name for a point param (stable across runs, unlike tostring of a table).
local function label(p)
  if type(p) == "table" then return tostring(p.x or p[1]) .. "," .. tostring(p.y or p[2]) end
  return tostring(p)
end

-- A list from a scalar or a list param.
local function list(v)
  if type(v) == "table" then return v end
  if v == nil then return {} end
  return {v}
end

-- Where attackers head: the first living unit tagged `tag` of `team`, else `fallback`, else the centre.
local function target_position(tag, team, fallback)
  if tag then
    local found = units(team, {tag = tag})
    if #found > 0 then return found[1].x, found[1].y end
  end
  local x, y = point(fallback)
  if x then return x, y end
  local w, h = map_size()
  return w / 2, h / 2
end

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
