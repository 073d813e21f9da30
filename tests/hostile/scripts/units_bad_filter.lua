-- expect-error: unknown filter keys
-- expect-line: 3
function on_start() units(0, {colour = 'red'}) end
