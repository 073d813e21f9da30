-- expect-error: instruction budget exceeded
-- expect-line: 5
function on_start()
  pcall(table.unpack, {}, -1, math.maxinteger)
  for i = 1, 60000000 do end
end
