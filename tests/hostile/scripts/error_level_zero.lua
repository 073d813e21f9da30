-- expect-error: no position
-- expect-line: 5
function on_start()
  local y = 2
  error("no position", 0)
end
