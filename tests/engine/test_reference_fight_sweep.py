"""The fight strategy's sweep: an army that sees no enemy searches the given points, so a rival
hiding in the fog is found and put out; without sweep points the army stands still."""
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
