-- expect-error: bytes of text
-- expect-line: any
local big, t = string.rep("x", 1000000), {}
for i = 1, 4000 do t[i] = big end
function on_start() return t end
