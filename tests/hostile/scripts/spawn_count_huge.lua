-- expect-error: count must be in
-- expect-line: 3
function on_start() spawn(1, "light_bot", 8, 8, 1e6) end
