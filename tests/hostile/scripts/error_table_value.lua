-- expect-error: error object is a table value
-- expect-line: 5
function on_start()
  local x = 1
  error({code = 1})
end
