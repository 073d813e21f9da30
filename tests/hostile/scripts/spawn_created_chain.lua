-- expect-error: spawn limit reached
-- expect-line: 3
function on_unit_created(u) spawn(1, "light_bot", 8, 8, 20) end
function on_start() spawn(1, "light_bot", 8, 8) end
