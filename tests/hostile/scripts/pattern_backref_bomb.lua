-- expect-error: pattern too complex
-- expect-line: 3
function on_start() local r = ("a"):rep(100000):match("(a*)%1%1b") end
