-- survive_timer_win: `team` wins at `time` seconds; countdown messages `warnings` seconds before.
-- Params: team, time, warnings, reason.

function on_start()
  local team = math.floor(tonumber(param("team", 0)) or 0)
  local t_end = math.max(1, tonumber(param("time", 300)) or 300)
  local warnings = param("warnings", {60, 30, 10})
  local reason = tostring(param("reason", "survived until the end"))
  if type(warnings) ~= "table" then warnings = {warnings} end
  for _, w in ipairs(warnings) do
    local before = tonumber(w)
    if before and before > 0 and before < t_end then
      at(t_end - before, function()
        log("countdown", {remaining = before, at = time()})
        message("Hold on: " .. math.floor(before) .. " seconds left!", team)
      end)
    end
  end
  at(t_end, function()
    log("survived", {team = team, at = time()})
    win(team, reason)
  end)
  message("Survive for " .. math.floor(t_end) .. " seconds.", team)
  log("timer_started", {team = team, ends_at = t_end})
end
