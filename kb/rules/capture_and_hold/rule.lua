-- capture_and_hold: `team` wins once it has held the zone (circle of `radius` around `zone`) for
-- `hold_seconds` without interruption: at least one of its units inside and no enemy unit inside.
-- Allies (`allies`) count as neither. With `deadline`, the team loses if it has not won by then.
-- With `zones` (candidate zones) the zone is one of them drawn from the run's seed instead of `zone`;
-- it is marked and announced (with its position) like a fixed zone.
-- Params: team, zone, radius, hold_seconds, allies, deadline, check_every, announce, zones.

-- Helpers from the engine's rule library (engine/rules/rule_lib.lua).
local point, label, list = lib.point, lib.label, lib.list

local cfg
local held_since = nil
local finished = false

local function count_inside(team)
  local n = 0
  for _, u in ipairs(units(team)) do
    if (u.x - cfg.x) ^ 2 + (u.y - cfg.y) ^ 2 <= cfg.radius ^ 2 then n = n + 1 end
  end
  return n
end

local function check()
  if finished then return end
  local mine, enemies = count_inside(cfg.team), 0
  for _, t in ipairs(teams()) do
    if t ~= cfg.team and not cfg.allies[t] then enemies = enemies + count_inside(t) end
  end
  local holding = mine > 0 and enemies == 0
  if holding and held_since == nil then
    held_since = time()
    log("zone_captured", {team = cfg.team, at = time(), units = mine})
    if cfg.announce then message("Zone captured! Hold it for " .. math.floor(cfg.hold) .. " seconds.", cfg.team) end
  elseif not holding and held_since ~= nil then
    log("zone_lost", {team = cfg.team, at = time(), held = time() - held_since, units = mine, enemies = enemies})
    if cfg.announce then message("The zone is contested!", cfg.team) end
    held_since = nil
  end
  if held_since ~= nil and time() - held_since >= cfg.hold then
    finished = true
    log("zone_held", {team = cfg.team, at = time(), held = time() - held_since})
    win(cfg.team, "held the zone for " .. math.floor(cfg.hold) .. " seconds")
  end
end

function on_start()
  local w, h = map_size()
  local zone = param("zone", nil)
  local x, y = point(zone)
  local candidates = {}
  for _, p in ipairs(list(param("zones", {}))) do
    if point(p) ~= nil then candidates[#candidates + 1] = p end
  end
  local drawn = 0
  if #candidates > 0 then
    drawn = math.min(#candidates, 1 + math.floor(random() * #candidates))
    zone = candidates[drawn]
    x, y = point(zone)
  end
  local allies = {}
  local ally_list = param("allies", {})
  if type(ally_list) == "table" then
    for _, t in ipairs(ally_list) do allies[math.floor(tonumber(t) or -1)] = true end
  end
  cfg = {
    team = math.floor(tonumber(param("team", 0)) or 0),
    x = x or w / 2, y = y or h / 2,
    radius = math.max(1, tonumber(param("radius", 4)) or 4),
    hold = math.max(0, tonumber(param("hold_seconds", 30)) or 30),
    allies = allies,
    announce = param("announce", true) ~= false,
  }
  mark(cfg.x, cfg.y, "capture zone")
  log("zone", {team = cfg.team, x = cfg.x, y = cfg.y, radius = cfg.radius, hold_seconds = cfg.hold, at_point = label(zone or "map centre"),
               candidate = drawn, candidates = #candidates})
  if cfg.announce then
    local where = ""
    if #candidates > 0 then where = " at (" .. math.floor(cfg.x) .. ", " .. math.floor(cfg.y) .. ")" end
    message("Capture the zone" .. where .. " and hold it for " .. math.floor(cfg.hold) .. " seconds.", cfg.team)
  end
  every(math.max(0.5, tonumber(param("check_every", 1)) or 1), check)
  local deadline = tonumber(param("deadline", 0)) or 0
  if deadline > 0 then
    at(deadline, function()
      if not finished then
        finished = true
        log("zone_deadline", {team = cfg.team, at = time(), holding = held_since ~= nil})
        lose(cfg.team, "did not hold the zone in time")
      end
    end)
  end
end
