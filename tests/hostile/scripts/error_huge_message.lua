-- expect-error: xxxxxxxx
-- expect-line: 3
function on_start() error(string.rep("x", 1 << 20)) end
