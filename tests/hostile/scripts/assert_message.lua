-- expect-error: custom failure
-- expect-line: 5
function on_start()
  local ok = false
  assert(ok, "custom failure")
end
