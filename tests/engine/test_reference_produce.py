"""The produce strategy of the reference: it builds a building its target names (a storage) with a
builder, makes more of a unit type it already owns through the factory that makes it, expands only to deposits within `expand_radius` of home (the nearest of those to the builder,
even when a nearer one lies beyond), and keeps `energy_per_metal` times its metal income in energy."""
from __future__ import annotations

import json

from engine import Simulation, load_level
from engine.agent import make_policy

SIZE = 64


def game(tmp_path, h, units, reference, deposits=(), metal=600.0, energy=1500.0):
    rows = ["." * SIZE for _ in range(SIZE)]
    (tmp_path / "map.json").write_text(json.dumps({
        "name": "deposits", "width": SIZE, "height": SIZE, "rows": rows, "spawns": [],
        "deposits": [{"x": x, "y": y, "richness": 1.0} for x, y in deposits]}))
    cfg = h.level_dict([h.team(0, units, resources={"metal": metal, "energy": energy}),
                        h.team(1, [{"type": "light_bot", "x": 60.5, "y": 60.5}], controller={"type": "none"})],
                       switches={"production": True, "time_limit": 300})
    cfg["metadata"] = {"reference": reference}
    return Simulation(load_level(cfg, base_dir=tmp_path), seed=0, policies={0: make_policy("reference", team=0)})


def built(sim, kind: str) -> list[tuple[float, float]]:
    w = sim.world
    return [(float(w.x[i]), float(w.y[i])) for i in w.select(team=0, type_name=kind).tolist() if w.progress[i] >= 1]


def test_a_building_of_the_target_is_built(tmp_path, h):
    sim = game(tmp_path, h, [{"type": "commander", "x": 8.5, "y": 8.5}],
               {"strategy": "produce", "target": {"metal_storage": 1}})
    sim.run(until=40)
    assert len(built(sim, "metal_storage")) == 1


def test_a_builder_far_out_expands_to_a_deposit_within_reach_of_home(tmp_path, h):
    sim = game(tmp_path, h, [{"type": "constructor_bot", "x": 50.5, "y": 8.5}],
               {"strategy": "produce", "target": {"constructor_bot": 1}, "home": [8.5, 8.5], "expand_radius": 30},
               deposits=[(55, 8), (20, 20)])
    sim.run(until=60)
    assert built(sim, "metal_extractor") == [(20.5, 20.5)]


def test_energy_per_metal_sets_how_much_solar_the_economy_keeps(tmp_path, h):
    def solars(ratio: float) -> int:
        sim = game(tmp_path, h, [{"type": "commander", "x": 8.5, "y": 8.5}],
                   {"strategy": "produce", "target": {"commander": 1}, "energy_per_metal": ratio},
                   deposits=[(12, 8), (8, 12), (14, 14)], energy=3000.0)
        sim.run(until=60)
        return len(built(sim, "solar_collector"))

    assert solars(0.0) == 0 < solars(20.0)


def test_more_of_a_unit_type_it_starts_with_comes_from_a_factory(tmp_path, h):
    # owning one constructor bot is no way to make a second: the bot lab that makes them is built
    sim = game(tmp_path, h, [{"type": "commander", "x": 8.5, "y": 8.5}, {"type": "constructor_bot", "x": 12.5, "y": 8.5}],
               {"strategy": "produce", "target": {"constructor_bot": 2}}, metal=2000.0, energy=8000.0)
    sim.run(until=120)
    assert built(sim, "bot_lab") and len(built(sim, "constructor_bot")) == 2
