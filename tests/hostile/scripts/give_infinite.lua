-- expect-error: energy must be a finite number
-- expect-line: 3
function on_start() give_resources(0, 0, math.huge) end
