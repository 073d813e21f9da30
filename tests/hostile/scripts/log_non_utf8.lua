-- expect-error: can't decode
-- expect-line: 3
function on_start() log(string.char(255, 254)) end
