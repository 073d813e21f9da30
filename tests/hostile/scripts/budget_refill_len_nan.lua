-- expect-error: instruction budget exceeded
-- expect-line: 5
function on_start()
  pcall(table.concat, setmetatable({}, {__len = function() return 0/0 end}))
  for i = 1, 60000000 do end
end
