-- a benign rule the malformed levels refer to
function on_start() end
