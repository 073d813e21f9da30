-- expect-error: pattern too complex
-- expect-line: 5
function on_start()
  local s = string.rep("a", 5000)
  local r = s:find("a*a*a*a*a*a*a*b")
end
