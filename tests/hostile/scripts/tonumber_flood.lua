-- expect-error: instruction budget exceeded
-- expect-line: 5
function on_start()
  local s = ('1'):rep(1 << 20)
  while true do tonumber(s) end
end
