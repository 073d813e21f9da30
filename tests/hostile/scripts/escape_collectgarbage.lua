-- expect-error: global 'collectgarbage'
-- expect-line: 3
function on_start() collectgarbage('stop') end
