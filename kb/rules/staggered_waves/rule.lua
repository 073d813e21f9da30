-- staggered_waves: each front is attacked at its own time (fronts[i] at times[i]).
-- With `shuffle` the fronts take the times in a seeded random order (which front comes first is not
-- known in advance); with `jitter` each wave comes up to that many seconds late (seeded).
-- Params: team, fronts, times, targets (per front), units, target_tag, target_team, target, tag, announce,
-- shuffle, jitter.

-- Helpers from the engine's rule library (engine/rules/rule_lib.lua).
local point, label, list = lib.point, lib.label, lib.list
local composition, target_position, spawn_groups = lib.composition, lib.target_position, lib.spawn_groups

local cfg

-- A front's target: its own entry in `targets` (a tag of target_team, a spawn name, or {x, y}),
-- else the shared target.
local function front_target(i)
  local own = cfg.targets[i]
  if type(own) == "string" then
    local found = units(cfg.target_team, {tag = own})
    if #found > 0 then return found[1].x, found[1].y end
  end
  if own ~= nil then
    local x, y = point(own)
    if x then return x, y end
  end
  return target_position(cfg.target_tag, cfg.target_team, cfg.target)
end

local function attack(i)
  local front = cfg.fronts[i]
  local x, y = point(front)
  if x == nil then
    log("wave_skipped", {index = i, from = label(front), why = "unknown front"})
    return
  end
  local tx, ty = front_target(i)
  local ids = spawn_groups(cfg.team, cfg.groups, x, y, cfg.tag)
  if #ids > 0 then order(ids, "fight", tx, ty) end
  mark(x, y, "attack " .. i .. ": " .. label(front))
  log("wave", {index = i, from = label(front), at = time(), count = #ids, x = x, y = y, tx = tx, ty = ty})
  if cfg.announce then message("Attack from the " .. label(front) .. "!") end
end

function on_start()
  cfg = {
    team = math.floor(tonumber(param("team", 1)) or 1),
    fronts = list(param("fronts", {"west", "east"})),
    times = list(param("times", {30, 90})),
    targets = list(param("targets", {})),
    groups = composition(param("units", {light_bot = 4})),
    target_tag = param("target_tag", nil),
    target_team = math.floor(tonumber(param("target_team", 0)) or 0),
    target = param("target", nil),
    tag = tostring(param("tag", "wave")),
    announce = param("announce", true) ~= false,
    shuffle = param("shuffle", false) == true,
    jitter = math.max(0, tonumber(param("jitter", 0)) or 0),
  }
  local n = math.min(#cfg.times, #cfg.fronts)
  if cfg.shuffle then
    for i = n, 2, -1 do
      local j = random_int(1, i)
      cfg.times[i], cfg.times[j] = cfg.times[j], cfg.times[i]
    end
  end
  for i, front in ipairs(cfg.fronts) do
    local when = tonumber(cfg.times[i])
    if when and cfg.jitter > 0 then when = when + random() * cfg.jitter end
    if when and when >= 0 then
      at(when, function() attack(i) end)
      log("front_planned", {index = i, from = label(front), at = when})
    else
      log("wave_skipped", {index = i, from = label(front), why = "no time for this front"})
    end
  end
end
