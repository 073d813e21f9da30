-- expect-error: string.rep: result longer
-- expect-line: 3
function on_start() local r = ('ab'):rep(1e8, ',') end
