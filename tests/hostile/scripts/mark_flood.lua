-- expect-error: too many markers
-- expect-line: 3
function on_start() for i = 1, 1000 do mark(4, 4, "m" .. i) end end
