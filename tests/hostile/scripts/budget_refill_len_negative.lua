-- expect-error: instruction budget exceeded
-- expect-line: 5
function on_start()
  pcall(table.concat, setmetatable({}, {__len = function() return -1e300 end}))
  for i = 1, 60000000 do end
end
