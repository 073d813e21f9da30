-- expect-error: unknown spawn point
-- expect-line: 3
function on_start() spawn_point('../../etc/passwd') end
