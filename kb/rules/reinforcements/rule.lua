-- reinforcements: `team` (the player or an ally) receives `units` at each time in `times`, arriving at
-- points[i] (the last point is reused when there are fewer points than times). When `move_to` is
-- given they move there on arrival.
-- Params: team, times, points, units, move_to, tag, announce.

-- Helpers from the engine's rule library (engine/rules/rule_lib.lua).
local point, label, list = lib.point, lib.label, lib.list
local composition, spawn_groups = lib.composition, lib.spawn_groups

local cfg

local function arrive(i)
  local where = cfg.points[math.min(i, #cfg.points)]
  local x, y = point(where)
  if x == nil then
    log("reinforcements_skipped", {index = i, at_point = label(where), why = "unknown spawn point"})
    return
  end
  local ids = spawn_groups(cfg.team, cfg.groups, x, y, cfg.tag)
  if #ids > 0 and cfg.move_to ~= nil then
    local mx, my = point(cfg.move_to)
    if mx then order(ids, "move", mx, my) end
  end
  mark(x, y, "reinforcements " .. i)
  log("reinforcements", {index = i, team = cfg.team, at_point = label(where), at = time(), count = #ids, x = x, y = y})
  if cfg.announce then
    message("Reinforcements have arrived: " .. #ids .. " units at " .. label(where) .. ".", cfg.team)
  end
end

function on_start()
  cfg = {
    team = math.floor(tonumber(param("team", 0)) or 0),
    times = list(param("times", {60})),
    points = list(param("points", {"south"})),
    groups = composition(param("units", {light_bot = 3})),
    move_to = param("move_to", nil),
    tag = tostring(param("tag", "reinforcement")),
    announce = param("announce", true) ~= false,
  }
  if #cfg.points == 0 then cfg.points = {"south"} end
  for i, t in ipairs(cfg.times) do
    local when = tonumber(t)
    if when and when >= 0 then at(when, function() arrive(i) end) end
  end
  log("reinforcements_planned", {arrivals = #cfg.times, team = cfg.team})
end
