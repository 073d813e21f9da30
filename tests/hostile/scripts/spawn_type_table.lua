-- expect-error: unit type must be a string
-- expect-line: 3
function on_start() spawn(1, {}, 8, 8) end
