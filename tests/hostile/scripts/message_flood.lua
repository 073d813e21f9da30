-- expect-error: output limit
-- expect-line: any
function on_start() for i = 1, 1e9 do pcall(message, ("spam"):rep(100)) end end
