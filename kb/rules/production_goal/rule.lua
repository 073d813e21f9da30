-- production_goal: `team` wins as soon as it owns at least `units` (type -> count); it loses at
-- `deadline` if the goal is not met. With `win_from` the win waits until that second, and with
-- `beat_tag` also until no unit of `beat_team` tagged `beat_tag` is left (an enemy attack beaten): the
-- composition must then still be owned. Progress is logged whenever it changes.
-- Params: team, units, deadline, check_every, announce, win_from, beat_tag, beat_team.

-- Helpers from the engine's rule library (engine/rules/rule_lib.lua).
local composition = lib.composition

local cfg
local done = false
local met_once = false   -- goal_met is logged once, the first time the composition is owned
local waiting = false
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

-- Units of the threat the win waits for that are still alive.
local function threat_left()
  if cfg.beat_tag == nil then return 0 end
  return #units(cfg.beat_team, {tag = cfg.beat_tag})
end

local function check()
  if done then return end
  local text, met = progress()
  if text ~= last_progress then
    last_progress = text
    log("production_progress", {team = cfg.team, progress = text, at = time()})
  end
  if not met then return end
  if not met_once then
    met_once = true
    log("goal_met", {team = cfg.team, at = time()})
  end
  local left = threat_left()
  if time() < cfg.win_from or left > 0 then
    if not waiting then
      waiting = true
      log("win_waiting", {team = cfg.team, from = cfg.win_from, tag = cfg.beat_tag or "", left = left})
    end
    return
  end
  done = true
  if cfg.beat_tag ~= nil then
    log("threat_cleared", {team = cfg.team, tag = cfg.beat_tag, at = time()})
  end
  win(cfg.team, "produced the target composition: " .. text
      .. (cfg.beat_tag ~= nil and " and beat the enemy's " .. cfg.beat_tag or ""))
end

function on_start()
  local tag = param("beat_tag", nil)
  cfg = {
    team = math.floor(tonumber(param("team", 0)) or 0),
    goal = composition(param("units", {light_tank = 4})),
    deadline = tonumber(param("deadline", 600)) or 600,
    check_every = math.max(0.5, tonumber(param("check_every", 1)) or 1),
    announce = param("announce", true) ~= false,
    win_from = math.max(0, tonumber(param("win_from", 0)) or 0),
    beat_tag = type(tag) == "string" and tag ~= "" and tag or nil,
    beat_team = math.floor(tonumber(param("beat_team", 1)) or 1),
  }
  if cfg.announce then
    local wanted = {}
    for _, g in ipairs(cfg.goal) do wanted[#wanted + 1] = g[2] .. " " .. g[1] end
    message("Build " .. table.concat(wanted, ", ") .. " within " .. math.floor(cfg.deadline) .. " seconds"
            .. (cfg.beat_tag ~= nil and ", then beat the enemy's " .. cfg.beat_tag .. " with them." or "."), cfg.team)
  end
  every(cfg.check_every, check)
  at(cfg.deadline, function()
    check()
    local _, met = progress()
    if not done and not met then
      done = true
      log("goal_missed", {team = cfg.team, progress = last_progress, at = time()})
      lose(cfg.team, "deadline passed " .. (met_once and "with the composition no longer owned"
                                            or "before the composition was produced") .. " (" .. last_progress .. ")")
    end
  end)
  check()
end
