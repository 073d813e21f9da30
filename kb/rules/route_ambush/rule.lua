-- route_ambush: `active` of the candidate `sites` (drawn from the seed, or `pick`) hide an ambush
-- that springs the first time a `target_team` unit tagged `target_tag` comes within
-- `trigger_radius`: `units` spawn for `team` at the site and attack-move at that unit, re-aimed at
-- it every `chase_every` seconds while it lives. Units without the tag pass unharmed: the ambush
-- waits for what it is after.
-- Params: team, target_team, target_tag, sites, active, pick, units, trigger_radius, chase_every.

-- Helpers from the engine's rule library (engine/rules/rule_lib.lua).
local point, list, composition, spawn_groups = lib.point, lib.list, lib.composition, lib.spawn_groups

local cfg
local groups = {}     -- sprung ambushes: {ids = {...}, target = unit id}

local function spring(site, u)
  if site.sprung or u.tag ~= cfg.tag then return end
  site.sprung = true
  local ids = spawn_groups(cfg.team, cfg.units, site.x, site.y, "ambush")
  log("ambush", {site = site.n, x = site.x, y = site.y, units = #ids, at = time(), target = u.id})
  if #ids > 0 then
    groups[#groups + 1] = {ids = ids, target = u.id}
    order(ids, "fight", u.x, u.y)
  end
end

local function chase()
  for _, g in ipairs(groups) do
    local t = unit(g.target)
    if t ~= nil then
      local alive = {}
      for _, id in ipairs(g.ids) do
        if unit(id) ~= nil then alive[#alive + 1] = id end
      end
      g.ids = alive
      if #alive > 0 then order(alive, "fight", t.x, t.y) end
    end
  end
end

local function drawn_sites(n)
  local chosen = {}
  for _, k in ipairs(list(param("pick", {}))) do
    k = math.floor(tonumber(k) or 0)
    if k >= 1 and k <= n then chosen[#chosen + 1] = k end
  end
  if #chosen > 0 then return chosen end
  local order_ = {}
  for i = 1, n do order_[i] = i end
  local want = math.max(0, math.min(n, math.floor(tonumber(param("active", 2)) or 2)))
  -- a partial Fisher-Yates shuffle: the first `want` entries are a seeded draw without repeats
  for i = 1, want do
    local j = i + math.floor(random() * (n - i + 1))
    order_[i], order_[j] = order_[j], order_[i]
    chosen[i] = order_[i]
  end
  table.sort(chosen)
  return chosen
end

function on_start()
  local sites = {}
  for _, p in ipairs(list(param("sites", {}))) do
    local x, y = point(p)
    if x ~= nil then sites[#sites + 1] = {x = x, y = y, n = #sites + 1} end
  end
  cfg = {
    team = math.floor(tonumber(param("team", 1)) or 1),
    target_team = math.floor(tonumber(param("target_team", 0)) or 0),
    tag = tostring(param("target_tag", "vip")),
    units = composition(param("units", {light_bot = 4})),
    radius = math.max(1, tonumber(param("trigger_radius", 8)) or 8),
  }
  local drawn = drawn_sites(#sites)
  log("ambush_sites", {drawn = drawn, first = drawn[1] or 0, candidates = #sites})
  for _, k in ipairs(drawn) do
    local site = sites[k]
    on_area_entered(site.x, site.y, cfg.radius, function(u) spring(site, u) end, cfg.target_team)
  end
  every(math.max(0.5, tonumber(param("chase_every", 2)) or 2), chase)
end
