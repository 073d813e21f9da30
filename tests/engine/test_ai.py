"""Built-in AI behaviours: waves, defend, hold, skirmish, and runtime controller switches."""
import numpy as np

from engine import Simulation, load_level


def make(arena, h, teams, **kw):
    return Simulation(load_level(h.level_dict(teams, **kw), base_dir=arena))


def test_waves_attack_move_on_schedule(arena, h):
    ctrl = {"type": "ai", "behaviour": "waves", "target": {"x": 28, "y": 16}, "first_at": 3, "interval": 60, "min_group": 2}
    sim = make(arena, h, [h.team(0, [{"type": "light_bot", "x": 4, "y": 16, "count": 3}], controller=ctrl)])
    sim.step(30 * 2)
    assert (sim.world.order[:3] == 0).all()
    sim.step(30 * 2)
    assert (sim.world.order[:3] == 3).all()         # FIGHT
    sim.step(30 * 15)
    assert np.all(sim.world.x[:3] > 24)


def test_waves_target_selector_finds_nearest_match(arena, h):
    ctrl = {"type": "ai", "behaviour": "waves", "target": {"team": 1, "tag": "hq"}, "interval": 60}
    sim = make(arena, h, [h.team(0, [{"type": "light_bot", "x": 4, "y": 16}], controller=ctrl),
                          h.team(1, [{"type": "radar_tower", "x": 27.5, "y": 27.5, "tag": "hq"}])])
    sim.step(31)
    assert (sim.world.dest_x[0], sim.world.dest_y[0]) == (27.5, 27.5)


def test_waves_seek_the_nearest_enemy_once_their_target_team_is_gone(arena, h):
    ctrl = {"type": "ai", "behaviour": "waves", "target": {"team": 1}, "interval": 5}
    sim = make(arena, h, [h.team(0, [{"type": "light_bot", "x": 4, "y": 16}], controller=ctrl),
                          h.team(1, []),
                          h.team(2, [{"type": "radar_tower", "x": 27.5, "y": 27.5}])])
    sim.step(31)
    assert (sim.world.dest_x[0], sim.world.dest_y[0]) == (27.5, 27.5)


def test_defend_engages_intruders_and_returns(arena, h):
    ctrl = {"type": "ai", "behaviour": "defend", "center": {"x": 16, "y": 16}, "radius": 8}
    sim = make(arena, h, [h.team(0, [{"type": "light_bot", "x": 16, "y": 16, "count": 3}], controller=ctrl),
                          h.team(1, [{"type": "scout", "x": 21, "y": 21}])])
    sim.step(30 * 10)
    assert not sim.world.alive[3]                     # the intruder died
    sim.step(30 * 10)
    assert np.hypot(sim.world.x[:3] - 16, sim.world.y[:3] - 16).max() < 8


def test_hold_returns_to_post(arena, h):
    sim = make(arena, h, [h.team(0, [{"type": "light_bot", "x": 10, "y": 10}], controller={"type": "ai", "behaviour": "hold"})])
    sim.step(31)
    sim.command(0, {"kind": "move", "units": [0], "x": 20, "y": 10})
    sim.step(30 * 6)
    sim.step(30 * 8)
    assert abs(sim.world.x[0] - 10) < 1.5


def test_skirmish_builds_economy_factory_and_attacks(tmp_path, h):
    rows = h.open_rows(48, 48)
    for x, y in ((8, 6), (12, 6), (6, 12), (14, 14), (3, 3)):
        rows[y] = rows[y][:x] + "M" + rows[y][x + 1:]
    h.write_map(tmp_path, rows)
    ctrl = {"type": "ai", "behaviour": "skirmish", "attack_at_army": 2}
    lv = load_level(h.level_dict([h.team(0, [{"type": "commander", "x": 10, "y": 10}], controller=ctrl,
                                         resources={"metal": 1000, "energy": 5000}),
                                  h.team(1, [{"type": "radar_tower", "x": 40.5, "y": 40.5}])],
                                 switches={"time_limit": 400}), base_dir=tmp_path)
    sim = Simulation(lv)
    sim.step(30 * 240)
    w = sim.world
    have = {w.type_name(i) for i in w.select(team=0)}
    assert {"metal_extractor", "solar_collector", "bot_lab"} <= have
    produced = [e for e in sim.trace.events if e["event"] == "spawn" and e["source"] == "production"]
    assert len(produced) >= 2
    assert any(e["event"] == "death" and e["team"] == 1 for e in sim.trace.events)  # it attacked


def test_set_controller_switches_behaviour(arena, h):
    sim = make(arena, h, [h.team(0, [{"type": "light_bot", "x": 4, "y": 16}], controller={"type": "ai", "behaviour": "idle"})])
    sim.set_controller(0, {"type": "ai", "behaviour": "waves", "target": {"x": 20, "y": 16}})
    sim.step(31)
    assert sim.world.order[0] == 3
