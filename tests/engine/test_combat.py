"""Combat: auto-engagement, range, armour, air/ground weapons, attack-move vs forced move."""
import pytest

from engine import Simulation, load_level


def sim_of(arena, h, teams, **kw):
    return Simulation(load_level(h.level_dict(teams, **kw), base_dir=arena), seed=0)


def test_units_in_range_fight_to_the_death_and_deaths_are_traced(arena, h):
    sim = sim_of(arena, h, [h.team(0, [{"type": "light_bot", "x": 10, "y": 10, "count": 2, "spread": 1}]),
                            h.team(1, [{"type": "light_bot", "x": 14, "y": 10}])])
    sim.step(30 * 30)
    deaths = [e for e in sim.trace.events if e["event"] == "death"]
    assert [(d["team"], d["killer_team"], d["type"]) for d in deaths] == [(1, 0, "light_bot")]
    s = sim.teams
    assert s[1].stats["units_lost"] == 1 and s[0].stats["units_killed"] == 1
    assert s[0].stats["damage_dealt"] >= 160 and s[1].stats["damage_received"] == s[0].stats["damage_dealt"]


def test_out_of_range_idle_units_do_not_engage(arena, h):
    sim = sim_of(arena, h, [h.team(0, [{"type": "light_bot", "x": 5, "y": 10}]),
                            h.team(1, [{"type": "light_bot", "x": 25, "y": 10}])])
    sim.step(300)
    w = sim.world
    assert w.hp[0] == w.max_hp[0] and w.hp[1] == w.max_hp[1]


def test_armor_reduces_damage(arena, h):
    # commander armour 0.1: a light_bot shot of 12 does 10.8
    sim = sim_of(arena, h, [h.team(0, [{"type": "light_bot", "x": 10, "y": 10}]),
                            h.team(1, [{"type": "commander", "x": 14, "y": 10}])])
    w = sim.world
    sim.step(6)
    dealt = w.max_hp[1] - w.hp[1]
    assert dealt == pytest.approx(12 * 0.9)


def test_ground_only_weapons_ignore_aircraft(arena, h):
    sim = sim_of(arena, h, [h.team(0, [{"type": "light_bot", "x": 10, "y": 10}]),
                            h.team(1, [{"type": "fighter", "x": 12, "y": 10}])])
    sim.step(90)
    assert sim.world.hp[1] == sim.world.max_hp[1]
    assert sim.world.target[0] == -1


def test_anti_air_hits_aircraft(arena, h):
    sim = sim_of(arena, h, [h.team(0, [{"type": "rocket_bot", "x": 10, "y": 10}]),
                            h.team(1, [{"type": "fighter", "x": 12, "y": 10}])])
    sim.step(90)
    assert sim.world.hp[1] < sim.world.max_hp[1]


def test_fight_stops_to_shoot_but_move_force_ignores_enemies(arena, h):
    teams = [h.team(0, [{"type": "light_bot", "x": 4, "y": 10}, {"type": "light_bot", "x": 4, "y": 20}]),
             h.team(1, [{"type": "wall", "x": 16.5, "y": 10.5}, {"type": "wall", "x": 16.5, "y": 20.5}])]
    sim = sim_of(arena, h, teams)
    assert sim.issue(0, {"kind": "fight", "units": [0], "x": 28, "y": 10}) == (True, None)
    assert sim.issue(0, {"kind": "move_force", "units": [1], "x": 28, "y": 20}) == (True, None)
    sim.step(30 * 8)
    w = sim.world
    assert w.x[0] < 16 and w.hp[2] < w.max_hp[2]       # stopped before the wall and shot it
    assert w.x[1] > 20 and w.hp[3] == w.max_hp[3]      # walked past, never fired


def test_splash_hits_neighbours(arena, h):
    sim = sim_of(arena, h, [h.team(0, [{"type": "artillery_bot", "x": 5, "y": 10}]),
                            h.team(1, [{"type": "wall", "x": 14.5, "y": 10.5}, {"type": "wall", "x": 15.5, "y": 10.5}])])
    sim.step(40)
    w = sim.world
    assert w.hp[1] < w.max_hp[1] and w.hp[2] < w.max_hp[2]
