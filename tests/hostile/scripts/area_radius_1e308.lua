-- expect-error: radius must be in
-- expect-line: 3
function on_start() on_area_entered(10, 10, 1e308, function(u) end) end
