"""static_fortification spaces any number of turrets by footprint: a ring that does not hold them
`spacing` apart spills onto further rings, so rule-spawned buildings never overlap (the level's
placement check rejects overlapping start units)."""
from __future__ import annotations

import math

import pytest

from engine import Simulation, load_level
from engine.ruletest import build_level
from genesis.workspace import seed_kb

RULE = seed_kb() / "rules" / "static_fortification"


def _snapshot(params: dict):
    case = {"level": {"name": "fortification spacing", "description": "a ring round a core",
                      "map": {"name": "open_field"},
                      "switches": {"fog_of_war": False, "production": False, "time_limit": 30},
                      "teams": [{"id": 0, "name": "attacker", "units": [{"type": "commander", "at": "sw"}]},
                                {"id": 1, "name": "defender", "controller": {"type": "ai", "behaviour": "hold"}}]},
            "params": params}
    level = load_level(build_level(case, "static_fortification", RULE / "rule.lua"), base_dir=RULE,
                       rule_roots=[RULE])
    return Simulation(level, seed=0, policies={}).snapshot()


def _overlaps(snap) -> list[tuple[int, int, float]]:
    out = []
    for i in range(len(snap.ids)):
        for j in range(i + 1, len(snap.ids)):
            gap = math.dist((snap.x[i], snap.y[i]), (snap.x[j], snap.y[j]))
            if gap < 0.5 * (snap.size[i] + snap.size[j]):
                out.append((int(snap.ids[i]), int(snap.ids[j]), gap))
    return out


@pytest.mark.parametrize("turrets,turret_type", [(4, "light_turret"), (8, "light_turret"), (15, "light_turret"),
                                                 (30, "light_turret"), (12, "heavy_turret")])
def test_any_number_of_turrets_round_a_core_never_overlap(turrets, turret_type):
    snap = _snapshot({"team": 1, "center": [24.5, 24.5], "radius": 2.5, "turrets": turrets,
                      "turret_type": turret_type, "core_type": "bot_lab", "core_tag": "target"})
    assert sum(1 for t in snap.team if int(t) == 1) == turrets + 1   # every turret placed, and the core
    assert _overlaps(snap) == []


def test_decoy_rings_and_walls_are_spaced_too():
    snap = _snapshot({"team": 1, "radius": 2.5, "turrets": 15, "decoy_turrets": 15, "walls": 20,
                      "core_type": "bot_lab", "core_tag": "target", "sites": [[12.5, 12.5], [36.5, 36.5]]})
    assert sum(1 for t in snap.team if int(t) == 1) == 15 + 15 + 20 + 1
    assert _overlaps(snap) == []


def test_a_few_turrets_keep_one_ring_at_the_asked_radius():
    snap = _snapshot({"team": 1, "center": [24.5, 24.5], "radius": 5, "turrets": 6})
    radii = sorted(round(math.dist((x, y), (24.5, 24.5)), 1) for x, y, t in zip(snap.x, snap.y, snap.team) if int(t) == 1)
    assert radii == [5.0] * 6
