-- expect-error: global 'require'
-- expect-line: 3
function on_start() require('os') end
