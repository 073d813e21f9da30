-- expect-error: \x1b[31m
-- expect-line: 3
function on_start() error("\27[31mred\0nul\nnewline") end
