-- expect-error: callback must be a function
-- expect-line: 3
function on_start() at(1, {}) end
