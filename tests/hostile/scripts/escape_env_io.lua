-- expect-error: attempt to index a nil value
-- expect-line: 3
function on_start() rawget(_ENV, 'io').open('/etc/passwd') end
