-- expect-error: metal must be in
-- expect-line: 3
function on_start() give_resources(0, -200, 0) end
