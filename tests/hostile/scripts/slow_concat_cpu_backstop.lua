-- expect-error: CPU-time limit
-- expect-line: 5
function on_start()
  local s = ('x'):rep(1 << 20) .. ('y'):rep(1 << 20)
  while true do local t = s .. s end
end
