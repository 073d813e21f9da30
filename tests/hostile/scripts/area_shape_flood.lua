-- expect-error: too many areas
-- expect-line: 4
function on_start()
  for i = 1, 1000 do area_rect(1, 1, 2 + i % 5, 3, "zone") end
end
