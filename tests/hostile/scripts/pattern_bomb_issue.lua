-- expect-error: pattern too complex
-- expect-line: 3
function on_start() string.find(string.rep("a",1000), "a*a*a*a*a*a*a*b") end
