-- locate_targets: `team` wins once it has seen every unit of `target_team` tagged `target_tag`
-- (each counts as found the first time the team sees it); with `deadline` it loses if some are
-- still unfound by then. The targets are counted at the first check, so rules that place them at
-- the start (a seeded layout) come first. A target destroyed unfound leaves the count.
-- Params: team, target_team, target_tag, deadline, check_every, announce.

local cfg
local found, gone = {}, {}
local n_found, total = 0, nil
local finished = false

local function check()
  if finished then return end
  local targets = units(cfg.target_team, {tag = cfg.tag})
  if total == nil then
    total = #targets
    log("targets", {team = cfg.team, tag = cfg.tag, count = total, deadline = cfg.deadline})
  end
  for _, u in ipairs(targets) do
    if not found[u.id] and visible(cfg.team, u.id) then
      found[u.id] = true
      n_found = n_found + 1
      log("target_found", {id = u.id, type = u.type, x = u.x, y = u.y, at = time(), found = n_found, of = total})
      mark(u.x, u.y, "found " .. n_found)
      if cfg.announce then message("Target found: " .. n_found .. " of " .. total .. ".", cfg.team) end
    end
  end
  if total > 0 and n_found >= total then
    finished = true
    win(cfg.team, "found all " .. total .. " targets")
  end
end

function on_start()
  cfg = {
    team = math.floor(tonumber(param("team", 0)) or 0),
    target_team = math.floor(tonumber(param("target_team", 1)) or 1),
    tag = tostring(param("target_tag", "target")),
    deadline = tonumber(param("deadline", 0)) or 0,
    announce = param("announce", true) ~= false,
  }
  every(math.max(0.25, tonumber(param("check_every", 0.5)) or 0.5), check)
  if cfg.deadline > 0 then
    at(cfg.deadline, function()
      if finished then return end
      finished = true
      log("locate_deadline", {found = n_found, of = total or 0})
      lose(cfg.team, "did not find every target in time (" .. n_found .. " of " .. (total or 0) .. ")")
    end)
  end
end

function on_unit_destroyed(u)
  if cfg == nil or finished or total == nil or u.team ~= cfg.target_team or u.tag ~= cfg.tag then return end
  if found[u.id] or gone[u.id] then return end
  gone[u.id] = true
  total = total - 1
  log("target_gone", {id = u.id, of = total})
end
