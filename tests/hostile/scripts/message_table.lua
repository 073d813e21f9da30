-- expect-error: message must be a string
-- expect-line: 3
function on_start() message({evil = true}) end
