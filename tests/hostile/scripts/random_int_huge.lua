-- expect-error: must be in
-- expect-line: 3
function on_start() random_int(0, 1e300) end
