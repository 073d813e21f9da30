-- The rule library: helpers many rule scripts share, defined in each rule's sandbox before the
-- script runs (the sandbox has no `require`). Written only against the rule API, and run under the
-- same instruction budget and memory cap as the script itself.
lib = {}

-- A point given as a map spawn name, {x, y} or {x=, y=}; nil when unknown or off the map.
function lib.point(p)
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
function lib.label(p)
  if type(p) == "table" then return tostring(p.x or p[1]) .. "," .. tostring(p.y or p[2]) end
  return tostring(p)
end

-- A list from a scalar or a list param.
function lib.list(v)
  if type(v) == "table" then return v end
  if v == nil then return {} end
  return {v}
end

-- {type = count} (sorted by type so runs are deterministic), a list of {type=, count=}, or a name.
function lib.composition(spec)
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
function lib.target_position(tag, team, fallback)
  if tag then
    local found = units(team, {tag = tag})
    if #found > 0 then return found[1].x, found[1].y end
  end
  local x, y = lib.point(fallback)
  if x then return x, y end
  local w, h = map_size()
  return w / 2, h / 2
end

-- Spawn every group of a composition at (x, y); returns all new ids.
function lib.spawn_groups(team, groups, x, y, tag)
  local ids = {}
  for _, g in ipairs(groups) do
    if g[2] > 0 then
      for _, id in ipairs(spawn(team, g[1], x, y, g[2], tag)) do ids[#ids + 1] = id end
    end
  end
  return ids
end
