-- expect-error: error object is a table value
-- expect-line: 3
function on_start() assert(false, {reason = "x"}) end
