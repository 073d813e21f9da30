-- expect-error: seconds must be in
-- expect-line: 3
function on_start() at(1e308, function() end) end
