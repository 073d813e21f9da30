-- expect-error: memory limit | instruction budget exceeded
-- expect-line: any
function on_start() local t = {} while true do pcall(function() t[#t + 1] = ("z"):rep(1000) .. #t end) end end
