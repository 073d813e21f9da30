-- expect-error: output limit
-- expect-line: any
function on_start() for i = 1, 1e9 do log("spam", {i = i, pad = ("x"):rep(200)}) end end
