-- expect-error: string slice too long
-- expect-line: 5
function on_start()
  local s = ('x'):rep(1 << 20)
  while true do s:byte(1, -1) end
end
