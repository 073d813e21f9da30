-- eliminate_enemy: `team` wins the moment every unit of `enemy_team` is destroyed; with `deadline` it
-- loses if some are still alive by then, and with `max_losses` (>= 0) it loses once more than that many
-- of its own units are destroyed (a survivor condition: "at least two of three tanks still roll" is 1).
-- Params: team, enemy_team, deadline, max_losses, announce.

local cfg
local lost, killed = 0, 0
local finished = false

local function others(team, gone)
  local n = 0
  for _, u in ipairs(units(team)) do
    if u.id ~= gone then n = n + 1 end
  end
  return n
end

function on_start()
  cfg = {
    team = math.floor(tonumber(param("team", 0)) or 0),
    enemy = math.floor(tonumber(param("enemy_team", 1)) or 1),
    deadline = tonumber(param("deadline", 0)) or 0,
    max_losses = math.floor(tonumber(param("max_losses", -1)) or -1),
  }
  log("skirmish", {team = cfg.team, enemy_team = cfg.enemy, units = #units(cfg.team),
                   enemies = #units(cfg.enemy), deadline = cfg.deadline, max_losses = cfg.max_losses})
  if param("announce", true) ~= false then
    local text = "Destroy every enemy unit"
    if cfg.deadline > 0 then text = text .. " within " .. math.floor(cfg.deadline) .. " seconds" end
    if cfg.max_losses >= 0 then text = text .. ", losing no more than " .. cfg.max_losses .. " of your units" end
    message(text .. ".", cfg.team)
  end
  if cfg.deadline > 0 then
    at(cfg.deadline, function()
      if finished then return end
      finished = true
      log("skirmish_deadline", {enemies_left = #units(cfg.enemy), lost = lost})
      lose(cfg.team, "enemy units still alive at the deadline")
    end)
  end
end

function on_unit_destroyed(u)
  if cfg == nil or finished then return end
  if u.team == cfg.enemy then
    killed = killed + 1
    local left = others(cfg.enemy, u.id)
    log("enemy_destroyed", {id = u.id, type = u.type, killed = killed, left = left, at = time()})
    if left == 0 then
      finished = true
      log("enemy_eliminated", {killed = killed, lost = lost, left = others(cfg.team, -1), at = time()})
      win(cfg.team, "every enemy unit destroyed (" .. lost .. " of yours lost)")
    end
  elseif u.team == cfg.team then
    lost = lost + 1
    log("unit_lost", {id = u.id, type = u.type, lost = lost, at = time()})
    if cfg.max_losses >= 0 and lost > cfg.max_losses then
      finished = true
      log("losses_exceeded", {lost = lost, max_losses = cfg.max_losses, at = time()})
      lose(cfg.team, "lost " .. lost .. " units, more than the " .. cfg.max_losses .. " allowed")
    end
  end
end
