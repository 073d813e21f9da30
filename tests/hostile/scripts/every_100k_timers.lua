-- expect-error: too many pending timers
-- expect-line: 5
function on_start()
  for i = 1, 100000 do
    every(1, function() end)
  end
end
