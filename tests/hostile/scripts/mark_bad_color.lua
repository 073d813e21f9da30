-- expect-error: color must look like
-- expect-line: 3
function on_start() mark(4, 4, "x", "javascript:alert(1)") end
