-- waves_from_directions: at each given time, one wave per named direction attacks simultaneously.
-- Params: team, directions, times, units, target_tag, target_team, target, tag, announce.

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

local function launch(index)
  local tx, ty = target_position(cfg.target_tag, cfg.target_team, cfg.target)
  local names = {}
  for _, dir in ipairs(cfg.directions) do
    local x, y = point(dir)
    if x == nil then
      log("wave_skipped", {index = index, from = label(dir), why = "unknown direction"})
    else
      local ids = spawn_groups(cfg.team, cfg.groups, x, y, cfg.tag)
      if #ids > 0 then order(ids, "fight", tx, ty) end
      mark(x, y, "wave " .. index .. ": " .. label(dir))
      log("wave", {index = index, from = label(dir), at = time(), count = #ids, x = x, y = y, tx = tx, ty = ty})
      names[#names + 1] = label(dir)
    end
  end
  if cfg.announce and #names > 0 then
    message("Wave " .. index .. " incoming from " .. table.concat(names, ", ") .. "!")
  end
end

function on_start()
  cfg = {
    team = math.floor(tonumber(param("team", 1)) or 1),
    directions = list(param("directions", {"north", "east"})),
    times = list(param("times", {60})),
    groups = composition(param("units", {light_bot = 4})),
    target_tag = param("target_tag", nil),
    target_team = math.floor(tonumber(param("target_team", 0)) or 0),
    target = param("target", nil),
    tag = tostring(param("tag", "wave")),
    announce = param("announce", true) ~= false,
  }
  local names = {}
  for _, dir in ipairs(cfg.directions) do names[#names + 1] = label(dir) end
  for i, t in ipairs(cfg.times) do
    local when = tonumber(t)
    if when and when >= 0 then
      at(when, function() launch(i) end)
    else
      log("wave_skipped", {index = i, why = "bad time " .. tostring(t)})
    end
  end
  log("waves_planned", {waves = #cfg.times, directions = table.concat(names, ","), team = cfg.team})
end
