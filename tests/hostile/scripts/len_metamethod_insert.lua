-- expect-error: table longer than
-- expect-line: 3
function on_start() table.insert(setmetatable({}, {__len = function() return 1 << 60 end}), 1, 1) end
