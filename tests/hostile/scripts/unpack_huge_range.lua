-- expect-error: table.unpack: range longer
-- expect-line: 3
function on_start() local r = table.unpack({}, 1, 1 << 40) end
