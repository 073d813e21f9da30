-- expect-error: string.rep: result longer
-- expect-line: 3
function on_start() getmetatable('').__index.rep('x', 1e9) end
