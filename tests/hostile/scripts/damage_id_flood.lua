-- expect-error: at most 2000 unit ids
-- expect-line: 6
function on_start()
  local ids = {}
  for i = 1, 5000 do ids[i] = 0 end
  heal(ids, 1)
end
