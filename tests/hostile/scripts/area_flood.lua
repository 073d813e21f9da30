-- expect-error: too many area triggers
-- expect-line: 5
function on_start()
  for i = 1, 1000 do
    on_area_entered(5, 5, 1, function(u) end)
  end
end
