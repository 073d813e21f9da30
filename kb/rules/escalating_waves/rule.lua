-- escalating_waves: `count` waves, `interval` seconds apart from `first_at` (or at the listed `times`),
-- each larger than the last: wave i has max(size of wave i-1 + growth, ceil(factor * size of wave i-1))
-- units (growth at least 1, factor at least 1: factor 1 is the additive base_size + growth * (i - 1),
-- factor 2 doubles). Waves rotate through the `from` points in their order; with `pick` "random" each
-- wave draws its point with the engine's seeded random ("random_no_repeat": never the previous wave's;
-- "bag": every point once per round of #from waves, in a drawn order).
-- With `jitter` each wave comes up to that many seconds late (seeded). With `nearest_target` each wave
-- attacks the tagged unit nearest to where it appears, else the first one.
-- With `sizes` (the units of each wave, in order, as a request counts them) wave i has sizes[i] units
-- instead (the last size repeats when there are more waves than sizes).
-- Params: team, first_at, interval, count, times, base_size, growth, factor, sizes, unit_type, from,
-- target_tag, target_team, target, tag, announce, pick, jitter, nearest_target.

-- Helpers from the engine's rule library (engine/rules/rule_lib.lua).
local point, label, list, target_position = lib.point, lib.label, lib.list, lib.target_position

local cfg
local MAX_SPAWN = 200   -- the engine's cap on units per spawn call
local last_from = nil   -- index into cfg.from of the previous wave's point
local bag = {}          -- "bag": the points this round has not used yet

-- Which of the `from` points wave i uses: in rotation ("cycle"), drawn (seeded) each wave ("random",
-- "random_no_repeat": never the previous one), or "bag": each round of #from waves uses every point
-- once, in a drawn order, never the previous wave's point first.
local function from_index(i)
  local n = #cfg.from
  local k
  if cfg.pick == "cycle" or n < 2 then
    k = (i - 1) % n + 1
  elseif cfg.pick == "bag" then
    if #bag == 0 then
      for j = 1, n do
        if j ~= last_from then bag[#bag + 1] = j end
      end
      k = table.remove(bag, random_int(1, #bag))
      if last_from ~= nil then bag[#bag + 1] = last_from end
    else
      k = table.remove(bag, random_int(1, #bag))
    end
  elseif cfg.pick == "random_no_repeat" and last_from ~= nil then
    k = random_int(1, n - 1)
    if k >= last_from then k = k + 1 end
  else
    k = random_int(1, n)
  end
  last_from = k
  return k
end

-- The tagged unit of target_team nearest to (x, y), when nearest_target is set.
local function nearest_tagged(x, y)
  if not (cfg.nearest_target and cfg.target_tag) then return nil end
  local best, best_d = nil, math.huge
  for _, u in ipairs(units(cfg.target_team, {tag = cfg.target_tag})) do
    local d = (u.x - x) ^ 2 + (u.y - y) ^ 2
    if d < best_d then best, best_d = u, d end
  end
  return best
end

local function wave_size(i)
  if #cfg.sizes > 0 then return math.min(cfg.sizes[math.min(i, #cfg.sizes)], MAX_SPAWN) end
  local size = cfg.base_size
  for _ = 2, i do
    size = math.max(size + cfg.growth, math.ceil(size * cfg.factor - 1e-9))
  end
  return math.min(size, MAX_SPAWN)
end

local function launch(i)
  local size = wave_size(i)
  local from = cfg.from[from_index(i)]
  local x, y = point(from)
  if x == nil then
    log("wave_skipped", {index = i, from = label(from), why = "unknown spawn point"})
    return
  end
  local tx, ty
  local near = nearest_tagged(x, y)
  if near then tx, ty = near.x, near.y else tx, ty = target_position(cfg.target_tag, cfg.target_team, cfg.target) end
  local ids = spawn(cfg.team, cfg.unit_type, x, y, size, cfg.tag)
  if #ids > 0 then order(ids, "fight", tx, ty) end
  mark(x, y, "wave " .. i .. " (" .. size .. ")")
  log("wave", {index = i, from = label(from), at = time(), count = #ids, size = size, x = x, y = y,
               tx = tx, ty = ty})
  if cfg.announce then
    message("Wave " .. i .. " of " .. cfg.count .. ": " .. size .. " " .. cfg.unit_type .. " from the " .. label(from) .. "!")
  end
end

function on_start()
  cfg = {
    team = math.floor(tonumber(param("team", 1)) or 1),
    first_at = math.max(0, tonumber(param("first_at", 60)) or 60),
    interval = math.max(1, tonumber(param("interval", 60)) or 60),
    count = math.max(0, math.floor(tonumber(param("count", 3)) or 3)),
    base_size = math.max(1, math.floor(tonumber(param("base_size", 3)) or 3)),
    -- growth below 1 would break the rule's promise that every wave is larger than the last
    growth = math.max(1, math.floor(tonumber(param("growth", 2)) or 2)),
    factor = math.max(1, tonumber(param("factor", 1)) or 1),
    times = list(param("times", {})),
    sizes = {},
    unit_type = tostring(param("unit_type", "light_bot")),
    from = list(param("from", {"north"})),
    target_tag = param("target_tag", nil),
    target_team = math.floor(tonumber(param("target_team", 0)) or 0),
    target = param("target", nil),
    tag = tostring(param("tag", "wave")),
    announce = param("announce", true) ~= false,
    pick = tostring(param("pick", "cycle")),
    jitter = math.max(0, tonumber(param("jitter", 0)) or 0),
    nearest_target = param("nearest_target", false) == true,
  }
  for i, n in ipairs(list(param("sizes", {}))) do
    local k = math.floor(tonumber(n) or 0)
    if k >= 1 then cfg.sizes[#cfg.sizes + 1] = k else log("size_skipped", {index = i, why = "bad size " .. tostring(n)}) end
  end
  if cfg.pick ~= "random" and cfg.pick ~= "random_no_repeat" and cfg.pick ~= "bag" then cfg.pick = "cycle" end
  if #cfg.from == 0 then cfg.from = {"north"} end
  local when = {}
  for i, t in ipairs(cfg.times) do
    local s = tonumber(t)
    if s and s >= 0 then when[#when + 1] = s else log("wave_skipped", {index = i, why = "bad time " .. tostring(t)}) end
  end
  if #cfg.times == 0 then
    for i = 1, cfg.count do when[i] = cfg.first_at + cfg.interval * (i - 1) end
  end
  cfg.count = #when
  for i, t in ipairs(when) do
    if cfg.jitter > 0 then t = t + random() * cfg.jitter end
    at(t, function() launch(i) end)
  end
  log("waves_planned", {waves = cfg.count, first_at = when[1] or cfg.first_at, interval = cfg.interval,
                        base_size = cfg.base_size, growth = cfg.growth, factor = cfg.factor, sizes = #cfg.sizes, pick = cfg.pick,
                        jitter = cfg.jitter})
end
