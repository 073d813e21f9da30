-- last_survivor: when only one alliance still has units, its teams win; eliminations are logged in
-- order with the place each alliance finished. If the last alliances die together nobody wins here
-- (the API has no draw), which is logged; the level's time limit then ends the run. Alliances come from `alliances` (lists of team ids);
-- teams not listed stand alone. With `mobile_only`, buildings do not keep an alliance alive.
-- Params: alliances, ignore_teams, mobile_only, check_every.

local STATIC = {defense = true, economy = true, factory = true}

local cfg
local alive_before = {}
local finished = false

-- Alliance list: the given groups plus every other (not ignored) team on its own.
local function build_alliances(groups, ignored)
  local seen, out = {}, {}
  if type(groups) ~= "table" then groups = {} end
  for _, g in ipairs(groups) do
    local members = {}
    for _, t in ipairs(type(g) == "table" and g or {g}) do
      local id = math.floor(tonumber(t) or -1)
      if not seen[id] and not ignored[id] then seen[id] = true; members[#members + 1] = id end
    end
    if #members > 0 then out[#out + 1] = members end
  end
  for _, t in ipairs(teams()) do
    if not seen[t] and not ignored[t] then seen[t] = true; out[#out + 1] = {t} end
  end
  return out
end

local function has_units(team)
  for _, u in ipairs(units(team)) do
    if not cfg.mobile_only or not STATIC[u.category] then return true end
  end
  return false
end

local function names(members)
  local parts = {}
  for _, t in ipairs(members) do parts[#parts + 1] = tostring(t) end
  return table.concat(parts, "+")
end

local function check()
  if finished then return end
  local alive = {}
  for i, members in ipairs(cfg.alliances) do
    local any = false
    for _, t in ipairs(members) do any = any or has_units(t) end
    if any then alive[#alive + 1] = i end
  end
  local still = {}
  for _, i in ipairs(alive) do still[i] = true end
  for i, members in ipairs(cfg.alliances) do
    if alive_before[i] and not still[i] then
      log("eliminated", {teams = names(members), place = #alive + 1, at = time()})
      message("Team " .. names(members) .. " has been eliminated.")
    end
  end
  alive_before = still
  if #alive == 1 then
    finished = true
    local winners = cfg.alliances[alive[1]]
    log("last_survivor", {teams = names(winners), at = time()})
    for _, t in ipairs(winners) do win(t, "last alliance standing") end
  elseif #alive == 0 then
    finished = true
    log("no_survivors", {at = time()})
    message("No alliance survived.")
  end
end

function on_start()
  local ignored = {}
  local ignore_list = param("ignore_teams", {})
  if type(ignore_list) ~= "table" then ignore_list = {ignore_list} end
  for _, t in ipairs(ignore_list) do ignored[math.floor(tonumber(t) or -1)] = true end
  cfg = {
    alliances = build_alliances(param("alliances", {}), ignored),
    mobile_only = param("mobile_only", false) == true,
    check_every = math.max(0.5, tonumber(param("check_every", 1)) or 1),
  }
  for i = 1, #cfg.alliances do alive_before[i] = true end
  local listing = {}
  for _, members in ipairs(cfg.alliances) do listing[#listing + 1] = names(members) end
  log("alliances", {count = #cfg.alliances, teams = table.concat(listing, " vs ")})
  if #cfg.alliances < 2 then
    log("last_survivor_inactive", {why = "fewer than two alliances"})
    return
  end
  every(cfg.check_every, check)
end
