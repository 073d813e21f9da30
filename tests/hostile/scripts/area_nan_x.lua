-- expect-error: x must be a finite number
-- expect-line: 3
function on_start() on_area_entered(0/0, 10, 3, function(u) end) end
