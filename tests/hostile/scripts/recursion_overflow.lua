-- expect-error: stack overflow | memory limit
-- expect-line: any
local function r(n) return 1 + r(n + 1) end
function on_start() local x = r(1) end
