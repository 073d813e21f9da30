-- expect-error: instruction budget exceeded
-- expect-line: 3
function on_start() while true do pcall(function() while true do end end) end end
