"""The Lua rule API bound to the world: callbacks, timers, queries, actions, errors."""
from engine import Simulation, load_level


def run_rule(arena, h, source, teams=None, params=None, until=None, time_limit=60, **kw):
    (arena / "rule.lua").write_text(source)
    teams = teams or [h.team(0, [{"type": "light_bot", "x": 5, "y": 5}]), h.team(1, [{"type": "scout", "x": 28, "y": 28}])]
    lv = load_level(h.level_dict(teams, rules=[{"id": "r", "script": "rule.lua", "params": params or {}}],
                                 switches={"time_limit": time_limit}, **kw), base_dir=arena)
    sim = Simulation(lv, seed=3)
    return sim, sim.run(until=until)


def logs(res, name=None):
    return [e for e in res.trace if e["event"] == "rule_log" and (name is None or e["name"] == name)]


def test_timers_queries_and_log(arena, h):
    src = """
    function on_start()
      local w, h = map_size()
      local x, y = spawn_point("east")
      log("start", {w = w, h = h, x = x, teams = #teams(), p = param("n", 7), q = param("missing", "dflt")})
      every(2, function() log("tick", {t = time(), n = #units(0)}) end)
      at(5, function() log("at5", {t = time()}) end)
    end
    """
    sim, res = run_rule(arena, h, src, until=6.5)
    start = logs(res, "start")[0]["fields"]
    assert start == {"w": 32, "h": 32, "x": 27.5, "teams": 2, "p": 7, "q": "dflt"}
    assert [e["t"] for e in logs(res, "tick")] == [2.0, 4.0, 6.0]
    assert logs(res, "at5")[0]["fields"]["t"] == 5.0


def test_spawn_order_and_unit_callbacks(arena, h):
    src = """
    function on_start()
      local ids = spawn(1, "light_bot", 10, 5, 3, "raid")
      order(ids, "fight", 5, 5)
      log("spawned", {n = #ids, tagged = #units(1, {tag = "raid"})})
    end
    function on_unit_created(u) log("created", {type = u.type, tag = u.tag}) end
    function on_unit_destroyed(u) log("destroyed", {id = u.id, team = u.team}) end
    """
    sim, res = run_rule(arena, h, src, until=20)
    assert logs(res, "spawned")[0]["fields"] == {"n": 3, "tagged": 3}
    assert [e["fields"]["tag"] for e in logs(res, "created")] == ["raid"] * 3
    assert any(e["fields"]["team"] == 0 for e in logs(res, "destroyed"))
    assert sum(1 for e in res.trace if e["event"] == "spawn" and e["source"] == "rule") == 3


def test_area_trigger_fires_once_per_unit(arena, h):
    src = """
    function on_start()
      order(units(0)[1].id, "move", 20, 5)
      on_area_entered(15, 5, 2, function(u) log("entered", {id = u.id}); mark(15, 5, "reached") end, 0)
    end
    """
    sim, res = run_rule(arena, h, src, until=15)
    assert [e["fields"]["id"] for e in logs(res, "entered")] == [0]
    assert sim.snapshot().markers[0].label == "reached"


def test_win_message_resources_and_random(arena, h):
    src = """
    function on_start()
      give_resources(0, 100, 5)
      local r = resources(0)
      message("go", 0)
      log("r", {m = r.metal, e = r.energy, a = random_int(1, 6), b = random()})
      at(3, function() win(0, "done") end)
    end
    """
    sim, res = run_rule(arena, h, src)
    assert res.ended_by == "rule" and res.winners == [0] and res.reason == "r: done" and res.duration == 3.0
    f = logs(res, "r")[0]["fields"]
    assert f["m"] == 100 and f["e"] == 5 and 1 <= f["a"] <= 6 and 0 <= f["b"] < 1
    assert any(e["event"] == "message" and e["text"] == "go" for e in res.trace)
    _, again = run_rule(arena, h, src)
    assert logs(again, "r")[0]["fields"] == f      # seeded


def test_lose_leaves_other_alliance_winning(arena, h):
    _, res = run_rule(arena, h, "function on_start() at(1, function() lose(1, 'gave up') end) end")
    assert res.winners == [0] and res.losers == [1] and res.ended_by == "rule"


def test_set_controller_from_rule(arena, h):
    src = """function on_start() set_controller(0, {type = "ai", behaviour = "waves", target = {x = 25, y = 5}}) end"""
    sim, res = run_rule(arena, h, src, until=3)
    assert sim.world.order[0] == 3 or sim.world.x[0] > 6


def test_runtime_error_ends_run_with_script_and_line(arena, h):
    src = "function on_start()\n  every(1, function()\n    local x = nil\n    return x.field\n  end)\nend\n"
    sim, res = run_rule(arena, h, src)
    assert res.ended_by == "error" and res.duration == 1.0
    assert res.error.startswith("r:4:") and "index a nil value" in res.error
    assert res.trace[-1]["event"] == "end"


def test_hostile_script_is_stopped(arena, h):
    sim, res = run_rule(arena, h, "function on_start()\n  at(2, function()\n    while true do end\n  end)\nend\n")
    assert res.ended_by == "error" and res.error.startswith("r:3:") and "budget" in res.error


def test_bad_api_arguments_are_script_errors(arena, h):
    sim, res = run_rule(arena, h, 'function on_start()\n  spawn(0, "tank9", 3, 3)\nend\n')
    assert res.ended_by == "error" and "unknown unit type 'tank9'" in res.error and res.error.startswith("r:2:")


def test_compile_error_ends_run(arena, h):
    sim, res = run_rule(arena, h, "function on_start(\n")
    assert res.ended_by == "error" and res.error.startswith("r:") and res.duration == 0.0


def test_visible_is_what_a_team_sees_under_fog(arena, h):
    # team 0's light bot (sight 9) walks toward team 1's scout: unseen at the start, seen once near
    src = """
    function on_start()
      local bot, scout = units(0)[1].id, units(1)[1].id
      log("start", {seen = visible(0, scout), own = visible(0, bot)})
      order(bot, "move", 24, 24)
      every(1, function() if visible(0, scout) then log("seen", {t = time()}) end end)
    end
    """
    (arena / "rule.lua").write_text(src)
    teams = [h.team(0, [{"type": "light_bot", "x": 5, "y": 5}]), h.team(1, [{"type": "scout", "x": 28, "y": 28}])]
    lv = load_level(h.level_dict(teams, rules=[{"id": "r", "script": "rule.lua", "params": {}}],
                                 switches={"time_limit": 60, "fog_of_war": True}), base_dir=arena)
    res = Simulation(lv, seed=3).run(until=15)
    assert logs(res, "start")[0]["fields"] == {"seen": False, "own": True}
    assert 4 < logs(res, "seen")[0]["t"] < 15
    # without fog every living unit is visible, and a dead one never
    src_nofog = 'function on_start() log("start", {seen = visible(0, units(1)[1].id), dead = visible(0, 9999)}) end'
    sim, res = run_rule(arena, h, src_nofog, until=1)
    assert logs(res, "start")[0]["fields"] == {"seen": True, "dead": False}


def test_a_spawn_on_blocked_ground_stands_its_units_apart(tmp_path, h):
    # a 9x9 block of cliff: every ring slot of the spawn is blocked and moves to open ground; no two
    # units may land on the same nearest tile
    rows = ["." * 32 if not 10 <= y < 19 else "." * 10 + "#" * 9 + "." * 13 for y in range(32)]
    h.write_map(tmp_path, rows, {"west": (4.5, 16.5), "east": (27.5, 16.5)})
    src = """
    function on_start() spawn(1, "artillery_bot", 14.5, 14.5, 6) end
    """
    sim, _ = run_rule(tmp_path, h, src, until=0.2)
    snap = sim.snapshot()
    spots = [(x, y, s) for x, y, s, t in zip(snap.x, snap.y, snap.size, snap.team) if t == 1 and s > 0]
    spots = [(float(x), float(y), float(s)) for x, y, s in spots]
    assert len([1 for t in snap.team if t == 1]) >= 6
    for i, (x, y, s) in enumerate(spots):
        for x2, y2, s2 in spots[i + 1:]:
            assert ((x - x2) ** 2 + (y - y2) ** 2) ** 0.5 >= 0.5 * (s + s2)


def test_a_spawn_at_the_maps_edge_stands_its_units_apart(arena, h):
    # the ring of a spawn one tile from the bottom edge is clamped onto the map: big units must not overlap there
    src = """
    function on_start() spawn(1, "heavy_tank", 16.5, 31.5, 4) end
    """
    sim, _ = run_rule(arena, h, src, until=0.2)
    snap = sim.snapshot()
    spots = [(float(x), float(y), float(s)) for x, y, s, t in zip(snap.x, snap.y, snap.size, snap.team) if t == 1 and s > 0.8]
    assert len(spots) == 4
    for i, (x, y, s) in enumerate(spots):
        for x2, y2, s2 in spots[i + 1:]:
            assert ((x - x2) ** 2 + (y - y2) ** 2) ** 0.5 >= 0.5 * (s + s2)


def test_random_int_first_draws_differ_between_seeds_0_and_2(arena, h):
    # the second rule of a level once drew the same first random_int on seeds 0 and 2 for almost every range
    # (numpy's first 32-bit draws of those two streams coincide): seed 2 then replayed seed 0's game
    (arena / "first.lua").write_text("function on_start() end")
    teams = [h.team(0, [{"type": "light_bot", "x": 5, "y": 5}]), h.team(1, [{"type": "scout", "x": 28, "y": 28}])]
    same = 0
    ranges = (3, 4, 5, 6, 8, 10, 12, 16)
    for n in ranges:
        (arena / "draw.lua").write_text(f'function on_start() log("draw", {{v = random_int(1, {n})}}) end')
        firsts = []
        for seed in (0, 2):
            lv = load_level(h.level_dict(teams, rules=[{"id": "a", "script": "first.lua"},
                                                       {"id": "b", "script": "draw.lua"}]), base_dir=arena)
            firsts.append(logs(Simulation(lv, seed=seed).run(until=0.1), "draw")[0]["fields"]["v"])
        same += firsts[0] == firsts[1]
    assert same <= len(ranges) / 2



def test_a_timer_due_at_the_time_limit_runs_before_the_run_ends_there(arena, h):
    _, res = run_rule(arena, h, 'function on_start() at(8, function() win(0, "held to the end") end) end', time_limit=8)
    assert res.ended_by == "rule" and res.winners == [0] and res.duration == 8.0
    _, plain = run_rule(arena, h, "function on_start() end", time_limit=8)
    assert plain.ended_by == "time_limit" and plain.winners == []


def test_timers_due_together_run_in_the_order_they_were_set_as_the_api_says(arena, h):
    src = """
    function on_start()
      every(1, function() log("tick", {t = time()}) end)
      at(4, function() log("shrink", {t = time()}) end)
    end
    """
    sim, res = run_rule(arena, h, src, until=4.5)
    at4 = [e["name"] for e in logs(res) if e["fields"]["t"] == 4.0]
    assert at4 == ["shrink", "tick"]


def test_set_controller_takes_the_lua_table_the_api_shows(arena, h):
    src = """
    function on_start()
      set_controller(1, {type='ai', behaviour='defend', center={x=28, y=28}, radius=10})
      log("set", {ok = true})
    end
    """
    sim, res = run_rule(arena, h, src, until=2)
    assert logs(res, "set") and not any(e["event"] == "end" and e.get("ended_by") == "error" for e in res.trace)


def test_the_death_that_meets_a_condition_still_reaches_on_unit_destroyed(arena, h):
    src = """
    function on_start() at(1, function() damage(units(1)[1].id, 1000) end) end
    function on_unit_destroyed(u) log("gone", {team = u.team}) end
    """
    conditions = [{"kind": "destroy_target", "team": 0, "target": {"team": 1}}]
    sim, res = run_rule(arena, h, src, until=5, conditions=conditions)
    assert [e["fields"]["team"] for e in logs(res, "gone")] == [1]
    assert res.ended_by == "condition" and res.winners == [0]
