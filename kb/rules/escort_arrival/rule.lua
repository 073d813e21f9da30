-- escort_arrival: `team` wins when `need` of its units tagged `tag` (one by default; a whole convoy
-- when need is its size) have entered the circle of `radius` around `to`; with `deadline` it loses if
-- fewer have arrived by then. The destination is marked.
-- Losing the escorted unit is left to a loss rule (protect_objective_loss): this rule only ends the
-- game on arrival or at the deadline.
-- Params: team, tag, to, radius, deadline, need, announce.

-- Helpers from the engine's rule library (engine/rules/rule_lib.lua).
local point = lib.point

local cfg
local finished = false
local arrivals = {}
local arrived_count = 0

local function arrived(u)
  if finished or u.tag ~= cfg.tag or arrivals[u.id] then return end
  arrivals[u.id] = true
  arrived_count = arrived_count + 1
  log("vip_arrived", {id = u.id, type = u.type, x = u.x, y = u.y, at = time(), arrived = arrived_count})
  if arrived_count < cfg.need then return end
  finished = true
  if cfg.need > 1 then
    win(cfg.team, "all " .. cfg.need .. " " .. u.type .. " units reached their destination")
  else
    win(cfg.team, "the " .. u.type .. " reached its destination")
  end
end

function on_start()
  local w, h = map_size()
  local x, y = point(param("to", nil))
  cfg = {
    team = math.floor(tonumber(param("team", 0)) or 0),
    tag = tostring(param("tag", "vip")),
    x = x or w / 2, y = y or h / 2,
    radius = math.max(1, tonumber(param("radius", 4)) or 4),
    need = math.max(1, math.floor(tonumber(param("need", 1)) or 1)),
  }
  local deadline = tonumber(param("deadline", 0)) or 0
  local count = #units(cfg.team, {tag = cfg.tag})
  mark(cfg.x, cfg.y, "destination")
  log("escort", {team = cfg.team, tag = cfg.tag, count = count, x = cfg.x, y = cfg.y, radius = cfg.radius,
                 deadline = deadline, need = cfg.need})
  if param("announce", true) ~= false then
    local by = ""
    if deadline > 0 then by = " within " .. math.floor(deadline) .. " seconds" end
    message("Bring your " .. cfg.tag .. " to the destination at (" .. math.floor(cfg.x) .. ", " .. math.floor(cfg.y)
            .. ")" .. by .. ".", cfg.team)
  end
  on_area_entered(cfg.x, cfg.y, cfg.radius, arrived, cfg.team)
  if deadline > 0 then
    at(deadline, function()
      if finished then return end
      finished = true
      log("escort_deadline", {count = #units(cfg.team, {tag = cfg.tag}), arrived = arrived_count})
      lose(cfg.team, "the " .. cfg.tag .. " did not reach its destination in time")
    end)
  end
end
