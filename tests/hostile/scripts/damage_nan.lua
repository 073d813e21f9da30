-- expect-error: amount must be a finite number
-- expect-line: 4
function on_start()
  damage(units(0)[1].id, 0 / 0)
end
