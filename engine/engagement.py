"""Measured fights: what a group of one unit type is worth against another, played by the engine.

A level designer has no simulator at hand, yet writes expectations ("the defence holds with at
least 3 units left", "the strike force takes the outpost in under a minute"). These numbers give
it one: every armed ground unit type's worth in `BASE` units, measured by real engagements on
open ground, and the square law groups of them follow (`square_law_survivors`, checked against the
measured rows by a test).

`engine/data/unit_worth.json` holds the measured table (`python -m engine.data.build_worth`
rewrites it; a test replays it against the engine, so balance changes cannot leave it stale).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.catalog import load_catalog
from engine.level import load_level
from engine.sim import run_level

BASE = "light_bot"
WORTH_PATH = Path(__file__).parent / "data" / "unit_worth.json"
FIELD_W, FIELD_H = 40, 24           # open ground, no fog, no production
ATTACKER_X, DEFENDER_X, ROW = 8, 30, 12
MAX_BASE = 80                        # the most BASE units a measurement tries
SQUARE_LAW_SIZES = ((10, 5), (10, 7), (10, 9), (20, 10))


@dataclass(frozen=True)
class Fight:
    """One engagement: `attackers` of `attacker` against `defenders` of `defender`."""

    attacker: str
    attackers: int
    defender: str
    defenders: int
    attacker_won: bool
    survivors: int          # units left on the winning side
    seconds: float          # game time until one side had nothing left (or the limit)


# how the defending group fights: attack-moving too, guarding its ground with the defend AI, or standing
STANCES = ("moving", "defend", "standing")
STANCE_GROUP = 10      # the defending BASE group the stances are measured on


def fight(attacker: str, attackers: int, defender: str, defenders: int, seed: int = 0,
          time_limit: float = 300.0, stance: str = "moving") -> Fight:
    """The attackers attack-move at the defenders until one side is gone; the defenders attack-move back
    (`stance` moving), guard their ground (defend) or stand (standing; a building always stands)."""
    catalog = load_catalog()

    def side(team: int, kind: str, count: int, x: float, enemy_x: float, how: str) -> dict[str, Any]:
        mobile = catalog.units[kind].speed > 0
        controller = {"moving": {"type": "ai", "behaviour": "waves", "target": {"x": enemy_x, "y": ROW},
                                 "interval": 1000},
                      "defend": {"type": "ai", "behaviour": "defend", "center": {"x": x, "y": ROW}, "radius": 12},
                      "standing": {"type": "none"}}[how if mobile else "standing"]
        return {"id": team, "name": f"side {team}", "controller": controller,
                "units": [{"type": kind, "x": x, "y": ROW, "count": count, "spread": 2.0 if mobile else 3.0}]}

    level = load_level({
        "name": "engagement", "description": "a measured fight on open ground",
        "map": {"generate": {"width": FIELD_W, "height": FIELD_H, "cliff_density": 0, "water_density": 0,
                             "deposits": 0}},
        "switches": {"fog_of_war": False, "production": False, "time_limit": time_limit},
        "teams": [side(0, attacker, attackers, ATTACKER_X, DEFENDER_X, "moving"),
                  side(1, defender, defenders, DEFENDER_X, ATTACKER_X, stance)]})
    result = run_level(level, seed=seed)
    won = 0 in result.winners
    lost = result.team_stats[0 if won else 1].get("units_lost", 0)
    return Fight(attacker, attackers, defender, defenders, won, (attackers if won else defenders) - lost,
                 round(result.duration, 1))


def fewest_to_beat(defender: str, defenders: int, attacker: str = BASE, stance: str = "moving") -> Fight | None:
    """The smallest group of `attacker` that wins against `defenders` of `defender` (None past MAX_BASE).
    Wins grow with numbers, so a doubling search then a bisection finds it."""
    lo, hi = 0, 1
    best: Fight | None = None
    while hi <= MAX_BASE:
        result = fight(attacker, hi, defender, defenders, stance=stance)
        if result.attacker_won:
            best = result
            break
        lo, hi = hi, hi * 2
    if best is None:
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        result = fight(attacker, mid, defender, defenders, stance=stance)
        if result.attacker_won:
            hi, best = mid, result
        else:
            lo = mid
    return best


def measured_types() -> list[str]:
    """Every armed type that shoots ground targets and stands on the ground (BASE cannot hit air)."""
    catalog = load_catalog()
    return [name for name, unit in catalog.units.items()
            if name != BASE and unit.weapon is not None and unit.weapon.hits_ground and not unit.is_air]


def stands(kind: str) -> bool:
    """A building, or a builder the waves AI leaves where it is: it fights where it stands, shooting only
    what comes within its weapon range."""
    unit = load_catalog().units[kind]
    return unit.speed == 0 or bool(unit.builds)


def group_size(kind: str) -> int:
    """How many of `kind` a measurement fields: a handful of cheap units, one of a costly one, so a
    group's worth is measured near the sizes levels use."""
    cost = load_catalog().units[kind].cost_metal
    return max(1, min(4, round(400 / cost)))


def measure() -> dict[str, Any]:
    """The whole table, as written to WORTH_PATH."""
    rows = {}
    for kind in measured_types():
        k = group_size(kind)
        best = fewest_to_beat(kind, k)
        rows[kind] = {"group": k, "stands": stands(kind), **(
            {"beaten_by": best.attackers, "worth": round(best.attackers / k, 1), "survivors": best.survivors,
             "seconds": best.seconds} if best else {"beaten_by": None, "worth": None})}
    law = [dict(zip(("big", "small", "survivors", "seconds"), (f.attackers, f.defenders, f.survivors, f.seconds)))
           for f in (fight(BASE, big, BASE, small) for big, small in SQUARE_LAW_SIZES)]
    stances = {}
    for stance in STANCES:
        best = fewest_to_beat(BASE, STANCE_GROUP, stance=stance)
        stances[stance] = ({"beaten_by": best.attackers, "attackers_lost": best.attackers - best.survivors}
                           if best else {"beaten_by": None})
    return {"base": BASE, "types": rows, "square_law": law, "stances": {"group": STANCE_GROUP, **stances}}


@lru_cache(maxsize=1)
def worth_table() -> dict[str, Any]:
    """The measured table (engine/data/unit_worth.json)."""
    return json.loads(WORTH_PATH.read_text(encoding="utf-8"))


def worth(kind: str) -> float:
    """A unit type's measured worth in light bots (1 for a type the table does not measure)."""
    return float(worth_table()["types"].get(kind, {}).get("worth", 1.0)) or 1.0


def square_law_survivors(big: float, small: float) -> float:
    """What the square law predicts is left of the bigger side (in worth) after a fight to the end."""
    return math.sqrt(max(0.0, big * big - small * small))
