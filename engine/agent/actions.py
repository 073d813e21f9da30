"""The action schema benchmark agents use, its validation, and the count of invalid actions.

An action is a JSON object with an `action` field:

    {"action": "build", "builders": [ids], "unit_type": "metal_extractor", "x": 10, "y": 12}
    {"action": "produce", "factory": id, "unit_type": "light_bot", "count": 3}
    {"action": "move_units", "units": [ids], "x": 30, "y": 8, "mode": "move"}   # or move_force / fight / patrol
    {"action": "stop_units", "units": [ids]}
    {"action": "assign_squad", "squad": "alpha", "units": [ids]}
    {"action": "squad_move", "squad": "alpha", "x": 30, "y": 8}        # fights on contact, then goes on
    {"action": "squad_move_force", "squad": "alpha", "x": 30, "y": 8}  # ignores enemies
    {"action": "squad_stop", "squad": "alpha"}

Schema problems are caught here; everything that depends on the game state is checked by the
simulator's order API (`sim.issue`), whose error code is passed through unchanged. A unit given a
direct order (`move_units`, `stop_units`, `build`) leaves its squad, so the squad FSM does not
override the agent.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from engine.agent.squads import SQUAD_NAME, SquadManager

# code -> what the agent is told; the first block is this layer's, the rest the simulator's.
ERROR_CODES: dict[str, str] = {
    "bad_action": "the action is not an object with the fields its kind needs (see the schema)",
    "unknown_action": "unknown `action` kind",
    "bad_squad_name": "squad names are 1-32 letters, digits, '_' or '-'",
    "unknown_squad": "no squad of that name (assign units to it first)",
    "squads_disabled": "squads are off in this setup: give units orders with move_units / stop_units",
    "empty_squad": "every unit of that squad is dead",
    "bad_order": "malformed order fields",
    "unknown_order": "unknown order kind",
    "unknown_unit": "no living unit with that id",
    "not_owner": "that unit belongs to another team",
    "not_mobile": "buildings cannot move",
    "off_map": "the point is outside the map",
    "impassable": "ground units cannot go or build there (water / cliff)",
    "unknown_type": "unknown unit type",
    "cannot_build": "that unit cannot build / produce this type (or the factory is unfinished)",
    "tech_locked": "this type needs a higher-tier builder or factory",
    "production_disabled": "production and construction are disabled in this level",
    "needs_deposit": "extractors must be placed on a metal deposit",
    "site_blocked": "another building or unit occupies the site",
    "insufficient_resources": "no resources and no income to pay for it",
}

MOVE_MODES = ("move", "move_force", "fight", "patrol")
# kind -> (required fields, optional fields)
SCHEMA: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "build": (("builders", "unit_type", "x", "y"), ()),
    "produce": (("factory", "unit_type"), ("count",)),
    "move_units": (("units", "x", "y"), ("mode",)),
    "stop_units": (("units",), ()),
    "assign_squad": (("squad", "units"), ()),
    "squad_move": (("squad", "x", "y"), ()),
    "squad_move_force": (("squad", "x", "y"), ()),
    "squad_stop": (("squad",), ()),
}

SQUAD_ACTIONS = ("assign_squad", "squad_move", "squad_move_force", "squad_stop")


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) and math.isfinite(v)


def _ids(v: Any) -> bool:
    return isinstance(v, list) and len(v) > 0 and all(_is_int(u) for u in v)


_FIELD_CHECKS = {
    "builders": _ids, "units": _ids, "factory": _is_int, "unit_type": lambda v: isinstance(v, str),
    "x": _is_num, "y": _is_num, "count": lambda v: _is_int(v) and 1 <= v <= 50,
    "mode": lambda v: v in MOVE_MODES, "squad": lambda v: isinstance(v, str),
}


def check_schema(action: Any) -> tuple[str | None, str]:
    """(error_code, message) for a malformed action, (None, "") for a well-formed one."""
    if not isinstance(action, dict):
        return "bad_action", f"expected an object, got {type(action).__name__}"
    kind = action.get("action")
    if not isinstance(kind, str) or kind not in SCHEMA:   # any JSON value may arrive here
        return "unknown_action", f"unknown action {kind!r}; known: {', '.join(SCHEMA)}"
    required, optional = SCHEMA[kind]
    missing = [f for f in required if f not in action]
    if missing:
        return "bad_action", f"{kind}: missing field(s) {', '.join(missing)}"
    extra = sorted(set(action) - {"action", *required, *optional})
    if extra:
        return "bad_action", f"{kind}: unknown field(s) {', '.join(extra)}"
    for f in (*required, *optional):
        if f in action and not _FIELD_CHECKS[f](action[f]):
            return "bad_action", f"{kind}: invalid value for {f}: {action[f]!r}"
    if "squad" in action and not SQUAD_NAME.match(action["squad"]):
        return "bad_squad_name", f"{kind}: {ERROR_CODES['bad_squad_name']}"
    return None, ""


class ActionLayer:
    """Executes one team's actions against a simulation and keeps the tally of invalid ones."""

    def __init__(self, team: int, squads: SquadManager | None = None, squads_enabled: bool = True):
        self.team = team
        self.squads = squads if squads is not None else SquadManager(team)
        self.squads_enabled = squads_enabled
        self.invalid_counts: Counter[str] = Counter()
        self.valid_count = 0
        self.last_errors: list[dict] = []

    def execute(self, sim, actions: list[Any]) -> list[dict]:
        """Run actions in order; returns one {"index", "ok", "code", "message"} per action."""
        results = []
        self.last_errors = []
        for index, action in enumerate(actions):
            code, message = check_schema(action)
            if code is None:
                code = self._apply(sim, action)
                message = ERROR_CODES.get(code, code or "")
            ok = code is None
            result = {"index": index, "ok": ok, "code": code, "message": "" if ok else message}
            results.append(result)
            if ok:
                self.valid_count += 1
            else:
                self.invalid_counts[code] += 1
                self.last_errors.append({**result, "action": action})
        return results

    def _apply(self, sim, a: dict) -> str | None:
        kind = a["action"]
        if kind in SQUAD_ACTIONS and not self.squads_enabled:
            return "squads_disabled"
        if kind == "assign_squad":
            return self._assign(sim, a)
        if kind.startswith("squad_"):
            command = kind[len("squad_"):]
            ok, code = self.squads.command(sim, a["squad"], command, a.get("x"), a.get("y"))
            return None if ok else code
        if kind == "produce":
            order = {"kind": "produce", "factory": int(a["factory"]), "type": a["unit_type"], "count": int(a.get("count", 1))}
            units: list[int] = []
        elif kind == "build":
            units = [int(u) for u in a["builders"]]
            order = {"kind": "build", "units": units, "type": a["unit_type"], "x": float(a["x"]), "y": float(a["y"])}
        elif kind == "stop_units":
            units = [int(u) for u in a["units"]]
            order = {"kind": "stop", "units": units}
        else:  # move_units
            units = [int(u) for u in a["units"]]
            order = {"kind": a.get("mode", "move"), "units": units, "x": float(a["x"]), "y": float(a["y"])}
        ok, code = sim.issue(self.team, order)
        if ok and units:
            self._detach(units)
        return None if ok else code

    def _assign(self, sim, a: dict) -> str | None:
        w = sim.world
        for u in a["units"]:
            u = int(u)
            if not w.is_alive(u):
                return "unknown_unit"
            if int(w.team[u]) != self.team:
                return "not_owner"
            if w.speed[u] <= 0:
                return "not_mobile"
        self.squads.assign(a["squad"], [int(u) for u in a["units"]])
        return None

    def _detach(self, units: list[int]) -> None:
        gone = set(units)
        for squad in self.squads.squads.values():
            squad.units = [u for u in squad.units if u not in gone]
        for name in [n for n, s in self.squads.squads.items() if not s.units]:
            del self.squads.squads[name]

    def counts(self) -> dict:
        return {"valid": self.valid_count, "invalid": sum(self.invalid_counts.values()),
                "invalid_by_code": dict(sorted(self.invalid_counts.items()))}
