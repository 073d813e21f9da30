"""The fight strategy: with sweep points an army that sees no enemy searches them, so a rival hiding in
the fog is found and put out (without, the army stands still); joining allies means joining their army."""
from __future__ import annotations

from engine import Simulation, load_level
from engine.agent import make_policy

SIZE = 64


def game(arena_dir, h, reference: dict) -> Simulation:
    h.write_map(arena_dir, h.open_rows(SIZE, SIZE))
    cfg = h.level_dict([h.team(0, [{"type": "light_tank", "x": 8.5, "y": 8.5, "count": 6, "spread": 2}]),
                        h.team(1, [{"type": "light_bot", "x": 56.5, "y": 56.5}], controller={"type": "none"})],
                       conditions=[{"kind": "last_survivor"}],
                       switches={"fog_of_war": True, "time_limit": 240})
    cfg["metadata"] = {"reference": reference}
    return Simulation(load_level(cfg, base_dir=arena_dir), seed=0, policies={0: make_policy("reference", team=0)})


def test_an_army_that_sees_no_enemy_searches_the_sweep_points_and_finds_the_hidden_rival(tmp_path, h):
    swept = game(tmp_path, h, {"strategy": "fight", "sweep": [[56.5, 8.5], [56.5, 56.5], [8.5, 56.5]]}).run()
    assert swept.winners == [0], swept.reason
    still = game(tmp_path, h, {"strategy": "fight"}).run()
    assert still.winners == [] and still.ended_by == "time_limit"


def test_joining_allies_means_their_army_not_a_commander_left_at_home(tmp_path, h):
    """An ally with only its commander left has no army to join: the reference fights instead of
    standing beside that commander."""
    h.write_map(tmp_path, h.open_rows(SIZE, SIZE))
    cfg = h.level_dict([h.team(0, [{"type": "light_tank", "x": 8.5, "y": 8.5, "count": 4, "spread": 2}], allies=[1]),
                        h.team(1, [{"type": "commander", "x": 56.5, "y": 8.5}], controller={"type": "none"},
                               allies=[0]),
                        h.team(2, [{"type": "light_bot", "x": 8.5, "y": 40.5}], controller={"type": "none"})],
                       conditions=[{"kind": "last_survivor"}], switches={"fog_of_war": False, "time_limit": 120})
    cfg["metadata"] = {"reference": {"strategy": "fight", "join_allies": True}}
    sim = Simulation(load_level(cfg, base_dir=tmp_path), seed=0, policies={0: make_policy("reference", team=0)})
    result = sim.run()
    assert result.winners == [0, 1], result.reason


def test_a_waiting_army_with_a_guard_radius_strikes_what_attacks_its_home(tmp_path, h):
    """Before engage_at the army holds home; with guard_radius it beats off an enemy shooting what it
    left there (a storage out of its own weapons' reach), without it the storage is lost."""
    def play(reference: dict):
        h.write_map(tmp_path, h.open_rows(SIZE, SIZE))
        cfg = h.level_dict([h.team(0, [{"type": "light_tank", "x": 8.5, "y": 8.5, "count": 4, "spread": 2},
                                       {"type": "metal_storage", "x": 8.5, "y": 18.5, "tag": "store"}]),
                            h.team(1, [{"type": "light_bot", "x": 11.5, "y": 21.5}], controller={"type": "none"})],
                           conditions=[{"kind": "protect_target", "team": 0, "target": {"team": 0, "tag": "store"}}],
                           switches={"fog_of_war": False, "time_limit": 120})
        cfg["metadata"] = {"reference": {"strategy": "fight", "engage_at": 200, **reference}}
        return Simulation(load_level(cfg, base_dir=tmp_path), seed=0,
                          policies={0: make_policy("reference", team=0)}).run()

    assert play({"guard_radius": 15}).winners == [0]
    lost = play({})
    assert 0 not in lost.winners and "protected" in lost.reason


def test_with_guard_with_commander_the_commander_joins_the_strike_and_walks_back(tmp_path, h):
    """The commander at home fights the intruder beside the army instead of waiting for it, then returns to
    its post; without the param it never leaves its post."""
    def play(reference: dict):
        h.write_map(tmp_path, h.open_rows(SIZE, SIZE))
        cfg = h.level_dict([h.team(0, [{"type": "commander", "x": 8.5, "y": 8.5},
                                       {"type": "light_bot", "x": 8.5, "y": 12.5, "count": 2, "spread": 1}]),
                            h.team(1, [{"type": "assault_bot", "x": 21.5, "y": 8.5},
                                       {"type": "scout", "x": 60.5, "y": 60.5}], controller={"type": "none"})],
                           switches={"fog_of_war": False, "time_limit": 90})
        cfg["metadata"] = {"reference": {"strategy": "fight", "engage_at": 200, "guard_radius": 15, **reference}}
        sim = Simulation(load_level(cfg, base_dir=tmp_path), seed=0, policies={0: make_policy("reference", team=0)})
        w = sim.world
        cmd = int(w.select(team=0, type_name="commander")[0])
        farthest = 0.0
        while not sim.done and sim.time < 80:
            sim.step(30)
            farthest = max(farthest, float(w.x[cmd]) - 8.5)
        return farthest, (float(w.x[cmd]), float(w.y[cmd])), len(w.select(team=1, type_name="assault_bot"))

    went, back, left = play({"guard_with_commander": True})
    assert went > 3.0 and left == 0 and abs(back[0] - 8.5) < 1.5 and abs(back[1] - 8.5) < 1.5
    assert play({})[0] < 1.0
