-- expect-error: instruction budget exceeded
-- expect-line: 3
function on_start() xpcall(function() while true do end end, function() while true do end end) end
