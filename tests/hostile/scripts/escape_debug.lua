-- expect-error: global 'debug'
-- expect-line: 3
function on_start() debug.sethook() end
