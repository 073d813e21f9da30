-- expect-error: pattern longer than 256
-- expect-line: 3
function on_start() local r = ("a"):find(("x"):rep(1000)) end
