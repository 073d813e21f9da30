-- expect-error: instruction budget per run
-- expect-line: 5
function on_start()
  every(1/30, function()
    for i = 1, 600000 do end
  end)
end
