-- expect-error: log fields has two keys written '1'
-- expect-line: 3
function on_start() log("keys", {[1] = "number", ["1"] = "string"}) end
