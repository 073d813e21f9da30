-- production_goal: `team` wins as soon as it owns at least `units` (type -> count); it loses at
-- `deadline` if the goal is not met. Progress is logged whenever it changes.
-- Params: team, units, deadline, check_every, announce.

-- Helpers from the engine's rule library (engine/rules/rule_lib.lua).
local composition = lib.composition

local cfg
local done = false
local last_progress = ""

-- Owned counts per goal entry and whether every entry is met.
local function progress()
  local parts, met = {}, true
  for _, g in ipairs(cfg.goal) do
    local have = #units(cfg.team, {type = g[1]})
    if have < g[2] then met = false end
    parts[#parts + 1] = g[1] .. " " .. math.min(have, g[2]) .. "/" .. g[2]
  end
  return table.concat(parts, ", "), met
end

local function check()
  if done then return end
  local text, met = progress()
  if text ~= last_progress then
    last_progress = text
    log("production_progress", {team = cfg.team, progress = text, at = time()})
  end
  if met then
    done = true
    log("goal_met", {team = cfg.team, at = time()})
    win(cfg.team, "produced the target composition: " .. text)
  end
end

function on_start()
  cfg = {
    team = math.floor(tonumber(param("team", 0)) or 0),
    goal = composition(param("units", {light_tank = 4})),
    deadline = tonumber(param("deadline", 600)) or 600,
    check_every = math.max(0.5, tonumber(param("check_every", 1)) or 1),
    announce = param("announce", true) ~= false,
  }
  if cfg.announce then
    local wanted = {}
    for _, g in ipairs(cfg.goal) do wanted[#wanted + 1] = g[2] .. " " .. g[1] end
    message("Build " .. table.concat(wanted, ", ") .. " within " .. math.floor(cfg.deadline) .. " seconds.", cfg.team)
  end
  every(cfg.check_every, check)
  at(cfg.deadline, function()
    check()
    if not done then
      done = true
      log("goal_missed", {team = cfg.team, progress = last_progress, at = time()})
      lose(cfg.team, "deadline passed before the composition was produced (" .. last_progress .. ")")
    end
  end)
  check()
end
