-- static_fortification: at the start, `team` gets a ring of `turrets` turrets of `turret_type` at
-- `radius` around `center` (further rings outward when one does not hold them `spacing` apart), an
-- optional outer ring of `walls` walls `wall_gap` outside the last turret ring, and an
-- optional `core_type` structure at the centre tagged `core_tag` (the target to destroy).
-- Ring positions off the map are skipped and counted in the log; the engine moves positions on
-- blocked terrain to the nearest free spot.
-- With `sites` (candidate centres) the fortification and its core go to one site drawn from the
-- run's seed instead of `center`; every other site gets a decoy ring of `decoy_turrets` turrets, and
-- every site is marked alike, so which one holds the core must be scouted.
-- Params: team, center, radius, turrets, turret_type, walls, wall_type, wall_gap, core_type,
-- core_tag, tag, phase, sites, decoy_turrets, spacing.

-- Helpers from the engine's rule library (engine/rules/rule_lib.lua).
local point, label, list = lib.point, lib.label, lib.list

-- Spawn one unit unless (x, y) is off the map; returns how many were placed (0 or 1).
local function place(team, kind, x, y, tag)
  local w, h = map_size()
  if x < 0.5 or y < 0.5 or x > w - 0.5 or y > h - 0.5 then return 0 end
  return #spawn(team, kind, x, y, 1, tag)
end

-- Place `n` units on rings round (cx, cy) from radius `r` outward, neighbours at least `spacing`
-- apart along a ring: a ring holds what its circumference fits and the rest go to a ring `spacing`
-- further out, so no number of buildings stacks onto shared tiles. Returns how many were placed and
-- the outermost radius used.
local function rings(team, kind, n, cx, cy, r, spacing, phase, tag)
  local placed, left, radius, outer = 0, n, r, r
  while left > 0 do
    local k = math.min(left, math.max(1, math.floor(2 * math.pi * radius / spacing)))
    for i = 0, k - 1 do
      local a = phase + 2 * math.pi * i / k
      placed = placed + place(team, kind, cx + radius * math.cos(a), cy + radius * math.sin(a), tag)
    end
    left, outer, radius = left - k, radius, radius + spacing
  end
  return placed, outer
end

function on_start()
  local team = math.floor(tonumber(param("team", 1)) or 1)
  local center = param("center", nil)
  local cx, cy = point(center)
  if cx == nil then
    local w, h = map_size()
    cx, cy = w / 2, h / 2
  end
  local sites = {}
  for _, p in ipairs(list(param("sites", {}))) do
    local sx, sy = point(p)
    if sx ~= nil then sites[#sites + 1] = {sx, sy} end
  end
  local site = 0
  if #sites > 0 then
    site = math.min(#sites, 1 + math.floor(random() * #sites))
    cx, cy = sites[site][1], sites[site][2]
  end
  local radius = math.max(1, tonumber(param("radius", 6)) or 6)
  local n_turrets = math.max(0, math.floor(tonumber(param("turrets", 6)) or 6))
  local n_walls = math.max(0, math.floor(tonumber(param("walls", 0)) or 0))
  local turret_type = tostring(param("turret_type", "light_turret"))
  local wall_type = tostring(param("wall_type", "wall"))
  local wall_gap = math.max(1, tonumber(param("wall_gap", 2)) or 2)
  local core_type = param("core_type", nil)
  local tag = tostring(param("tag", "fortification"))
  local phase = math.rad(tonumber(param("phase", 0)) or 0)
  -- 1.5 tiles: two points that far apart never share a tile, and one-tile buildings block one tile each
  local spacing = math.max(1.5, tonumber(param("spacing", 1.5)) or 1.5)

  local turrets, outer = rings(team, turret_type, n_turrets, cx, cy, radius, spacing, phase, tag)
  local walls = rings(team, wall_type, n_walls, cx, cy, outer + wall_gap, spacing,
                      phase + math.pi / math.max(1, n_walls), tag)
  local core = 0
  if core_type then core = place(team, tostring(core_type), cx, cy, tostring(param("core_tag", "core"))) end
  local n_decoys = math.max(0, math.floor(tonumber(param("decoy_turrets", 0)) or 0))
  local decoys = 0
  for k, p in ipairs(sites) do
    if k ~= site then decoys = decoys + rings(team, turret_type, n_decoys, p[1], p[2], radius, spacing, phase, tag) end
    mark(p[1], p[2], "site " .. k)
  end
  if #sites == 0 then mark(cx, cy, "fortress") end
  log("fortification", {team = team, x = cx, y = cy, at_point = label(center or "map centre"), turrets = turrets,
                        walls = walls, core = core, skipped = (n_turrets - turrets) + (n_walls - walls),
                        site = site, sites = #sites, decoys = decoys})
end
