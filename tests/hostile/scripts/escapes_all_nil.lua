-- expect: clean
function on_start()
  for _, k in ipairs{'os', 'io', 'load', 'require', 'debug', 'package', 'python', 'dofile'} do
    assert(_ENV[k] == nil and rawget(_G, k) == nil, k)
  end
  assert(string.dump == nil and math.random == nil)
  log('contained', {})
end
