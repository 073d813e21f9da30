-- expect-error: callback must be a function
-- expect-line: 3
function on_start() every(1, 42) end
