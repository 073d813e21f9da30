-- expect: clean
function on_start()
  local t = {}
  for i = 1, 50 do t['k' .. i] = i end
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  log('order', {first = keys[1], last = keys[#keys]})
end
