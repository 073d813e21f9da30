-- rank_by_efficiency: at `time`, teams are ranked by damage efficiency (damage dealt / damage
-- received) and the top team wins (with its allies). Ranks are logged as rule_log "rank"
-- {team, rank, dealt, received, efficiency}.
-- The rule API exposes no damage statistics, so the rule measures them: every `sample_every`
-- seconds it compares each unit's hp with the previous sample and charges the loss to the team of
-- the nearest hostile combat unit (not economy or factory); a destroyed unit's last hp is charged
-- the same way. This is exact for two sides and a close estimate in a free-for-all.
-- Params: time, alliances, sample_every, announce.

local NON_COMBAT = {economy = true, factory = true}

local cfg
local last_hp = {}       -- unit id -> hp at the previous sample
local dealt, received = {}, {}
local ally_of = {}       -- team -> alliance index
local finished = false

local function hostile(a, b)
  return a ~= b and (ally_of[a] == nil or ally_of[a] ~= ally_of[b])
end

-- Team of the hostile combat unit nearest to (x, y) among `everyone`, or nil.
local function nearest_hostile(everyone, team, x, y)
  local best, best_d = nil, math.huge
  for _, o in ipairs(everyone) do
    if hostile(team, o.team) and not NON_COMBAT[o.category] then
      local d = (o.x - x) ^ 2 + (o.y - y) ^ 2
      if d < best_d then best, best_d = o.team, d end
    end
  end
  return best
end

local function charge(everyone, victim_team, x, y, amount)
  if amount <= 0 then return end
  received[victim_team] = (received[victim_team] or 0) + amount
  local by = nearest_hostile(everyone, victim_team, x, y)
  if by ~= nil then dealt[by] = (dealt[by] or 0) + amount end
end

local function everyone_now()
  local all = {}
  for _, t in ipairs(teams()) do
    for _, u in ipairs(units(t)) do all[#all + 1] = u end
  end
  return all
end

local function sample()
  if finished then return end
  local all = everyone_now()
  for _, u in ipairs(all) do
    local prev = last_hp[u.id]
    if prev ~= nil and u.hp < prev then charge(all, u.team, u.x, u.y, prev - u.hp) end
    last_hp[u.id] = u.hp
  end
end

local function rank()
  sample()
  finished = true
  local rows = {}
  for _, t in ipairs(teams()) do
    local d, r = dealt[t] or 0, received[t] or 0
    rows[#rows + 1] = {team = t, dealt = d, received = r, efficiency = d / math.max(r, 1)}
  end
  table.sort(rows, function(a, b)
    if a.efficiency ~= b.efficiency then return a.efficiency > b.efficiency end
    if a.dealt ~= b.dealt then return a.dealt > b.dealt end
    return a.team < b.team
  end)
  local standings = {}
  for i, row in ipairs(rows) do
    log("rank", {team = row.team, rank = i, dealt = math.floor(row.dealt + 0.5),
                 received = math.floor(row.received + 0.5), efficiency = math.floor(row.efficiency * 1000 + 0.5) / 1000})
    standings[#standings + 1] = i .. ". team " .. row.team .. " (" .. string.format("%.2f", row.efficiency) .. ")"
  end
  if cfg.announce then message("Final ranking by damage efficiency: " .. table.concat(standings, ", ")) end
  if #rows > 0 then win(rows[1].team, "best damage efficiency " .. string.format("%.2f", rows[1].efficiency)) end
end

function on_start()
  cfg = {
    time = math.max(1, tonumber(param("time", 300)) or 300),
    sample_every = math.max(0.2, tonumber(param("sample_every", 0.5)) or 0.5),
    announce = param("announce", true) ~= false,
  }
  local groups = param("alliances", {})
  if type(groups) ~= "table" then groups = {} end
  for i, g in ipairs(groups) do
    for _, t in ipairs(type(g) == "table" and g or {g}) do ally_of[math.floor(tonumber(t) or -1)] = i end
  end
  sample()
  every(cfg.sample_every, sample)
  at(cfg.time, rank)
  if cfg.announce then message("Teams are ranked by damage dealt / damage received at " .. math.floor(cfg.time) .. " s.") end
  log("ranking_planned", {at = cfg.time, sample_every = cfg.sample_every})
end

function on_unit_created(u)
  last_hp[u.id] = u.hp
end

function on_unit_destroyed(u)
  local prev = last_hp[u.id]
  last_hp[u.id] = nil
  if finished or prev == nil then return end
  charge(everyone_now(), u.team, u.x, u.y, prev)
end
