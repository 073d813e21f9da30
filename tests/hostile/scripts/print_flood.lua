-- expect-error: output limit
-- expect-line: any
function on_start() while true do print(("y"):rep(4000)) end end
