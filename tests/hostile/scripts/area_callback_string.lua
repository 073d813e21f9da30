-- expect-error: callback must be a function
-- expect-line: 3
function on_start() on_area_entered(5, 5, 3, "boom") end
