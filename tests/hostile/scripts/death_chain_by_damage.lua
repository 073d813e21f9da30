-- expect: clean
-- every death (also one the rule caused) damages every unit left, hazards included: the chain ends
function on_start()
  spawn(ENVIRONMENT, "light_turret", 8, 8, 30)
  damage_area(8, 8, 100, 90)
end
function on_unit_destroyed(u)
  damage_area(8, 8, 100, 90)
  set_fire({u.id}, false)
end
