-- expect-error: instruction budget per run
-- expect-line: any
local function again() at(0, again) end
function on_start() at(0, again) end
