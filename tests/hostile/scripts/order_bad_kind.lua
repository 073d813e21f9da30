-- expect-error: unknown order kind
-- expect-line: 3
function on_start() order(units(0)[1].id, "selfdestruct", 4, 4) end
