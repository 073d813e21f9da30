-- expect-error: has no fixed order
-- expect-line: 5
function on_start()
  local set = {[{}] = 1, [{}] = 2}
  for k in pairs(set) do log("k", {}) end
end
