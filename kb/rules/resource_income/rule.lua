-- resource_income: gives `team` `metal` and `energy` every `interval` seconds (a convoy, a tribute,
-- a handicap for one side), optionally only until `until_time`.
-- Params: team, metal, energy, interval, first_at, until_time, announce.

function on_start()
  local team = math.floor(tonumber(param("team", 0)) or 0)
  local metal = math.max(0, tonumber(param("metal", 50)) or 50)
  local energy = math.max(0, tonumber(param("energy", 0)) or 0)
  local interval = math.max(1, tonumber(param("interval", 30)) or 30)
  local first_at = math.max(0, tonumber(param("first_at", interval)) or interval)
  local until_time = tonumber(param("until_time", 0)) or 0
  local announce = param("announce", false) == true
  local paid = 0
  local function pay()
    if until_time > 0 and time() > until_time + 1e-6 then return end
    paid = paid + 1
    give_resources(team, metal, energy)
    local r = resources(team)
    log("income", {team = team, index = paid, metal = metal, energy = energy, at = time(),
                   metal_now = r.metal, energy_now = r.energy})
    if announce then message("Supplies arrived: +" .. math.floor(metal) .. " metal, +" .. math.floor(energy) .. " energy.", team) end
  end
  at(first_at, function()
    pay()
    every(interval, pay)
  end)
  log("income_planned", {team = team, metal = metal, energy = energy, interval = interval, first_at = first_at})
end
