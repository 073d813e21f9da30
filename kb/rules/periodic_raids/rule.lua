-- periodic_raids: every `interval` seconds a raid party comes from a random side among `sides` and
-- attack-moves to the nearest unit of `target_type` owned by `target_team` (e.g. metal_extractor),
-- falling back to any unit of that team, then to `target` / the map centre.
-- With `avoid_repeat` a raid never comes from the side of the previous one; with `jitter` each raid
-- comes up to that many seconds late (seeded), so raids are not predictable to the second. With `chase`
-- a raid party that destroyed its victim goes on to the next unit of `target_type` nearest to it, until
-- the party is beaten or no such unit is left (a raid left alone razes the whole economy).
-- Params: team, interval, first_at, sides, size, unit_type, target_type, target_team, target, raids, tag,
-- announce, avoid_repeat, jitter.

-- Helpers from the engine's rule library (engine/rules/rule_lib.lua).
local point, label, list = lib.point, lib.label, lib.list

-- Nearest unit to (x, y) in a list, or nil.
local function nearest(list_of_units, x, y)
  local best, best_d = nil, math.huge
  for _, u in ipairs(list_of_units) do
    local d = (u.x - x) ^ 2 + (u.y - y) ^ 2
    if d < best_d then best, best_d = u, d end
  end
  return best
end

local cfg
local launched = 0
local last_side = nil
local parties = {}   -- with chase: {ids = {...}, victim = id} of each raid party still alive

-- Index of the side this raid comes from: random, and not the previous one when asked.
local function pick_side()
  local n = #cfg.sides
  if not cfg.avoid_repeat or n < 2 or last_side == nil then return random_int(1, n) end
  local k = random_int(1, n - 1)
  if k >= last_side then k = k + 1 end
  return k
end

local function raid()
  if cfg.raids > 0 and launched >= cfg.raids then return end
  launched = launched + 1
  last_side = pick_side()
  local side = cfg.sides[last_side]
  local x, y = point(side)
  if x == nil then
    log("raid_skipped", {index = launched, from = label(side), why = "unknown spawn point"})
    return
  end
  local victim = nearest(units(cfg.target_team, {type = cfg.target_type}), x, y)
    or nearest(units(cfg.target_team), x, y)
  local tx, ty
  if victim then
    tx, ty = victim.x, victim.y
  else
    tx, ty = point(cfg.target)
    if tx == nil then
      local w, h = map_size()
      tx, ty = w / 2, h / 2
    end
  end
  local ids = spawn(cfg.team, cfg.unit_type, x, y, cfg.size, cfg.tag)
  if #ids > 0 then order(ids, "fight", tx, ty) end
  if cfg.chase and #ids > 0 then parties[#parties + 1] = {ids = ids, victim = victim and victim.id or -1} end
  mark(x, y, "raid " .. launched)
  log("raid", {index = launched, from = label(side), at = time(), count = #ids, x = x, y = y,
               target_type = victim and victim.type or "point", target_id = victim and victim.id or -1})
  if cfg.announce then message("Raiders spotted to the " .. label(side) .. "!") end
end

-- With chase: every 2 s each raid party whose victim is gone goes for the next one nearest to it.
local function chase()
  local alive_parties = {}
  for _, party in ipairs(parties) do
    local living, lead = {}, nil
    for _, id in ipairs(party.ids) do
      local u = unit(id)
      if u ~= nil then
        living[#living + 1] = id
        lead = lead or u
      end
    end
    if #living > 0 then
      party.ids = living
      alive_parties[#alive_parties + 1] = party
      if party.victim < 0 or unit(party.victim) == nil then
        local nxt = nearest(units(cfg.target_team, {type = cfg.target_type}), lead.x, lead.y)
        if nxt ~= nil then
          party.victim = nxt.id
          order(living, "fight", nxt.x, nxt.y)
          log("raid_chase", {count = #living, target_type = nxt.type, target_id = nxt.id, at = time()})
        else
          party.victim = -1
        end
      end
    end
  end
  parties = alive_parties
end

function on_start()
  cfg = {
    team = math.floor(tonumber(param("team", 1)) or 1),
    interval = math.max(1, tonumber(param("interval", 60)) or 60),
    sides = list(param("sides", {"north", "south", "east", "west"})),
    size = math.max(1, math.floor(tonumber(param("size", 3)) or 3)),
    unit_type = tostring(param("unit_type", "raider_bot")),
    target_type = tostring(param("target_type", "metal_extractor")),
    target_team = math.floor(tonumber(param("target_team", 0)) or 0),
    target = param("target", nil),
    raids = math.max(0, math.floor(tonumber(param("raids", 0)) or 0)),  -- 0 = no limit
    tag = tostring(param("tag", "raid")),
    announce = param("announce", true) ~= false,
    avoid_repeat = param("avoid_repeat", false) == true,
    jitter = math.max(0, tonumber(param("jitter", 0)) or 0),
    chase = param("chase", false) == true,
  }
  if cfg.chase then every(2, chase) end
  if #cfg.sides == 0 then cfg.sides = {"north"} end
  local first_at = math.max(0, tonumber(param("first_at", cfg.interval)) or cfg.interval)
  if cfg.jitter > 0 then
    -- each raid schedules the next one: interval plus a fresh random delay
    local function chain(base)
      at(base + random() * cfg.jitter, function()
        raid()
        chain(base + cfg.interval)
      end)
    end
    chain(first_at)
  else
    at(first_at, function()
      raid()
      every(cfg.interval, raid)
    end)
  end
  log("raids_planned", {first_at = first_at, interval = cfg.interval, sides = #cfg.sides, limit = cfg.raids,
                        jitter = cfg.jitter})
end
