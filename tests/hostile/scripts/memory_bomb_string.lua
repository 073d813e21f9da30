-- expect-error: memory limit
-- expect-line: any
function on_start() local s = 'x' for i = 1, 40 do s = s .. s end end
