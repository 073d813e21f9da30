-- expect-error: instruction budget exceeded
-- expect-line: 4
function on_start()
  local co = coroutine.create(function() while true do end end)
  coroutine.resume(co)
  log("after_abort", {})
end
