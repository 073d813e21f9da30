-- expect-error: invalid conversion
-- expect-line: 3
function on_start() local r = string.format('%99999d', 1) end
