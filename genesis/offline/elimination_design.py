"""The free-for-all and team-battle pieces a request's own words fix: each side's start army as stated, and
an end by elimination (a side is out once its commanders die, or once every unit of it is destroyed) in
place of the ranking at the time limit. The engine's conditions do it: `protect_target` of a side's
commanders puts its alliance out when they are dead (`mode: all` over an alliance's tagged commanders),
`last_survivor` ends the game when one alliance has anything left."""
from __future__ import annotations

import math

from engine.catalog import load_catalog
from genesis.models import Concepts, UnitPlacement

COMMANDER = "commander"
KITE_TAG = "kiters"       # the player's stated units the reference kites with


GROUP_MAX = 4     # units of one start group: a rule spawns a larger one crowded round its point


def stated_army(army: dict[str, int], fallback: list[UnitPlacement]) -> list[UnitPlacement]:
    """The army a request states, in its order, in groups of at most GROUP_MAX of a type split evenly
    (5 tanks: 3 and 2); the family's own when it states none."""
    if not army:
        return fallback
    out = []
    for kind, n in army.items():
        parts = math.ceil(n / GROUP_MAX)
        out += [UnitPlacement(type=kind, count=n // parts + (k < n % parts)) for k in range(parts)]
    return out


def with_commander(groups: list[UnitPlacement], tag: str | None) -> list[UnitPlacement]:
    """`groups` with one commander tagged `tag` (a side is out once its tagged commanders die; untagged in
    a free-for-all, where each team's own commander is selected by its team): the stated commander when
    the army has one, else one more unit."""
    out = [g.model_copy(update={"tag": tag}) if g.type == COMMANDER else g for g in groups]
    if not any(g.type == COMMANDER for g in groups):
        out.insert(0, UnitPlacement(type=COMMANDER, count=1, tag=tag))
    return out


def kites(ours: dict[str, int], theirs: dict[str, int]) -> bool:
    """Every armed mobile unit of `ours` outruns and outranges every one of `theirs`: a stated army that
    loses a brawl and wins at its own range (rocket bots against assault bots)."""
    cat = load_catalog().units
    mine = [cat[t] for t in ours if cat[t].weapon and cat[t].speed > 0 and t != COMMANDER]
    foes = [cat[t] for t in theirs if cat[t].weapon and cat[t].speed > 0 and t != COMMANDER]
    return bool(mine and foes) and min(u.speed for u in mine) > max(u.speed for u in foes) \
        and min(u.weapon.range for u in mine) > max(u.weapon.range for u in foes)


def kite_tagged(groups: list[UnitPlacement]) -> tuple[list[UnitPlacement], list[dict]]:
    """`groups` with their untagged mobile units tagged for the reference's `kite` role, and that role."""
    cat = load_catalog().units
    out = [g.model_copy(update={"tag": KITE_TAG}) if g.tag is None and cat[g.type].speed > 0 else g for g in groups]
    count = sum(g.count for g in out if g.tag == KITE_TAG)
    return out, [{"role": "kite", "tag": KITE_TAG, "count": count}]


def commander_tag(alliance: int) -> str:
    return f"side_{alliance + 1}_commander"


def conditions(elimination: str, alliances: list[int], tagged: bool = True) -> list[dict]:
    """The end by elimination of alliances led by the teams `alliances` (one team of each alliance): with
    `tagged` an alliance's commanders carry its tag, else each lead team's own commander is selected."""
    if elimination == "units":
        return [{"kind": "last_survivor", "mobile_only": False}]
    return [{"kind": "protect_target", "team": lead, "mode": "all",
             "target": {"tag": commander_tag(k)} if tagged else {"team": lead, "type": COMMANDER}}
            for k, lead in enumerate(alliances)]


def win_expects(elimination: str, player: int) -> list[dict]:
    """The player's win comes from the elimination of the others, not from the clock or a ranking."""
    why = "last survivor" if elimination == "units" else COMMANDER
    return [{"result": {"winners_include": player, "ended_by": "condition", "reason_contains": why}}]


def ending_text(c: Concepts, who: str) -> str:
    """How the game ends, for the agent description; `who` names the sides ("alliance", "team")."""
    out = "every commander of it is dead" if c.elimination == "commanders" else "every unit of it is destroyed"
    article = "An" if who[0] in "aeiou" else "A"
    return (f"{article} {who} is out once {out}; the last {who} left wins. If more than one {who} is still in after "
            f"{c.time_limit / 60:g} minutes, nobody wins.")
