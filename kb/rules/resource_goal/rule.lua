-- resource_goal: `team` wins as soon as its stockpile of `resource` (metal or energy) reaches `amount`,
-- or, with measure "income", what it earns of it per second does; it loses at `deadline` if it has not.
-- With `keep_type`, losing any of its units of that type loses (an economy to keep whole). Progress is
-- logged at each quarter of the goal.
-- Params: team, resource, amount, measure, deadline, check_every, keep_type, announce.

local cfg
local done = false
local best = 0          -- the highest value seen, for the quarters logged and the loss reason
local quarters = 0      -- quarters of the goal reached so far (1..3 logged, 4 is the goal)

local function value()
  local t = cfg.measure == "income" and income(cfg.team) or resources(cfg.team)
  return t[cfg.resource] or 0
end

-- a whole amount without its ".0"
local function num(x)
  return x == math.floor(x) and tostring(math.floor(x)) or tostring(x)
end

local function what()
  return num(cfg.amount) .. " " .. cfg.resource .. (cfg.measure == "income" and " per second" or "")
end

local function check()
  if done then return end
  local v = value()
  if v > best then best = v end
  while quarters < 3 and v >= cfg.amount * (quarters + 1) / 4 do
    quarters = quarters + 1
    log("resource_progress", {team = cfg.team, resource = cfg.resource, measure = cfg.measure,
                              share = quarters * 25, value = v, at = time()})
  end
  if v >= cfg.amount then
    done = true
    log("goal_reached", {team = cfg.team, resource = cfg.resource, measure = cfg.measure, amount = cfg.amount,
                         value = v, at = time()})
    win(cfg.team, "reached " .. what() .. " by " .. math.floor(time()) .. " s")
  end
end

function on_start()
  local resource = param("resource", "metal")
  local keep = param("keep_type", "")
  cfg = {
    team = math.floor(tonumber(param("team", 0)) or 0),
    resource = resource == "energy" and "energy" or "metal",
    amount = math.max(1, tonumber(param("amount", 1000)) or 1000),
    measure = param("measure", "stockpile") == "income" and "income" or "stockpile",
    deadline = math.max(1, tonumber(param("deadline", 300)) or 300),
    check_every = math.max(0.5, tonumber(param("check_every", 1)) or 1),
    keep_type = type(keep) == "string" and keep ~= "" and keep or nil,
    announce = param("announce", true) ~= false,
  }
  log("resource_goal", {team = cfg.team, resource = cfg.resource, measure = cfg.measure, amount = cfg.amount,
                        deadline = cfg.deadline, keep_type = cfg.keep_type or ""})
  if cfg.announce then
    message((cfg.measure == "income" and "Reach an income of " or "Stockpile ") .. what() .. " within "
            .. math.floor(cfg.deadline) .. " seconds"
            .. (cfg.keep_type and (" without losing a " .. cfg.keep_type) or "") .. ".", cfg.team)
  end
  every(cfg.check_every, check)
  at(cfg.deadline, function()
    check()
    if done then return end
    done = true
    log("goal_missed", {team = cfg.team, resource = cfg.resource, measure = cfg.measure, amount = cfg.amount,
                        best = best, at = time()})
    lose(cfg.team, "deadline passed before reaching " .. what() .. " (best " .. math.floor(best) .. ")")
  end)
  check()
end

function on_unit_destroyed(u)
  if cfg == nil or done or cfg.keep_type == nil or u.team ~= cfg.team or u.type ~= cfg.keep_type then return end
  done = true
  log("kept_lost", {team = cfg.team, type = u.type, id = u.id, x = u.x, y = u.y, at = time()})
  lose(cfg.team, "a " .. u.type .. " was destroyed")
end
