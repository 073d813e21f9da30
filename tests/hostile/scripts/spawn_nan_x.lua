-- expect-error: x must be a finite number
-- expect-line: 3
function on_start() spawn(1, "light_bot", 0/0, 8) end
