-- expect-error: unit id must be a finite number
-- expect-line: 3
function on_start() order(math.huge, "move", 4, 4) end
