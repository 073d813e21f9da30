-- expect-error: global 'load'
-- expect-line: 3
function on_start() load('return 1')() end
