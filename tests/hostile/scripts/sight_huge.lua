-- expect-error: radius must be in [0, 40]
-- expect-line: 4
function on_start()
  set_sight(units(0)[1].id, 1e308)
end
