-- expect-error: %p is not allowed
-- expect-line: 3
function on_start() local s = string.format("%p", {}) end
