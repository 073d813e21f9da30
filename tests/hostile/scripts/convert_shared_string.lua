-- expect-error: log: arguments hold more than
-- expect-line: 6
function on_start()
  local big, t = string.rep("x", 1000000), {}
  for i = 1, 4000 do t[i] = big end
  log("copies", {fields = t})
end
