"""The rule API's world effects: damage and heal, taking and moving resources, sight and permission
to fire, area shapes, and the environment side."""
import math

import numpy as np
import pytest

from engine import Simulation, load_level
from engine.render import render_frame
from engine.replay import Replay, ReplayCursor, ReplayRecorder
from engine.snapshot import ENVIRONMENT


def make_sim(arena, h, source, teams=None, time_limit=60, conditions=None, switches=None):
    (arena / "rule.lua").write_text(source)
    teams = teams or [h.team(0, [{"type": "light_bot", "x": 5, "y": 5}, {"type": "light_bot", "x": 6, "y": 5}]),
                      h.team(1, [{"type": "scout", "x": 28, "y": 28}])]
    lv = load_level(h.level_dict(teams, rules=[{"id": "r", "script": "rule.lua"}], conditions=conditions,
                                 switches={"time_limit": time_limit, **(switches or {})}), base_dir=arena)
    return Simulation(lv, seed=3)


def run_rule(arena, h, source, until=None, **kw):
    sim = make_sim(arena, h, source, **kw)
    return sim, sim.run(until=until)


def advance(sim, until):
    while sim.time < until - 1e-9 and not sim.done:
        sim.step()


def events(res, kind, name=None):
    return [e for e in res.trace if e["event"] == kind and (name is None or e.get("name") == name)]


def test_damage_clamps_kills_through_the_death_path_and_heal_never_exceeds_max_hp(arena, h):
    src = """
    function on_start()
      local a, b = units(0)[1].id, units(0)[2].id
      log("hit", damage(a, 100))
      log("heal", heal({a, b}, 1000))
      log("hp", {a = unit(a).hp, b = unit(b).hp})
      log("kill", damage({a, b}, 100000))
      log("after", {a = unit(a) == nil, n = #units(0)})
    end
    function on_unit_destroyed(u) log("destroyed", {id = u.id}) end
    """
    sim, res = run_rule(arena, h, src, until=1)
    hit = events(res, "rule_log", "hit")[0]["fields"]
    assert hit == {"units": 1, "dealt": 100, "killed": {}}     # an empty Lua table reads back as {}
    assert events(res, "rule_log", "heal")[0]["fields"] == {"units": 2, "healed": 100}
    assert events(res, "rule_log", "hp")[0]["fields"] == {"a": 160, "b": 160}
    kill = events(res, "rule_log", "kill")[0]["fields"]
    assert kill["dealt"] == 320 and kill["killed"] == [0, 1]          # dealt is clamped at what the units had
    assert events(res, "rule_log", "after")[0]["fields"] == {"a": True, "n": 0}
    deaths = events(res, "death")
    assert [(d["id"], d["killer_team"], d["rule"]) for d in deaths] == [(0, None, "r"), (1, None, "r")]
    assert [e["fields"]["id"] for e in events(res, "rule_log", "destroyed")] == [0, 1]
    assert res.team_stats[0]["units_lost"] == 2
    assert [e["event"] for e in res.trace if e["event"].startswith("rule_") and e["event"] != "rule_log"] == \
        ["rule_damage", "rule_heal", "rule_damage"]


def test_a_side_killed_by_rule_damage_is_eliminated(arena, h):
    src = "function on_start() at(2, function() damage_area(5, 5, 4, 500, 0) end) end"
    sim, res = run_rule(arena, h, src)
    assert res.losers == [0] and res.winners == [1] and res.duration < 3
    assert events(res, "lose")[0]["team"] == 0


def test_area_damage_and_heal_filter_by_team_and_skip_empty_calls(arena, h):
    src = """
    function on_start()
      log("none", damage_area(16, 16, 2, 10))
      log("t1", damage_area(16, 16, 40, 10, 1))
      log("all", heal_area(5, 5, 3, 5))
    end
    """
    sim, res = run_rule(arena, h, src, until=0.5)
    assert events(res, "rule_log", "none")[0]["fields"] == {"units": 0, "dealt": 0, "killed": {}}
    assert events(res, "rule_log", "t1")[0]["fields"]["units"] == 1
    assert len(events(res, "rule_damage")) == 1 and events(res, "rule_damage")[0]["ids"] == [2]
    assert events(res, "rule_log", "all")[0]["fields"] == {"units": 2, "healed": 0}


def test_take_and_transfer_resources_are_clamped_and_traced(arena, h):
    teams = [h.team(0, [{"type": "light_bot", "x": 5, "y": 5}], resources={"metal": 100, "energy": 50}),
             h.team(1, [{"type": "scout", "x": 28, "y": 28}], resources={"metal": 10, "energy": 0})]
    src = """
    function on_start()
      log("take", take_resources(0, 30, 80))
      log("move", transfer_resources(0, 1, 500, 0))
      log("r", {a = resources(0), b = resources(1)})
    end
    """
    sim, res = run_rule(arena, h, src, teams=teams, until=0.5, switches={"production": False})
    assert events(res, "rule_log", "take")[0]["fields"] == {"metal": 30, "energy": 50}
    assert events(res, "rule_log", "move")[0]["fields"] == {"metal": 70, "energy": 0}
    r = events(res, "rule_log", "r")[0]["fields"]
    assert r["a"] == {"metal": 0, "energy": 0} and r["b"]["metal"] == 80
    taken, moved = events(res, "resources_taken")[0], events(res, "resources_transferred")[0]
    assert (taken["team"], taken["metal"], taken["energy"]) == (0, 30, 50)
    assert (moved["from"], moved["to"], moved["metal"]) == (0, 1, 70)


def test_a_transfer_is_not_capped_by_the_receiver_s_storage_and_an_empty_one_is_still_traced(arena, h):
    # team 1 has no storage at all (a scout): 5000 metal still arrives; a second transfer finds nothing left
    teams = [h.team(0, [{"type": "light_bot", "x": 5, "y": 5}], resources={"metal": 5000, "energy": 0}),
             h.team(1, [{"type": "scout", "x": 28, "y": 28}], resources={"metal": 0, "energy": 0})]
    src = """
    function on_start()
      transfer_resources(0, 1, 5000, 0)
      log("empty", transfer_resources(0, 1, 10, 0))
      log("b", resources(1))
    end
    """
    sim, res = run_rule(arena, h, src, teams=teams, until=0.5, switches={"production": False})
    assert events(res, "rule_log", "b")[0]["fields"]["metal"] == 5000
    assert events(res, "rule_log", "empty")[0]["fields"] == {"metal": 0, "energy": 0}
    assert [e["metal"] for e in events(res, "resources_transferred")] == [5000, 0]


def test_a_unit_that_may_not_fire_never_attacks_until_allowed_again(arena, h):
    teams = [h.team(0, [{"type": "light_bot", "x": 10, "y": 10}]), h.team(1, [{"type": "light_bot", "x": 13, "y": 10}])]
    src = """
    function on_start()
      set_fire(units(0)[1].id, false)
      at(5, function() set_fire(units(0)[1].id, true) end)
    end
    """
    sim = make_sim(arena, h, src, teams=teams)
    advance(sim, 4.9)
    assert sim.world.hp[1] == 160 and sim.world.hp[0] < 160        # only team 1 fired
    advance(sim, 6.5)
    assert sim.world.hp[1] < 160


def test_set_sight_changes_what_the_team_sees_under_fog(arena, h):
    teams = [h.team(0, [{"type": "light_bot", "x": 5, "y": 5}]), h.team(1, [{"type": "wall", "x": 5, "y": 25}])]
    src = "function on_start() at(1, function() set_sight(units(0)[1].id, 30) end) end"
    sim = make_sim(arena, h, src, teams=teams, switches={"fog_of_war": True})
    advance(sim, 0.5)
    assert not sim.vision.sees(0, np.array([1]))[0]
    advance(sim, 1.5)
    assert sim.vision.sees(0, np.array([1]))[0] and sim.world.sight[0] == 30


def test_a_unit_table_gives_the_sight_radius_now_so_a_rule_can_scale_it(arena, h):
    src = """
    function on_start()
      local u = units(0)[1]
      log("before", {sight = u.sight})
      set_sight(u.id, u.sight / 2)
      at(1, function() log("after", {sight = unit(u.id).sight, listed = units(0)[1].sight}) end)
    end
    """
    sim, res = run_rule(arena, h, src, until=2)
    before = events(res, "rule_log", "before")[0]["fields"]["sight"]
    assert before == float(sim.world.types.sight[sim.world.type[0]]) > 0
    assert events(res, "rule_log", "after")[0]["fields"] == {"sight": before / 2, "listed": before / 2}


def test_a_destroyed_units_table_names_the_team_that_shot_it_and_none_for_a_rules_damage(arena, h):
    src = """
    function on_start() at(1, function() damage(units(1)[1].id, 100000) end) end
    function on_unit_destroyed(u) log("dead", {team = u.team, by = u.killer_team or -1}) end
    """
    teams = [h.team(0, [{"type": "light_tank", "x": 5, "y": 5, "count": 3}]),
             h.team(1, [{"type": "scout", "x": 30, "y": 30}, {"type": "light_bot", "x": 8, "y": 5}])]
    sim, res = run_rule(arena, h, src, teams=teams, until=20)
    by = sorted((e["fields"]["team"], e["fields"]["by"]) for e in events(res, "rule_log", "dead"))
    assert by == [(1, -1), (1, 0)]         # the scout to the rule's damage, the light bot to team 0's tanks


def test_areas_are_created_moved_resized_queried_removed_and_drawn(arena, h):
    src = """
    function on_start()
      zone = area_circle(5, 5, 3, "safe", "#00ff00")
      box = area_rect(20, 20, 30, 30, "box")
      log("q", {inside = in_area(zone, units(0)[1].id), n = #units_in_area(zone), box = #units_in_area(box, 1),
                a = area(box)})
      at(2, function() resize_area(zone, 1); move_area(zone, 10, 10) end)
      at(4, function() remove_area(box) end)
    end
    """
    (arena / "rule.lua").write_text(src)
    lv = load_level(h.level_dict([h.team(0, [{"type": "light_bot", "x": 5, "y": 5}]),
                                  h.team(1, [{"type": "scout", "x": 28, "y": 28}])],
                                 rules=[{"id": "r", "script": "rule.lua"}]), base_dir=arena)
    sim = Simulation(lv, seed=0)
    rec = ReplayRecorder(sim, every=1.0)
    while sim.time < 5:
        rec.observe(sim)
        sim.step()
    q = [e for e in sim.trace.events if e.get("name") == "q"][0]["fields"]
    assert q["inside"] is True and q["n"] == 1 and q["box"] == 1
    assert q["a"] == {"id": 2, "shape": "rect", "x": 25, "y": 25, "width": 10, "height": 10, "label": "box",
                      "color": "#ffd700"}
    assert [(s.id, s.x, s.half_w) for s in sim.snapshot().shapes] == [(1, 10, 1)]
    replay = Replay.model_validate_json(rec.finish(sim).model_dump_json())    # as the report reads it back
    cursor = ReplayCursor(replay)
    early, late = cursor.snapshot(cursor.index_at(1.0)), cursor.snapshot(cursor.index_at(4.5))
    assert [(s.id, s.x, s.half_w) for s in early.shapes] == [(1, 5, 3), (2, 25, 5)]
    assert [(s.id, s.x, s.half_w) for s in late.shapes] == [(1, 10, 1)]
    img, _ = render_frame(early, width=256)
    assert img.size[0] == 256


def test_the_environment_fights_every_side_and_never_wins_loses_or_keeps_a_game_going(arena, h):
    src = """
    function on_start()
      local ids = spawn(ENVIRONMENT, "light_turret", 16, 16, 1, "hazard")
      log("env", {team = unit(ids[1]).team, n = #units(ENVIRONMENT), teams = teams()})
    end
    """
    teams = [h.team(0, [{"type": "light_bot", "x": 14, "y": 16}]), h.team(1, [{"type": "scout", "x": 28, "y": 28}])]
    sim, res = run_rule(arena, h, src, teams=teams, conditions=[{"kind": "last_survivor"}])
    f = events(res, "rule_log", "env")[0]["fields"]
    assert f == {"team": ENVIRONMENT, "n": 1, "teams": [0, 1]}
    # the turret killed team 0's bot: team 1 is the last side left although the hazard still stands
    assert res.winners == [1] and res.losers == [0] and res.ended_by == "condition"
    assert sim.world.alive[2] and ENVIRONMENT not in res.team_stats
    assert sim.snapshot().team_colors[ENVIRONMENT]


@pytest.mark.parametrize("call, message", [
    ("damage(0, 0/0)", "amount must be a finite number"),
    ("damage(0, -5)", "amount must be in [0"),
    ("damage({}, 5)", "at most"),          # replaced below by a real oversized list
    ("damage(99999, 5)", "no unit has id 99999"),
    ("damage('0', 5)", "unit id must be a finite number"),
    ("heal(0, math.huge)", "amount must be a finite number"),
    ("damage_area(5, 5, 1e9, 5)", "radius must be in"),
    ("damage_area(5, 5, 3, 5, 9)", "unknown team 9"),
    ("take_resources(ENVIRONMENT, 1, 1)", "unknown team 16"),
    ("transfer_resources(0, 0, 1, 1)", "same team"),
    ("transfer_resources(0, 1, 1e12, 0)", "metal must be in"),
    ("set_sight(0, 1000)", "radius must be in [0, 40]"),
    ("set_fire(0, 'no')", "allowed must be true or false"),
    ("area_circle(5, 5, 2, 'x', 'red')", "color must look like #rrggbb"),
    ("resize_area(area_circle(5, 5, 2), 3, 4)", "is a circle"),
    ("move_area(77, 1, 1)", "area 77 does not exist"),
    ("in_area(true, 0)", "area id must be a finite number"),
    ("set_fire(-1, false)", "unit id must be in [0"),
    ("area_circle(0/0, 1, 1)", "x must be a finite number"),
    ("units_in_area(area_circle(5, 5, 2), 9)", "unknown team 9"),
    ("remove_area(area_circle(5, 5, 2)); area(1)", "area 1 was removed"),
    ("area_rect(1, 1, 2, 2, string.rep('x', 600))", "label longer than 500"),
    ("heal({0, {1}}, 5)", "unit id must be a finite number, got a table"),
    ("set_controller(ENVIRONMENT, {type = 'ai'})", "unknown team 16"),
])
def test_hostile_arguments_get_clear_errors(arena, h, call, message):
    if call.startswith("damage({}"):
        call = "local t = {} for i = 1, 2001 do t[i] = 0 end damage(t, 5)"
    src = f"function on_start() local ok, err = pcall(function() {call} end) log('err', {{e = tostring(err)}}) end"
    _, res = run_rule(arena, h, src, until=0.2)
    err = events(res, "rule_log", "err")[0]["fields"]["e"]
    assert message in err, err


def test_area_count_is_bounded_and_removal_frees_a_slot(arena, h):
    src = """
    function on_start()
      for i = 1, 32 do area_circle(i, i, 1) end
      local ok, err = pcall(area_circle, 1, 1, 1)
      remove_area(1)
      log("r", {ok = ok, err = err, again = area_circle(1, 1, 1)})
    end
    """
    _, res = run_rule(arena, h, src, until=0.2)
    f = events(res, "rule_log", "r")[0]["fields"]
    assert f["ok"] is False and "too many areas (max 32" in f["err"] and f["again"] == 33


def test_damage_is_metered_per_unit_converted(arena, h):
    src = """
    function on_start()
      local ids = spawn(1, "wall", 16, 16, 200)
      for k = 1, 20000 do damage(ids, 0) end
    end
    """
    _, res = run_rule(arena, h, src, until=0.2)
    assert res.ended_by == "error" and "instruction budget" in res.error
    assert math.isfinite(res.duration)


def test_a_side_with_nothing_left_is_out_unless_rules_may_bring_it_back(arena, h):
    ai = {"type": "ai", "behaviour": "idle"}
    teams = [h.team(0, [{"type": "assault_bot", "x": 10, "y": 10}]), h.team(1, [{"type": "scout", "x": 12, "y": 10}], ai)]
    lv = load_level(h.level_dict(teams), base_dir=arena)
    res = Simulation(lv, seed=0).run()
    assert (res.winners, res.losers, res.ended_by) == ([0], [1], "condition") and "nothing left" in res.reason
    # a rule sends the AI side a second wave later: its empty spell does not end the game
    src = 'function on_start() at(20, function() spawn(1, "scout", 30, 30) end) end'
    sim, res = run_rule(arena, h, src, teams=teams, until=25)
    assert res.ended_by == "until" and not events(res, "lose") and len(sim.world.select(team=1)) == 1


def test_rule_damage_stays_out_of_the_teams_damage_statistics(arena, h):
    sim, res = run_rule(arena, h, "function on_start() damage(units(0)[1].id, 50) end", until=1)
    assert res.team_stats[0]["damage_received"] == 0 and sim.world.hp[0] == 110


def test_a_cloaked_unit_is_neither_seen_nor_targeted_until_a_detector_comes_near(arena, h):
    teams = [h.team(0, [{"type": "light_bot", "x": 10, "y": 10}, {"type": "scout", "x": 10, "y": 28}]),
             h.team(1, [{"type": "light_bot", "x": 13, "y": 10}])]
    src = """
    function on_start()
      set_cloak(units(1)[1].id, true)
      set_fire(units(1)[1].id, false)
      set_detector(units(0, {type='scout'})[1].id, 6)
      every(1, function()
        log('seen', {value = visible(0, units(1)[1].id)})
      end)
      at(4, function() order(units(0, {type='scout'})[1].id, 'move', 11, 12) end)
    end
    """
    sim = make_sim(arena, h, src, teams=teams)
    advance(sim, 3.5)
    enemy = 2
    assert sim.world.hp[enemy] == 160                              # 3 tiles away, in range, never shot
    assert enemy not in sim.visible_units(0).tolist() and enemy in sim.visible_units(1).tolist()
    frame_hidden = sim.snapshot().hidden[0]
    assert frame_hidden[sim.snapshot().ids.tolist().index(enemy)]
    advance(sim, 12)                                               # the detecting scout arrives
    assert sim.world.hp[enemy] < 160 and enemy in sim.visible_units(0).tolist()
    seen = [e["fields"]["value"] for e in sim.trace.events if e["event"] == "rule_log"]
    assert seen[0] is False and seen[-1] is True


def test_set_team_moves_units_to_another_side_with_their_hp_and_they_fight_for_it(arena, h):
    teams = [h.team(0, [{"type": "light_bot", "x": 10, "y": 10}]),
             h.team(1, [{"type": "light_bot", "x": 20, "y": 10, "tag": "guard"},
                        {"type": "light_bot", "x": 26, "y": 26}])]
    src = """
    function on_start()
      damage(units({tag='guard'})[1].id, 60)
      at(2, function() log('moved', {n = set_team(units({tag='guard'})[1].id, 0)}) end)
    end
    """
    sim = make_sim(arena, h, src, teams=teams, time_limit=120)
    advance(sim, 2.5)
    guard = 1
    assert int(sim.world.team[guard]) == 0 and sim.world.hp[guard] == 100 and sim.world.tags[guard] == "guard"
    moved = [e for e in sim.trace.events if e["event"] == "rule_team"]
    assert moved and moved[0]["from"] == [1] and moved[0]["team"] == 0
    assert [e["fields"]["n"] for e in sim.trace.events if e["event"] == "rule_log"] == [1]
    sim.issue(0, {"kind": "fight", "units": [0, guard], "x": 26, "y": 26})
    res = sim.run()
    assert res.winners == [0]                                      # the defector helped kill its old side
    # the side it left is one of the event's `from` list: an expectation filtering on it matches
    from engine.expect import check
    assert check({"event": "rule_team", "where": {"team": 0, "from": 1}, "min": 1, "max": 1}, res).passed
    assert not check({"event": "rule_team", "where": {"from": 0}, "min": 1}, res).passed


def test_damage_and_heal_events_name_the_sides_they_touched(arena, h):
    teams = [h.team(0, [{"type": "light_bot", "x": 10, "y": 10}]), h.team(1, [{"type": "light_bot", "x": 26, "y": 26}])]
    src = """
    function on_start()
      at(1, function() damage(units(1)[1].id, 30) end)
      at(2, function() heal(units(1)[1].id, 10) end)
    end
    """
    sim = make_sim(arena, h, src, teams=teams, time_limit=5)
    res = sim.run()
    from engine.expect import check
    for kind in ("rule_damage", "rule_heal"):
        assert check({"event": kind, "where": {"teams": 1}, "min": 1, "max": 1}, res).passed
        assert not check({"event": kind, "where": {"teams": 0}, "min": 1}, res).passed


def test_rule_spawns_are_captioned_by_who_arrives_where_never_as_an_attack(arena, h):
    src = """
    function on_start()
      at(5, function()
        spawn(1, 'light_bot', 28, 4, 2)
        spawn(0, 'light_bot', 4, 28, 2)
        spawn(ENVIRONMENT, 'scout', 16, 16, 1)
      end)
    end
    """
    sim = make_sim(arena, h, src, time_limit=20)
    rec = ReplayRecorder(sim)
    while not sim.done:
        rec.observe(sim)
        sim.step()
    labels = [e.label for e in rec.finish(sim).key_events() if e.kind == "wave"]
    assert sorted(labels) == ["T0 arrival 1: 2 units in the south-west", "T1 arrival 1: 2 units in the north-east",
                              "environment arrival 1: 1 units in the centre"]


def test_spawn_calls_keep_clear_of_units_another_call_left_at_the_point(arena, h):
    # a group of 4 and one of 3, three tiles apart: their rings met on one spot
    src = """
    function on_start()
      spawn(1, 'light_bot', 12.5, 20.5, 4)
      spawn(1, 'light_bot', 15.5, 20.5, 3)
      spawn(1, 'light_bot', 15.5, 20.5, 2)
    end
    """
    sim = make_sim(arena, h, src)
    w = sim.world
    ids = w.select(team=1)
    xy = np.stack([w.x[ids], w.y[ids]], axis=1)
    gaps = [np.hypot(*(xy[i] - xy[j])) for i in range(len(ids)) for j in range(i + 1, len(ids))]
    assert len(ids) == 10 and min(gaps) >= w.size[ids].max() - 1e-9


def test_passable_tells_where_a_ground_unit_can_stand(arena, h):
    rows = h.open_rows()
    rows[10] = rows[10][:5] + "~" + rows[10][6:]          # water at (5, 10)
    h.write_map(arena, rows, {"west": (4.5, 16.5), "east": (27.5, 16.5)})
    src = """
    function on_start()
      log('p', {water = passable(5.5, 10.5), open = passable(6.5, 10.5), off = passable(40, 3)})
    end
    """
    sim, res = run_rule(arena, h, src, until=1)
    assert events(res, "rule_log", "p")[0]["fields"] == {"water": False, "open": True, "off": False}


def test_a_ranking_by_units_alive_counts_the_living(arena, h):
    teams = [h.team(0, [{"type": "light_bot", "x": 5, "y": 5}, {"type": "light_bot", "x": 6, "y": 5}]),
             h.team(1, [{"type": "heavy_tank", "x": 28, "y": 28}])]
    res = make_sim(arena, h, "function on_start() end", teams=teams, time_limit=5,
                   conditions=[{"kind": "rank_by_score", "metric": "units_alive"}]).run()
    assert res.winners == [0] and "units_alive" in res.reason


def test_a_unit_that_changes_side_is_drawn_as_the_new_side_s_in_the_replay(arena, h):
    teams = [h.team(0, [{"type": "light_bot", "x": 5, "y": 5}]),
             h.team(1, [{"type": "scout", "x": 20, "y": 20, "tag": "prisoner"}, {"type": "scout", "x": 28, "y": 28}])]
    src = "function on_start() at(3, function() set_team(units({tag='prisoner'})[1].id, 0) end) end"
    sim = make_sim(arena, h, src, teams=teams, time_limit=8)
    rec = ReplayRecorder(sim)
    while not sim.done:
        rec.observe(sim)
        sim.step()
    replay = rec.finish(sim)
    cursor = ReplayCursor(replay)
    before, after = cursor.snapshot(cursor.index_at(2)), cursor.snapshot(cursor.index_at(6))
    assert sorted(before.team.tolist()) == [0, 1, 1] and sorted(after.team.tolist()) == [0, 0, 1]
    assert len(after.ids) == 3 and {u.tag for u in replay.units if u.team == 0} == {None, "prisoner"}
    (change,) = [e for e in replay.key_events() if e.kind == "side_change"]
    assert change.label == "1 unit of T1 joins T0" and abs(change.t - 3) < 0.1


def test_start_units_may_start_hurt(arena, h):
    teams = [h.team(0, [{"type": "light_bot", "x": 5, "y": 5, "count": 2, "health": 0.25}]),
             h.team(1, [{"type": "scout", "x": 28, "y": 28}])]
    src = "function on_start() log('hp', {hp = units(0)[1].hp, max = units(0)[1].max_hp}) end"
    sim, res = run_rule(arena, h, src, teams=teams, until=1)
    assert events(res, "rule_log", "hp")[0]["fields"] == {"hp": 40, "max": 160}
    assert sim.world.hp[1] == 40 and sim.world.hp[2] == 60      # the enemy scout is unhurt
