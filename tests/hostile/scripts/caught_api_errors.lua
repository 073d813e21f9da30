-- expect: clean
function on_start()
  local ok1 = pcall(spawn, 99, 'light_bot', 1, 1)
  local ok2 = pcall(give_resources, 0, -1, 0)
  local ok3 = pcall(every, 1, 'x')
  assert(not ok1 and not ok2 and not ok3)
  log('survived', {})
end
