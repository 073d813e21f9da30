-- protect_objective_loss: `team` loses when its units tagged `tag` are destroyed — the first one
-- (mode "any") or the last one (mode "all"); with `keep` > 0, once fewer than `keep` of them are left
-- ("keep at least 2 of the 4"). Objectives are marked on the map at the start.
-- Params: team, tag, mode, keep, announce.

local cfg
local lost = 0

function on_start()
  cfg = {
    team = math.floor(tonumber(param("team", 0)) or 0),
    tag = tostring(param("tag", "objective")),
    mode = param("mode", "any") == "all" and "all" or "any",
    announce = param("announce", true) ~= false,
    keep = math.max(0, math.floor(tonumber(param("keep", 0)) or 0)),
  }
  local objectives = units(cfg.team, {tag = cfg.tag})
  for i, u in ipairs(objectives) do mark(u.x, u.y, "protect " .. i) end
  log("objectives", {team = cfg.team, tag = cfg.tag, count = #objectives, mode = cfg.mode, keep = cfg.keep})
  if #objectives == 0 then log("objectives_missing", {team = cfg.team, tag = cfg.tag}) end
  if cfg.announce and #objectives > 0 then
    local rule_text = cfg.mode == "any" and "Losing any one of them loses the game." or "Losing all of them loses the game."
    if cfg.keep > 0 then rule_text = "Fewer than " .. cfg.keep .. " of them left loses the game." end
    message("Protect your " .. #objectives .. " " .. cfg.tag .. " unit(s). " .. rule_text, cfg.team)
  end
end

function on_unit_destroyed(u)
  if cfg == nil or u.team ~= cfg.team or u.tag ~= cfg.tag then return end
  lost = lost + 1
  -- the destroyed unit may still be listed while its callback runs, so leave it out explicitly
  local remaining = 0
  for _, other in ipairs(units(cfg.team, {tag = cfg.tag})) do
    if other.id ~= u.id then remaining = remaining + 1 end
  end
  log("objective_lost", {id = u.id, type = u.type, x = u.x, y = u.y, lost = lost, remaining = remaining})
  local fallen
  if cfg.keep > 0 then fallen = remaining < cfg.keep else fallen = cfg.mode == "any" or remaining == 0 end
  if fallen then
    lose(cfg.team, "objective " .. u.type .. " destroyed (" .. lost .. " lost, " .. remaining .. " left)")
  elseif cfg.announce then
    message("An objective was destroyed! " .. remaining .. " left.", cfg.team)
  end
end
