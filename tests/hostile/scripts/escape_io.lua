-- expect-error: global 'io'
-- expect-line: 3
function on_start() io.open('/etc/passwd') end
