-- expect-error: field 'dump'
-- expect-line: 3
function on_start() string.dump(on_start) end
