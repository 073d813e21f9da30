-- expect-error: instruction budget exceeded
-- expect-line: 6
function on_start()
  local x = 0
  while true do
    x = x + 1
  end
end
