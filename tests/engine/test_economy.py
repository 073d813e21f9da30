"""Economy: extractor income only on deposits, solar, storage caps, stalls when short."""
import pytest

from engine import Simulation, load_level


def make(tmp_path, h, units, resources=None, deposits=((10, 10),), production=True):
    rows = h.open_rows()
    for x, y in deposits:
        rows[y] = rows[y][:x] + "M" + rows[y][x + 1:]
    h.write_map(tmp_path, rows)
    t = h.team(0, units, resources=resources or {"metal": 0, "energy": 0})
    return Simulation(load_level(h.level_dict([t], switches={"production": production}), base_dir=tmp_path))


def test_extractor_income_only_on_deposit(tmp_path, h):
    sim = make(tmp_path, h, [{"type": "metal_extractor", "x": 10.5, "y": 10.5},
                             {"type": "metal_extractor", "x": 20.5, "y": 20.5},
                             {"type": "metal_storage", "x": 25.5, "y": 5.5}])
    sim.step(30 * 10)
    assert sim.teams[0].metal == pytest.approx(2 * 10)     # one extractor on a deposit, 2 metal/s
    assert sim.teams[0].stats["metal_gathered"] == pytest.approx(20)


def test_solar_energy_and_storage_cap(tmp_path, h):
    sim = make(tmp_path, h, [{"type": "solar_collector", "x": 5.5, "y": 5.5}])
    sim.step(30 * 10)
    assert sim.teams[0].energy == pytest.approx(50)          # 20/s but the collector stores only 50


def test_storage_never_confiscates_starting_resources(tmp_path, h):
    sim = make(tmp_path, h, [{"type": "solar_collector", "x": 5.5, "y": 5.5}], resources={"metal": 0, "energy": 900})
    sim.step(30 * 3)
    assert sim.teams[0].energy == pytest.approx(900)


def test_construction_spends_in_proportion_and_stalls_when_short(tmp_path, h):
    # solar: 150 metal, build_time 10; commander build power 1.5 -> 15 metal/s while building
    sim = make(tmp_path, h, [{"type": "commander", "x": 5, "y": 20}], resources={"metal": 75, "energy": 0})
    sim.teams[0].stats  # commander itself earns 2 metal/s, 25 energy/s (stored up to 500 / 1000)
    ok = sim.issue(0, {"kind": "build", "units": [0], "type": "solar_collector", "x": 8, "y": 20})
    assert ok == (True, None)
    sim.step(30 * 12)
    w = sim.world
    solar = int(w.build_target[0]) if w.build_target[0] >= 0 else 1
    assert w.type_name(solar) == "solar_collector"
    # paid exactly its progress: spent metal == progress * cost
    assert sim.teams[0].stats["metal_spent"] == pytest.approx(w.progress[solar] * 150, rel=1e-6)
    assert 0.5 < w.progress[solar] < 1.0                    # stalled: income 2/s < 15/s wanted
    sim.step(30 * 120)
    assert w.progress[solar] == 1.0 and w.order[0] == 0      # finished, builder idle again
