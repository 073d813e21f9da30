-- reinforcements: `team` (the player or an ally) receives `units` at each time in `times`, arriving at
-- points[i] (the last point is reused when there are fewer points than times). When `move_to` is
-- given they move there on arrival.
-- Params: team, times, points, units, move_to, tag, announce.

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

-- {type = count} (sorted by type so runs are deterministic), a list of {type=, count=}, or a name.
local function composition(spec)
  local out = {}
  if type(spec) == "string" then
    out[1] = {spec, 1}
  elseif type(spec) == "table" and #spec > 0 then
    for _, e in ipairs(spec) do
      if type(e) == "string" then out[#out + 1] = {e, 1}
      elseif type(e) == "table" then out[#out + 1] = {e.type or e[1], math.floor(tonumber(e.count or e[2]) or 1)} end
    end
  elseif type(spec) == "table" then
    local keys = {}
    for k in pairs(spec) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do out[#out + 1] = {k, math.floor(tonumber(spec[k]) or 0)} end
  end
  return out
end

-- Spawn every group of a composition at (x, y); returns all new ids.
local function spawn_groups(team, groups, x, y, tag)
  local ids = {}
  for _, g in ipairs(groups) do
    if g[2] > 0 then
      for _, id in ipairs(spawn(team, g[1], x, y, g[2], tag)) do ids[#ids + 1] = id end
    end
  end
  return ids
end

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
