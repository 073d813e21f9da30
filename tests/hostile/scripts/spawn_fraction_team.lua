-- expect-error: team must be a whole number
-- expect-line: 3
function on_start() spawn(0.5, "light_bot", 8, 8) end
