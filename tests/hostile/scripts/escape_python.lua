-- expect-error: global 'python'
-- expect-line: 3
function on_start() python.eval('1') end
