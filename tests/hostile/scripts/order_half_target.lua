-- expect-error: give both x and y
-- expect-line: 3
function on_start() order(units(0)[1].id, "move", 4) end
