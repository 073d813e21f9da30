-- unscouted_side_attack: the enemy attacks from a side the player has NOT scouted.
-- Each candidate side has a scouting zone (a point and a radius); a unit of `scout_team` entering it
-- marks that side as scouted. At each attack time a wave spawns at a random side among the unscouted
-- ones (seeded) and goes for the tagged target nearest to that side; when every side has been scouted it comes from any side, and says so in the log.
-- With `fresh` the draw prefers the unscouted sides no attack has come from yet; with `jitter` each
-- attack comes up to that many seconds late (seeded).
-- Params: team, sides, scout_points, scout_radius, scout_team, times, units, target_tag, target_team,
-- target, tag, announce, fresh, jitter.

-- Helpers from the engine's rule library (engine/rules/rule_lib.lua).
local point, label, list, composition = lib.point, lib.label, lib.list, lib.composition

local cfg
local scouted = {}   -- side index -> true once a scout entered its zone
local attacked = {}  -- side index -> true once an attack came from it
local launched = 0

local function scouted_names()
  local names = {}
  for i, side in ipairs(cfg.sides) do
    if scouted[i] then names[#names + 1] = label(side) end
  end
  return table.concat(names, ",")
end

-- The tagged unit nearest to the attack's side, else the target point, else the map centre.
local function target_position(sx, sy)
  if cfg.target_tag then
    local best, best_d = nil, math.huge
    for _, u in ipairs(units(cfg.target_team, {tag = cfg.target_tag})) do
      local d = (u.x - sx) ^ 2 + (u.y - sy) ^ 2
      if d < best_d then best, best_d = u, d end
    end
    if best then return best.x, best.y end
  end
  local x, y = point(cfg.target)
  if x then return x, y end
  local w, h = map_size()
  return w / 2, h / 2
end

local function attack()
  launched = launched + 1
  local open = {}
  for i = 1, #cfg.sides do
    if not scouted[i] then open[#open + 1] = i end
  end
  local unscouted = #open > 0
  if not unscouted then
    for i = 1, #cfg.sides do open[i] = i end
  end
  if cfg.fresh then
    local unused = {}
    for _, i in ipairs(open) do
      if not attacked[i] then unused[#unused + 1] = i end
    end
    if #unused > 0 then open = unused end
  end
  local pick = open[random_int(1, #open)]
  attacked[pick] = true
  local side = cfg.sides[pick]
  local x, y = point(side)
  if x == nil then
    log("attack_skipped", {index = launched, from = label(side), why = "unknown side"})
    return
  end
  local tx, ty = target_position(x, y)
  local ids = {}
  for _, g in ipairs(cfg.groups) do
    if g[2] > 0 then
      for _, id in ipairs(spawn(cfg.team, g[1], x, y, g[2], cfg.tag)) do ids[#ids + 1] = id end
    end
  end
  if #ids > 0 then order(ids, "fight", tx, ty) end
  mark(x, y, "attack " .. launched)
  log("attack", {index = launched, from = label(side), at = time(), count = #ids, x = x, y = y,
                 unscouted = unscouted, scouted = scouted_names()})
  if cfg.announce then message("Attack from the " .. label(side) .. "!") end
end

function on_start()
  cfg = {
    team = math.floor(tonumber(param("team", 1)) or 1),
    sides = list(param("sides", {"north", "east", "south", "west"})),
    scout_points = list(param("scout_points", {})),
    scout_radius = math.max(1, tonumber(param("scout_radius", 8)) or 8),
    scout_team = math.floor(tonumber(param("scout_team", 0)) or 0),
    times = list(param("times", {120})),
    groups = composition(param("units", {light_bot = 4})),
    target_tag = param("target_tag", nil),
    target_team = math.floor(tonumber(param("target_team", 0)) or 0),
    target = param("target", nil),
    tag = tostring(param("tag", "attack")),
    announce = param("announce", true) ~= false,
    fresh = param("fresh", false) == true,
    jitter = math.max(0, tonumber(param("jitter", 0)) or 0),
  }
  for i, side in ipairs(cfg.sides) do
    local x, y = point(cfg.scout_points[i])
    if x == nil then x, y = point(side) end
    if x == nil then
      log("scout_zone_skipped", {side = label(side), why = "unknown side"})
    else
      mark(x, y, "scout " .. label(side))
      on_area_entered(x, y, cfg.scout_radius, function(u)
        if not scouted[i] then
          scouted[i] = true
          log("scouted", {side = label(side), id = u and u.id or -1, at = time()})
        end
      end, cfg.scout_team)
      log("scout_zone", {side = label(side), x = x, y = y, radius = cfg.scout_radius})
    end
  end
  for i, t in ipairs(cfg.times) do
    local when = tonumber(t)
    if when and when >= 0 then
      if cfg.jitter > 0 then when = when + random() * cfg.jitter end
      at(when, attack)
    else
      log("attack_skipped", {index = i, why = "bad time"})
    end
  end
  if cfg.announce then
    message("Scout the approaches: the enemy will strike from a side you have not scouted.", cfg.scout_team)
  end
end
