-- expect-error: log fields must hold only
-- expect-line: 3
function on_start() log("leak", {f = function() end}) end
