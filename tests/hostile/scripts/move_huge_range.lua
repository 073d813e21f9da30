-- expect-error: table.move: range longer
-- expect-line: 3
function on_start() table.move({}, 1, 1 << 60, 2) end
