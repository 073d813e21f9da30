-- expect-error: memory limit
-- expect-line: any
function on_start() local t = {} for i = 1, 1e9 do t[i] = {i} end end
