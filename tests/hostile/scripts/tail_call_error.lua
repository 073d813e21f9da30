-- expect-error: string.rep: result longer
-- expect-line: none
function on_start() return ('x'):rep(1e9) end
