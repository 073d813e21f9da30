-- expect-error: instruction budget exceeded
-- expect-line: 3
function on_start() ('abc'):gsub('.', function() while true do end end) end
