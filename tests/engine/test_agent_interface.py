"""The benchmark-agent interface: observations, action validation and error codes, the squad FSM,
the random policy (valid actions only) and image observations."""
from __future__ import annotations

import pytest

from engine import Simulation, load_level
from engine.agent import AgentInterface, check_schema, knowledge_text, make_policy, static_knowledge


@pytest.fixture
def level(arena, h):
    """Team 0: 3 light tanks + commander + bot lab, west; team 1: 2 light bots holding east."""
    teams = [
        h.team(0, [{"type": "light_tank", "x": 5.5, "y": 10.5, "count": 3},
                   {"type": "commander", "x": 4.5, "y": 20.5},
                   {"type": "bot_lab", "x": 8.5, "y": 26.5}],
               resources={"metal": 1000, "energy": 5000}),
        h.team(1, [{"type": "light_bot", "x": 26.5, "y": 10.5, "count": 2}], controller={"type": "ai", "behaviour": "hold"}),
    ]
    return load_level(h.level_dict(teams, switches={"time_limit": 90}), base_dir=arena)


def _ids(sim, team, type_name):
    return [int(i) for i in sim.world.select(team=team, type_name=type_name)]


def test_observation_lists_own_units_enemies_factories_and_errors(level):
    sim = Simulation(level, seed=0)
    iface = AgentInterface(0)
    tanks = _ids(sim, 0, "light_tank")
    iface.act(sim, [{"action": "assign_squad", "squad": "alpha", "units": tanks},
                    {"action": "move_units", "units": [999], "x": 3, "y": 3}])
    obs = iface.observe(sim)
    assert obs["team"] == 0 and obs["resources"]["metal"] == 1000
    assert [s["name"] for s in obs["squads"]] == ["alpha"]
    assert sorted(u["id"] for u in obs["squads"][0]["units"]) == tanks
    assert [u["type"] for u in obs["unassigned"]] == ["commander"]
    lab = next(b for b in obs["buildings"] if b["type"] == "bot_lab")
    assert lab["queue"] == []
    assert obs["enemy_counts"] == {"light_bot": 2}
    assert obs["last_action_errors"][0]["code"] == "unknown_unit"
    assert obs["invalid_actions"] == {"unknown_unit": 1}
    text = iface.text(sim)
    for needle in ("resources: metal 1000", "alpha: idle", "visible enemies (2 light_bot)", "bot_lab", "unknown_unit"):
        assert needle in text


def test_areas_and_markers_a_rule_draws_are_in_the_observation_and_its_text(arena, h):
    """A capture zone or a beacon is drawn in the frames: an agent reading the JSON sees it too."""
    (arena / "zone.lua").write_text("function on_start() area_circle(20, 12, 4, 'capture zone') "
                                    "area_rect(6, 5, 10, 11, 'gate') mark(25, 25, 'beacon A') end")
    teams = [h.team(0, [{"type": "light_tank", "x": 4.5, "y": 4.5}]), h.team(1, [{"type": "light_bot", "x": 28.5, "y": 28.5}])]
    sim = Simulation(load_level(h.level_dict(teams, rules=[{"id": "zone", "script": "zone.lua"}]), base_dir=arena), seed=0)
    sim.step()
    iface = AgentInterface(0)
    obs = iface.observe(sim)
    assert [(a["label"], a["shape"]) for a in obs["areas"]] == [("capture zone", "circle"), ("gate", "rect")]
    assert obs["areas"][0]["radius"] == 4 and (obs["areas"][1]["width"], obs["areas"][1]["height"]) == (4, 6)
    assert (obs["areas"][1]["x"], obs["areas"][1]["y"]) == (8, 8)
    assert obs["markers"] == [{"x": 25, "y": 25, "label": "beacon A"}]
    text = iface.text(sim)
    assert "capture zone #1: circle at (20, 12), radius 4" in text and "beacon A (25, 25)" in text


def test_neutral_units_are_listed_apart_from_enemies_and_allies(arena, h):
    teams = [h.team(0, [{"type": "light_tank", "x": 4.5, "y": 4.5}]),
             h.team(1, [{"type": "light_bot", "x": 26.5, "y": 10.5}], controller={"type": "ai", "behaviour": "hold"}),
             h.team(2, [{"type": "metal_storage", "x": 10.5, "y": 20.5, "tag": "village"}], controller={"type": "none"},
                    neutral=True)]
    sim = Simulation(load_level(h.level_dict(teams), base_dir=arena), seed=0)
    iface = AgentInterface(0)
    obs = iface.observe(sim)
    assert [u["type"] for u in obs["neutral"]] == ["metal_storage"] and obs["enemy_counts"] == {"light_bot": 1}
    assert not obs["allies"]
    assert "neutral units (1 metal_storage; no one fights them, but splash hurts them):" in iface.text(sim)

def test_fog_hides_enemies_out_of_sight(arena, h):
    teams = [h.team(0, [{"type": "light_tank", "x": 4.5, "y": 4.5}]),
             h.team(1, [{"type": "light_bot", "x": 28.5, "y": 28.5}], controller={"type": "ai", "behaviour": "hold"})]
    lvl = load_level(h.level_dict(teams, switches={"fog_of_war": True}), base_dir=arena)
    sim = Simulation(lvl, seed=0)
    assert AgentInterface(0).observe(sim)["enemies"] == []


@pytest.mark.parametrize("action, code", [
    ("not a dict", "bad_action"),
    ({"action": "teleport"}, "unknown_action"),
    ({"action": "move_units", "units": [0]}, "bad_action"),                       # missing x, y
    ({"action": "move_units", "units": [0], "x": 1, "y": 1, "speed": 3}, "bad_action"),  # unknown field
    ({"action": "move_units", "units": [0], "x": 1, "y": 1, "mode": "fly"}, "bad_action"),
    ({"action": "squad_move", "squad": "no such squad", "x": 1, "y": 1}, "bad_squad_name"),
    ({"action": "squad_move", "squad": "ghost", "x": 1, "y": 1}, "unknown_squad"),
    ({"action": "move_units", "units": [0], "x": 500, "y": 1}, "off_map"),
    ({"action": "move_units", "units": [999], "x": 1, "y": 1}, "unknown_unit"),
    ({"action": "move_units", "units": "ENEMY", "x": 1, "y": 1}, "not_owner"),
    ({"action": "produce", "factory": "LAB", "unit_type": "light_tank"}, "cannot_build"),
    ({"action": "produce", "factory": "LAB", "unit_type": "heavy_assault_bot"}, "tech_locked"),
    ({"action": "build", "builders": "CMD", "unit_type": "metal_extractor", "x": 15.5, "y": 15.5}, "needs_deposit"),
    ({"action": "assign_squad", "squad": "b", "units": "LABS"}, "not_mobile"),
])
def test_invalid_actions_get_error_codes_and_are_counted(level, action, code):
    sim = Simulation(level, seed=0)
    iface = AgentInterface(0)
    names = {"ENEMY": [_ids(sim, 1, "light_bot")[0]], "LAB": _ids(sim, 0, "bot_lab")[0], "CMD": _ids(sim, 0, "commander"),
             "LABS": _ids(sim, 0, "bot_lab")}
    if isinstance(action, dict):
        action = {k: names.get(v, v) if isinstance(v, str) else v for k, v in action.items()}
    [res] = iface.act(sim, [action])
    assert (res["ok"], res["code"]) == (False, code)
    assert res["message"]
    assert iface.actions.counts() == {"valid": 0, "invalid": 1, "invalid_by_code": {code: 1}}


def test_valid_produce_and_build_reach_the_simulator(level):
    sim = Simulation(level, seed=0)
    iface = AgentInterface(0)
    lab = _ids(sim, 0, "bot_lab")[0]
    res = iface.act(sim, [{"action": "produce", "factory": lab, "unit_type": "light_bot", "count": 2},
                          {"action": "build", "builders": _ids(sim, 0, "commander"), "unit_type": "solar_collector", "x": 12.5, "y": 20.5}])
    assert all(r["ok"] for r in res)
    assert sim.production.queue_of(lab) == ["light_bot", "light_bot"]
    assert check_schema({"action": "squad_stop", "squad": "a"}) == (None, "")


def test_squad_moving_engages_on_contact_and_move_force_does_not(level):
    for kind, expect_fight in (("squad_move", True), ("squad_move_force", False)):
        sim = Simulation(level, seed=0)
        iface = AgentInterface(0)
        iface.act(sim, [{"action": "assign_squad", "squad": "a", "units": _ids(sim, 0, "light_tank")},
                        {"action": kind, "squad": "a", "x": 29.5, "y": 10.5}])
        states = []      # the squad's states until its trip ends (an idle squad may fight again)
        for _ in range(25):
            sim.step(30)
            iface.update(sim)
            state = iface.squads.squads["a"].state if "a" in iface.squads.squads else "idle"
            if state == "idle":
                break
            states.append(state)
        assert ("fighting" in states) == expect_fight, (kind, states)
        if expect_fight:
            assert sim.teams[0].stats["units_killed"] > 0


def test_squad_returns_to_idle_on_arrival_and_stop(level):
    sim = Simulation(level, seed=0)
    iface = AgentInterface(0)
    iface.act(sim, [{"action": "assign_squad", "squad": "a", "units": _ids(sim, 0, "light_tank")},
                    {"action": "squad_move", "squad": "a", "x": 5.5, "y": 28.5}])
    assert iface.squads.squads["a"].state == "moving"
    for _ in range(15):
        sim.step(30)
        iface.update(sim)
    assert iface.squads.squads["a"].state == "idle"
    iface.act(sim, [{"action": "squad_move", "squad": "a", "x": 5.5, "y": 5.5}, {"action": "squad_stop", "squad": "a"}])
    assert iface.squads.squads["a"].state == "idle"


def test_random_policy_only_issues_valid_actions_and_is_seeded(level):
    traces = []
    for _ in range(2):
        policy = make_policy("random", team=0, seed=3, actions_per_decision=3)
        sim = Simulation(level, seed=0, policies={0: policy})
        result = sim.run()
        counts = policy.iface.actions.counts()
        assert counts["valid"] > 20
        assert counts["invalid"] == 0, counts
        traces.append(result.trace_hash)
    assert traces[0] == traces[1]


def test_make_policy_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown policy"):
        make_policy("genius")


def test_images_minimap_and_cameras_on_the_three_largest_groups_and_home(level):
    sim = Simulation(level, seed=0)
    extra = [sim.spawn("light_tank", 0, 6.5 + k, 14.5, source="test") for k in range(3)]
    tanks = _ids(sim, 0, "light_tank")
    iface = AgentInterface(0)
    # scouts of 1 and 1, a main body of 4; the commander is the unassigned group (1)
    iface.act(sim, [{"action": "assign_squad", "squad": "scout_a", "units": tanks[:1]},
                    {"action": "assign_squad", "squad": "scout_b", "units": tanks[1:2]},
                    {"action": "assign_squad", "squad": "main", "units": tanks[2:]}])
    assert len(tanks[2:]) == 4 and extra
    images = iface.images(sim, minimap_size=256, camera_size=128)
    assert images["minimap"].size == (256, 256)
    # main (4) first, then the 1-unit groups by name; the bot lab is the home base
    assert list(images["cameras"]) == ["main", "scout_a", "scout_b", "home base"]
    assert images["cameras"]["main"].size == (128, 128)


def test_static_knowledge_has_task_teams_and_roster(level):
    k = static_knowledge(level, 0)
    assert [t["relation"] for t in k["teams"]] == ["you", "enemy"]
    assert k["teams"][0]["start_units"]["light_tank"] == 3
    text = knowledge_text(level, 0)
    assert "test level" in text and "light_tank" in text and "team 1 't1' (enemy, built-in AI (hold))" in text
