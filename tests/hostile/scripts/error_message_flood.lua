-- expect-error: instruction budget exceeded
-- expect-line: 5
function on_start()
  local big = ("e"):rep(1 << 20)
  while true do pcall(error, big) end
end
