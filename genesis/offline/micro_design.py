"""The offline micro-skirmish family: a small squad against an enemy force, nothing built.

The squad starts at the centre of an open map (no cliffs or water to hide behind); the enemy force
starts on one of the eight compass sides round it, drawn per seed (library rule `seeded_layout`), and
attacks at once (the `waves` AI, re-sent every few seconds at the squad). Destroying every enemy unit
wins (`eliminate_enemy`); the deadline, or losing more units than the request allows, loses. When
the squad outruns and outranges the enemy the reference plays the `kite` role
(`engine.agent.reference.roles`): it fights at its own range and backs off from theirs; otherwise it
fights as one army (`fight`).
"""
from __future__ import annotations

import math

from engine.agent.scripted import Probe, ScriptedOrder
from engine.catalog import load_catalog
from genesis.models import GDD, Brief, Concepts, RuleComponent, SeedVariation, TeamPlan, UnitPlacement, Variation
from genesis.offline import geometry as G
from genesis.offline import layout_variation as LV

PLAYER, ENEMY = 0, 1
SQUAD_TAG = "squad"
SIDES = ("n", "ne", "e", "se", "s", "sw", "w", "nw")
ENEMY_DIST = 0.33         # share of the map's side between the squad and the enemy's start ...
ENEMY_DIST_RANGE = (0.22, 0.45)   # ... within these, farther for a weaker enemy (the asked forces never change)
MAP_SIDE = 72             # tiles: the generated open field, room to back off in every direction
WAVE_EVERY = 5.0          # seconds between the enemy AI's re-sends at the squad
GROUP = 4                 # units per start group (a crowd on one tile spreads out)


def kites(c: Concepts) -> bool:
    """The squad outruns and outranges the enemy: fighting at its own range pays."""
    cat = load_catalog().units
    mine, theirs = cat[next(iter(c.squad))], cat[next(iter(c.enemy_force))]
    return bool(mine.weapon and theirs.weapon and mine.speed > theirs.speed
                and mine.weapon.range > theirs.weapon.range)


def field_map(c: Concepts) -> dict:
    if c.map_hint:
        return {"name": c.map_hint}
    return {"generate": {"width": MAP_SIDE, "height": MAP_SIDE, "seed": 7, "cliff_density": 0.0,
                         "water_density": 0.0, "deposits": 4, "symmetry": "rotational"}}


def _groups(m, force: dict[str, int], at: tuple[float, float], taken: list[tuple[float, float]], tag: str | None
            ) -> list[UnitPlacement]:
    out = []
    for t, n in force.items():
        for k in range(0, n, GROUP):
            x, y = G.passable_near(m, at[0] + (k // GROUP) * 2.0, at[1], taken, 2.5, True)
            taken.append((x, y))
            out.append(UnitPlacement(type=t, count=min(GROUP, n - k), x=round(x, 1), y=round(y, 1), tag=tag))
    return out


def design(brief: Brief, c: Concepts, strength: float, requirements) -> GDD:
    """The skirmish GDD; `requirements(expects)` attaches the evidence to the brief's requirements. The
    enemy strength the PM asks for moves the enemy's start: farther for a weaker enemy (more time under
    the squad's fire before it closes in), nearer for a stronger one; the forces stay the asked ones."""
    map_ref = field_map(c)
    m = G.load(map_ref)
    centre = (m.width / 2, m.height / 2)
    squad = _groups(m, c.squad, centre, [], SQUAD_TAG)
    reach = min(max(ENEMY_DIST / strength, ENEMY_DIST_RANGE[0]), ENEMY_DIST_RANGE[1]) * min(m.width, m.height)
    layouts = []
    for side in SIDES:
        vx, vy = G.COMPASS_VECTORS[side]
        n = math.hypot(vx, vy) or 1.0
        at = (centre[0] + vx / n * reach, centre[1] + vy / n * reach)
        groups = _groups(m, c.enemy_force, at, [(u.x, u.y) for u in squad], None)
        layouts.append({"name": f"enemy from the {side}", "units": LV.army_entries(ENEMY, groups)})
    n_squad, n_enemy = sum(c.squad.values()), sum(c.enemy_force.values())
    deadline = float(c.deadline)
    params = {"team": PLAYER, "enemy_team": ENEMY, "deadline": deadline}
    if c.max_losses is not None:
        params["max_losses"] = c.max_losses
    comps = [
        LV.layout_component(layouts, ["armies"], f"the enemy force starts on one of {len(layouts)} sides of the squad, "
                                                 "drawn per seed"),
        RuleComponent(id="skirmish", purpose="destroying every enemy unit wins; the deadline and too many losses lose",
                      kind="objective", library_rule="eliminate_enemy",
                      requirement_ids=["eliminate_win", "deadline"] + (["max_losses"] if c.max_losses is not None
                                                                       else []), params=params),
    ]
    won = {"result": {"winners_include": PLAYER, "reason_contains": "every enemy unit destroyed",
                      "duration_max": deadline}}
    expects = {
        "eliminate_win": [won, {"event": "rule_log", "where": {"rule": "skirmish", "name": "enemy_eliminated",
                                                               "fields.killed": n_enemy}, "min": 1, "max": 1}],
        "armies": [
            {"event": "rule_log", "where": {"rule": "skirmish", "name": "skirmish", "fields.units": n_squad,
                                            "fields.enemies": n_enemy}, "min": 1, "max": 1},
            *[{"event": "spawn", "where": {"source": "start", "team": PLAYER, "type": t}, "min": n, "max": n}
              for t, n in c.squad.items()],
            *[{"event": "spawn", "where": {"source": "rule", "team": ENEMY, "type": t}, "min": n, "max": n}
              for t, n in c.enemy_force.items()]],
        "enemy_attacks": {"idle": [{"result": {"losers_include": PLAYER}},
                                   {"event": "rule_log", "where": {"rule": "skirmish", "name": "unit_lost"},
                                    "min": 1}]},
        "deadline": [won, {"event": "rule_log", "where": {"rule": "skirmish", "name": "skirmish",
                                                          "fields.deadline": deadline}, "min": 1, "max": 1}],
        "max_losses": [{"event": "rule_log", "where": {"rule": "skirmish", "name": "skirmish",
                                                       "fields.max_losses": c.max_losses}, "min": 1, "max": 1},
                       {"event": "rule_log", "where": {"rule": "skirmish", "name": "losses_exceeded"}, "max": 0}],
    }
    kite = kites(c)
    roles = [{"role": "kite", "tag": SQUAD_TAG, "count": n_squad}] if kite else []
    teams = [TeamPlan(id=PLAYER, name="Squad", role="player", controller={"type": "agent"}, units=squad),
             TeamPlan(id=ENEMY, name="Enemy force", role="enemy", controller=LV.waves(PLAYER, 0.0, WAVE_EVERY))]
    mine, theirs = _names(c.squad), _names(c.enemy_force)
    desc = (f"Nothing is built. Your {mine} stand in the middle of an open field; {theirs} start on a side that "
            f"changes from game to game and attack at once. Destroy every enemy unit within {deadline / 60:g} minutes"
            + (f", losing no more than {c.max_losses} of your units" if c.max_losses is not None else "") + "."
            + (" Your units are faster and outrange theirs: fight at your range and back off from theirs."
               if kite else ""))
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=False,
               time_limit=deadline + 30, requirements=requirements(expects),
               win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="fight",
               strategy_params={"home": list(centre), "roles": roles},
               variation=variation(layouts, centre, reach))


def _names(force: dict[str, int]) -> str:
    return " and ".join(f"{n} {t.replace('_', ' ')}{'s' if n > 1 else ''}" for t, n in force.items())


def variation(layouts: list[dict], centre: tuple[float, float], reach: float) -> Variation:
    """What the seed draws (the enemy's side) and the blind plans that must not win: charging the side
    the enemy came from last game, and backing off to a fixed corner."""
    first = layouts[0]["units"][0]
    corner = (centre[0] - 0.9 * reach, centre[1] + 0.9 * reach)
    return Variation(
        varies=[SeedVariation(what=f"which of the {len(layouts)} sides round the squad the enemy force starts on",
                              how="layout.layouts",
                              observe="see where the enemy comes from and fight it on your terms; a fixed route of "
                                      "retreat or attack meets the enemy where the last game had open ground")],
        probes=[Probe(name="charge_fixed_side", exploit="the squad attack-moves to where the enemy started in one game",
                      orders=[ScriptedOrder(t=0, kind="fight", x=first["x"], y=first["y"], tag=SQUAD_TAG)]),
                Probe(name="fixed_retreat", exploit="the squad walks to a fixed corner, then fights there",
                      orders=[ScriptedOrder(t=0, kind="move", x=round(corner[0], 1), y=round(corner[1], 1),
                                            tag=SQUAD_TAG),
                              ScriptedOrder(t=20, kind="fight", x=round(centre[0], 1), y=round(centre[1], 1),
                                            tag=SQUAD_TAG)])],
        knob="layout.layouts")
