-- expect-error: seconds must be in
-- expect-line: 3
function on_start() every(0, function() end) end
