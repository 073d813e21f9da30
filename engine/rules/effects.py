"""What rules do to units and teams beyond spawning and ordering: damage, heal, take and move
resources, change a unit's sight, its permission to fire, its cloak, its detection or its side. Inputs arrive validated (api.py);
every effect that changed something leaves a trace event naming the rule."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.world import NONE

if TYPE_CHECKING:
    from engine.sim import Simulation


def damage(sim: Simulation, ids: np.ndarray, amount: float, rule: str, **where: float) -> dict:
    """Take `amount` hp from each living unit of `ids` (armour ignored: nobody fired); those left at
    0 hp die through the engine's death path, killed by no team. The teams' damage statistics (and so
    rankings by damage efficiency) count only what teams deal each other."""
    w = sim.world
    ids = ids[w.alive[ids]]
    if not ids.size:
        return {"units": 0, "dealt": 0.0, "killed": []}
    dealt = np.minimum(w.hp[ids], amount)
    w.hp[ids] -= dealt
    killed = ids[w.hp[ids] <= 0].tolist()
    sim.trace.add(sim.time, "rule_damage", rule=rule, ids=ids.tolist(), teams=_teams(w, ids), amount=amount,
                  dealt=float(dealt.sum()), killed=killed, **where)
    sim.kill_by_rule(killed, rule)
    return {"units": int(ids.size), "dealt": round(float(dealt.sum()), 3), "killed": killed}


def _teams(w, ids: np.ndarray) -> list[int]:
    """The sides of the units an effect touched, for an expectation to filter on (`where: {teams: 0}`)."""
    return sorted(set(w.team[ids].tolist()))


def heal(sim: Simulation, ids: np.ndarray, amount: float, rule: str, **where: float) -> dict:
    """Give `amount` hp to each living unit of `ids`, never above its max hp."""
    w = sim.world
    ids = ids[w.alive[ids]]
    if not ids.size:
        return {"units": 0, "healed": 0.0}
    gained = np.clip(w.max_hp[ids] - w.hp[ids], 0.0, amount)
    w.hp[ids] += gained
    sim.trace.add(sim.time, "rule_heal", rule=rule, ids=ids.tolist(), teams=_teams(w, ids), amount=amount,
                  healed=float(gained.sum()), **where)
    return {"units": int(ids.size), "healed": round(float(gained.sum()), 3)}


def take_resources(sim: Simulation, team: int, metal: float, energy: float, rule: str) -> dict:
    """Remove up to (metal, energy) from `team`; never below zero. Returns what was taken."""
    s = sim.teams[team]
    got_m, got_e = min(metal, s.metal), min(energy, s.energy)
    s.metal -= got_m
    s.energy -= got_e
    sim.trace.add(sim.time, "resources_taken", rule=rule, team=team, metal=got_m, energy=got_e)
    return {"metal": round(got_m, 3), "energy": round(got_e, 3)}


def transfer_resources(sim: Simulation, src: int, dst: int, metal: float, energy: float, rule: str) -> dict:
    """Move up to (metal, energy) from `src` to `dst` (what `src` has at most). Returns what moved."""
    a, b = sim.teams[src], sim.teams[dst]
    got_m, got_e = min(metal, a.metal), min(energy, a.energy)
    a.metal -= got_m
    a.energy -= got_e
    b.metal += got_m
    b.energy += got_e
    sim.trace.add(sim.time, "resources_transferred", rule=rule, **{"from": src, "to": dst}, metal=got_m, energy=got_e)
    return {"metal": round(got_m, 3), "energy": round(got_e, 3)}


def _set_field(sim: Simulation, ids: np.ndarray, name: str, value, event: str, rule: str, **traced) -> np.ndarray:
    """Sets the world field `name` of the living units of `ids` to `value` and traces it; returns those units."""
    w = sim.world
    ids = ids[w.alive[ids]]
    if ids.size:
        getattr(w, name)[ids] = value
        sim.trace.add(sim.time, event, rule=rule, ids=ids.tolist(), **traced)
    return ids


def set_sight(sim: Simulation, ids: np.ndarray, radius: float, rule: str) -> int:
    ids = _set_field(sim, ids, "sight", radius, "rule_sight", rule, radius=radius)
    if ids.size:
        sim.vision.sight_changed()
    return int(ids.size)


def set_fire(sim: Simulation, ids: np.ndarray, allowed: bool, rule: str) -> int:
    """A unit that may not fire drops its target now and acquires none until allowed again."""
    ids = _set_field(sim, ids, "no_fire", not allowed, "rule_fire", rule, allowed=allowed)
    if ids.size and not allowed:
        sim.world.target[ids] = -1
        sim.world.fire_banned += int(ids.size)
    return int(ids.size)


def set_cloak(sim: Simulation, ids: np.ndarray, on: bool, rule: str) -> int:
    """Cloaked units are hidden from other sides until detected (engine/systems/cloak.py)."""
    ids = _set_field(sim, ids, "cloaked", on, "rule_cloak", rule, cloaked=on)
    sim.world.cloak_used = sim.world.cloak_used or (on and bool(ids.size))
    return int(ids.size)


def set_detector(sim: Simulation, ids: np.ndarray, radius: float, rule: str) -> int:
    return int(_set_field(sim, ids, "detect", radius, "rule_detector", rule, radius=radius).size)


def set_team(sim: Simulation, ids: np.ndarray, team: int, rule: str) -> int:
    """The units change sides where they stand, keeping their hp; they stop (their old orders and target
    were another side's) and every system reads them as the new side's from this tick."""
    w = sim.world
    ids = ids[w.alive[ids] & (w.team[ids] != team)]
    if not ids.size:
        return 0
    old = w.team[ids].tolist()
    w.team[ids] = team
    w.target[ids] = -1
    w.order[ids] = NONE
    w.dest[ids] = w.pos[ids]
    w.version += 1                  # every cache keyed on the units (vision, movement, squads) is read anew
    sim.trace.add(sim.time, "rule_team", rule=rule, ids=ids.tolist(), team=team, **{"from": old})
    return int(ids.size)
