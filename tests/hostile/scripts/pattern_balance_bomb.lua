-- expect-error: pattern too complex
-- expect-line: 3
function on_start() local r = ("("):rep(60000):find("%b()*%b()*%b()*x") end
