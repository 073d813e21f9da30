-- expect-error: pattern too complex
-- expect-line: 5
function on_start()
  local s = ("a"):rep(4000)
  for x in s:gmatch("a*a*a*b") do log("m", {x = x}) end
end
