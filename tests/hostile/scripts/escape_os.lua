-- expect-error: global 'os'
-- expect-line: 3
function on_start() os.execute('touch /tmp/genesis_pwned') end
