-- expect-error: both the key 1 and the key true
-- expect-line: 3
function on_start() log("keys", {[1] = "number", [true] = "boolean"}) end
