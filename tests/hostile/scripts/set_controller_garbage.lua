-- expect-error: controller spec must be a table
-- expect-line: 3
function on_start() set_controller(1, 'skynet') end
