-- expect-error: __gc metamethods are not allowed
-- expect-line: 3
function on_start() setmetatable({}, {__gc = function() while true do end end}) end
