"""Production and construction: queues, tech tree, switches, building placement."""
import pytest

from engine import Simulation, load_level


def make(arena, h, units, production=True, metal=5000, energy=50000, fog=False):
    t = h.team(0, units, resources={"metal": metal, "energy": energy})
    lv = load_level(h.level_dict([t, h.team(1, [])], switches={"production": production, "fog_of_war": fog}), base_dir=arena)
    return Simulation(lv)


def test_factory_produces_queue_in_order(arena, h):
    sim = make(arena, h, [{"type": "bot_lab", "x": 10.5, "y": 10.5}])
    assert sim.issue(0, {"kind": "produce", "factory": 0, "type": "scout", "count": 2}) == (True, None)
    assert sim.issue(0, {"kind": "produce", "factory": 0, "type": "light_bot"}) == (True, None)
    assert sim.production.queue_of(0) == ["scout", "scout", "light_bot"]
    sim.step(30 * 20)
    spawns = [e for e in sim.trace.events if e["event"] == "spawn" and e["source"] == "production"]
    assert [e["type"] for e in spawns] == ["scout", "scout", "light_bot"]
    assert spawns[0]["t"] == pytest.approx(4.0, abs=0.25)   # scout build time 4 s at build power 1
    w = sim.world
    assert all(w.terrain.passable[int(w.y[e["id"]]), int(w.x[e["id"]])] for e in spawns)


def test_tech_tree_and_switches(arena, h):
    sim = make(arena, h, [{"type": "bot_lab", "x": 10.5, "y": 10.5}, {"type": "light_bot", "x": 20, "y": 20}])
    assert sim.issue(0, {"kind": "produce", "factory": 0, "type": "light_tank"}) == (False, "cannot_build")
    assert sim.issue(0, {"kind": "produce", "factory": 0, "type": "heavy_assault_bot"}) == (False, "tech_locked")
    assert sim.issue(0, {"kind": "produce", "factory": 0, "type": "tank9"}) == (False, "unknown_type")
    assert sim.issue(0, {"kind": "produce", "factory": 1, "type": "scout"}) == (False, "cannot_build")
    off = make(arena, h, [{"type": "bot_lab", "x": 10.5, "y": 10.5}, {"type": "commander", "x": 20, "y": 20}], production=False)
    assert off.issue(0, {"kind": "produce", "factory": 0, "type": "scout"}) == (False, "production_disabled")
    assert off.issue(0, {"kind": "build", "units": [1], "type": "solar_collector", "x": 5, "y": 5}) == (False, "production_disabled")


def test_insufficient_resources_without_income(arena, h):
    sim = make(arena, h, [{"type": "bot_lab", "x": 10.5, "y": 10.5}], metal=0, energy=0)
    assert sim.issue(0, {"kind": "produce", "factory": 0, "type": "scout"}) == (False, "insufficient_resources")


def test_build_site_rules(tmp_path, h):
    rows = h.open_rows()
    rows[3] = rows[3][:3] + "M" + rows[3][4:]
    rows[20] = "#" * 32
    h.write_map(tmp_path, rows)
    lv = load_level(h.level_dict([h.team(0, [{"type": "commander", "x": 10, "y": 10},
                                             {"type": "solar_collector", "x": 15.5, "y": 10.5}],
                                         resources={"metal": 1000, "energy": 1000})]), base_dir=tmp_path)
    sim = Simulation(lv)
    build = lambda t, x, y: sim.issue(0, {"kind": "build", "units": [0], "type": t, "x": x, "y": y})
    assert build("metal_extractor", 8, 8) == (False, "needs_deposit")
    assert build("solar_collector", 5, 20) == (False, "impassable")
    assert build("solar_collector", 15, 11) == (False, "site_blocked")
    assert build("light_bot", 5, 5) == (False, "cannot_build")
    assert build("metal_extractor", 3.2, 3.9) == (True, None)
    sim.step(30 * 15)
    ext = [e for e in sim.trace.events if e["event"] == "spawn" and e["source"] == "build"]
    assert len(ext) == 1 and (ext[0]["x"], ext[0]["y"]) == (3.5, 3.5)
    assert sim.world.progress[ext[0]["id"]] == 1.0
    assert sim.world.income_mult[ext[0]["id"]] == 1.0


def test_two_builders_assist_one_building(arena, h):
    sim = make(arena, h, [{"type": "constructor_bot", "x": 5, "y": 5}, {"type": "constructor_bot", "x": 5, "y": 7}])
    for u in (0, 1):
        assert sim.issue(0, {"kind": "build", "units": [u], "type": "solar_collector", "x": 9, "y": 6})[0]
    sim.step(30 * 8)
    solars = sim.world.select(type_name="solar_collector")
    assert len(solars) == 1 and sim.world.progress[solars[0]] == 1.0   # 10 s of work done by two in < 8 s
