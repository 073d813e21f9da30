-- expect-error: instruction budget exceeded
-- expect-line: 5
function on_start()
  pcall(table.move, {}, -1, math.maxinteger, 1)
  for i = 1, 60000000 do end
end
