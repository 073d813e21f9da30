-- expect-error: unknown unit type
-- expect-line: 3
function on_start() spawn(1, "tank9000", 8, 8) end
