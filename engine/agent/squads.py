"""Squads: named groups of own units, each run by a small state machine (idle / moving / fighting).

This mirrors RTSGameAgent's squad FSM: the agent only says where a squad should go; fighting is
triggered on contact. A squad ordered with `move` that meets enemies switches to fighting
(attack-move onto the nearest contact) and resumes its trip once the contact is gone; an idle squad
likewise fights what comes close and then stands again. `move_force` ignores enemies until the
squad arrives. The manager re-evaluates every squad on `update(sim)`, which the agent interface
calls between decisions too (every FSM_PERIOD), so squads fight while the agent is thinking.
Engagements start and end as entries of `log` (battle events for an agent's memory).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from engine.world import NONE

IDLE, MOVING, FIGHTING = "idle", "moving", "fighting"
SQUAD_STATES = (IDLE, MOVING, FIGHTING)
SQUAD_COMMANDS = ("move", "move_force", "stop")
SQUAD_NAME = re.compile(r"^[A-Za-z0-9_\-]{1,32}$")

MAX_LOG = 256            # engagement entries kept for a reader that never drains them
CONTACT_MARGIN = 3.0     # tiles beyond weapon range at which a squad counts as "in contact"
RETARGET_SHIFT = 2.0     # re-issue a fight order only when the contact moved this far (quiet traces)


@dataclass
class Squad:
    name: str
    units: list[int] = field(default_factory=list)
    state: str = IDLE
    mode: str | None = None                 # "move" | "move_force" while a trip is under way
    goal: tuple[float, float] | None = None
    contact: tuple[float, float] | None = None   # where the squad is fighting

    def to_dict(self) -> dict:
        return {"name": self.name, "units": list(self.units), "state": self.state, "mode": self.mode,
                "goal": None if self.goal is None else [round(self.goal[0], 2), round(self.goal[1], 2)]}


class SquadManager:
    """The squads of one team. Orders go through `sim.issue`, so they are validated and traced."""

    def __init__(self, team: int):
        self.team = team
        self.squads: dict[str, Squad] = {}
        self.log: list[dict] = []           # engagements: {"t", "squad", "event": engaged|disengaged, "x", "y"}
        self._pruned: tuple | None = None   # (world, its version) at the last prune, until a unit joins

    # --- membership --------------------------------------------------------------------------------
    def assign(self, name: str, unit_ids: list[int]) -> Squad:
        """Put units into squad `name` (created if new), taking them out of any other squad."""
        wanted = set(int(u) for u in unit_ids)
        self._pruned = None
        for squad in self.squads.values():
            squad.units = [u for u in squad.units if u not in wanted]
        squad = self.squads.setdefault(name, Squad(name))
        squad.units = sorted(set(squad.units) | wanted)
        return squad

    def squad_of(self, unit_id: int) -> str | None:
        for squad in self.squads.values():
            if unit_id in squad.units:
                return squad.name
        return None

    def prune(self, sim) -> None:
        """Drop dead units; a squad that lost every unit is removed."""
        w = sim.world
        if self._pruned is not None and self._pruned[0] is w and self._pruned[1] == w.version:
            return      # no unit died or joined since the last prune (a unit never changes team)
        self._pruned = (w, w.version)
        for name in list(self.squads):
            squad = self.squads[name]
            squad.units = [u for u in squad.units if w.is_alive(u) and int(w.team[u]) == self.team]
            if not squad.units:
                del self.squads[name]

    # --- commands ----------------------------------------------------------------------------------
    def command(self, sim, name: str, kind: str, x: float | None = None, y: float | None = None) -> tuple[bool, str | None]:
        """Start a squad command now; returns the simulator's (ok, error_code) for the first order."""
        squad = self.squads.get(name)
        if squad is None:
            return False, "unknown_squad"
        self.prune(sim)
        if name not in self.squads:
            return False, "empty_squad"
        if kind == "stop":
            ok, err = sim.issue(self.team, {"kind": "stop", "units": squad.units})
            if ok:
                squad.state, squad.mode, squad.goal, squad.contact = IDLE, None, None, None
            return ok, err
        if kind not in ("move", "move_force"):
            return False, "unknown_command"
        ok, err = sim.issue(self.team, {"kind": kind, "units": squad.units, "x": x, "y": y})
        if ok:
            squad.state, squad.mode, squad.goal, squad.contact = MOVING, kind, (float(x), float(y)), None
        return ok, err

    # --- the state machine -------------------------------------------------------------------------
    def update(self, sim, enemy_ids: np.ndarray) -> None:
        """Advance every squad's FSM. `enemy_ids`: enemy units this team can currently see."""
        self.prune(sim)
        w = sim.world
        quiet = not enemy_ids.size
        for name in sorted(self.squads):
            squad = self.squads[name]
            if quiet and squad.state == IDLE and squad.mode != "move_force":
                continue        # no contact to make and no trip to finish
            ids = np.array(squad.units, dtype=np.int64)
            if squad.mode == "move_force":
                if self._arrived(w, squad, ids):
                    squad.state, squad.mode, squad.goal = IDLE, None, None
                continue
            contact = self._contact(w, ids, enemy_ids)
            if contact is not None:
                self._fight(sim, squad, contact)
            elif squad.state == FIGHTING:
                cx, cy = squad.contact or (float(w.x[ids].mean()), float(w.y[ids].mean()))
                self._note({"t": round(float(sim.time), 2), "squad": name, "event": "disengaged",
                            "x": round(cx, 1), "y": round(cy, 1), "resumes": squad.mode or "stop"})
                squad.contact = None
                if squad.mode == "move" and squad.goal is not None:
                    sim.issue(self.team, {"kind": "move", "units": squad.units, "x": squad.goal[0], "y": squad.goal[1]})
                    squad.state = MOVING
                else:
                    sim.issue(self.team, {"kind": "stop", "units": squad.units})
                    squad.state = IDLE
            elif squad.state == MOVING and self._arrived(w, squad, ids):
                squad.state, squad.mode, squad.goal = IDLE, None, None

    def _note(self, entry: dict) -> None:
        self.log.append(entry)
        if len(self.log) > MAX_LOG:
            del self.log[:-MAX_LOG]

    def _fight(self, sim, squad: Squad, contact: tuple[float, float]) -> None:
        """Attack-move onto the contact (re-aimed only when it has moved noticeably)."""
        ids = np.array(squad.units, dtype=np.int64)
        # units that reached the old contact point drop their order; re-aim them so they keep chasing
        if squad.state == FIGHTING and squad.contact is not None and \
                math.dist(squad.contact, contact) < RETARGET_SHIFT and (sim.world.order[ids] != NONE).all():
            return
        ok, _ = sim.issue(self.team, {"kind": "fight", "units": squad.units, "x": contact[0], "y": contact[1]})
        if ok:
            if squad.state != FIGHTING:
                self._note({"t": round(float(sim.time), 2), "squad": squad.name, "event": "engaged",
                            "x": round(contact[0], 1), "y": round(contact[1], 1)})
            squad.state, squad.contact = FIGHTING, contact

    @staticmethod
    def _contact(w, ids: np.ndarray, enemy_ids: np.ndarray) -> tuple[float, float] | None:
        """Position of the nearest enemy within weapon range + margin of any member, else None."""
        if not enemy_ids.size:
            return None
        armed = ids[w.armed[ids]]
        if not armed.size:
            return None
        dx = w.x[armed][:, None] - w.x[enemy_ids][None, :]
        dy = w.y[armed][:, None] - w.y[enemy_ids][None, :]
        d = np.hypot(dx, dy)
        reach = (w.w_range[armed] + CONTACT_MARGIN)[:, None]
        # a weapon that cannot hit the target kind does not make contact (e.g. AA vs tanks)
        hittable = np.where(w.is_air[enemy_ids][None, :], w.hits_air[armed][:, None], w.hits_ground[armed][:, None])
        d = np.where((d <= reach) & hittable, d, np.inf)
        best = int(np.argmin(d.min(axis=0)))
        if not np.isfinite(d[:, best].min()):
            return None
        e = int(enemy_ids[best])
        return float(w.x[e]), float(w.y[e])

    @staticmethod
    def _arrived(w, squad: Squad, ids: np.ndarray) -> bool:
        """Every member has finished its order (the simulator clears it on arrival), or the
        centroid is within a blob radius of the goal."""
        if (w.order[ids] == NONE).all():
            return True
        if squad.goal is None:
            return True
        cx, cy = float(w.x[ids].mean()), float(w.y[ids].mean())
        return math.dist((cx, cy), squad.goal) <= 1.0 + 0.5 * math.sqrt(len(ids))

    def to_list(self) -> list[dict]:
        return [self.squads[n].to_dict() for n in sorted(self.squads)]
