-- expect-error: instruction budget exceeded
-- expect-line: 7
function on_start()
  every(1/30, function()
    local t = {}
    for i = 1, 600000 do t[i] = -i end
    table.sort(t)
  end)
end
