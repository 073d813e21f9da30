-- expect-error: reason must be a string
-- expect-line: 3
function on_start() win(0, {}) end
