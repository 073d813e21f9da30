-- expect-error: spawn limit reached
-- expect-line: 6
function on_start()
  local n = 0
  while true do
    spawn(1, "light_bot", 8, 8, 200)
    n = n + 200
  end
end
