-- expect-error: team must be in
-- expect-line: 3
function on_start() spawn(99, "light_bot", 8, 8) end
