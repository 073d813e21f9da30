-- expect-error: string.find: pattern too complex
-- expect-line: 5
function on_start()
  local s = string.rep("1e", 500000)
  string.find(s, 1e30)
end
