-- expect-error: param name must be a string
-- expect-line: 3
function on_start() param({}) end
