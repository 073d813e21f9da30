-- expect-error: pattern too complex
-- expect-line: 3
function on_start() local r = ("a"):rep(5000):gsub("(a-)(a-)(a-)b", "") end
