-- expect: clean
-- no allocator addresses reach the trace: tables and functions print as their type
function on_start()
  assert(tostring({}) == "table" and tostring(print) == "function")
  assert(string.format("%s", {}) == "table")
  log("printed", {t = tostring({}), f = string.format("%s", on_start)})
end
