-- expect-error: expected
-- expect-line: 7
function on_start()
  local x = 1
  if x then
end
