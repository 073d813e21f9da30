"""Short-term event log of one team: what happened between two agent decisions.

RTSGameAgent's short-term memory: enemy sightings within allied line of sight (an enemy unit that
was not visible at the previous collection) and battle events of the game (engagements of own
squads, units lost and killed, messages, eliminations). `collect(sim, ...)` runs at every FSM
call, so sightings between decisions are caught; `drain()` hands the buffer over and flushes it.
The buffer is bounded: past MAX_EVENTS the oldest entries are dropped and counted.
"""
from __future__ import annotations

import numpy as np

MAX_EVENTS = 200


class EventLog:
    def __init__(self, team: int):
        self.team = team
        self.events: list[dict] = []
        self.dropped = 0
        self._seen: set[int] = set()
        self._trace_at = 0

    def _add(self, event: dict) -> None:
        self.events.append(event)
        if len(self.events) > MAX_EVENTS:
            self.dropped += len(self.events) - MAX_EVENTS
            del self.events[:-MAX_EVENTS]

    def collect(self, sim, visible_enemies: np.ndarray, squad_log: list[dict]) -> None:
        """Record new sightings, new trace events and the squads' engagement entries."""
        w = sim.world
        now = round(float(sim.time), 2)
        current = set(int(i) for i in visible_enemies.tolist())
        for i in sorted(current - self._seen):
            self._add({"t": now, "kind": "sighted", "id": i, "type": w.type_name(i), "team": int(w.team[i]),
                       "x": round(float(w.x[i]), 1), "y": round(float(w.y[i]), 1)})
        self._seen = current
        while squad_log:
            entry = squad_log.pop(0)
            self._add({"kind": entry["event"], **{k: v for k, v in entry.items() if k != "event"}})
        events = sim.trace.events
        allies = sim.teams[self.team].allies
        for e in events[self._trace_at:]:
            kind = e.get("event")
            if kind == "death":
                side = "lost" if e.get("team") == self.team else (
                    "ally_lost" if e.get("team") in allies else
                    "killed" if e.get("killer_team") == self.team else "enemy_died")
                self._add({"t": e["t"], "kind": side, "type": e.get("type"), "team": e.get("team"),
                           "x": e.get("x"), "y": e.get("y")})
            elif kind == "message" and e.get("team") in (None, self.team):
                self._add({"t": e["t"], "kind": "message", "text": str(e.get("text", ""))[:200]})
            elif kind == "lose" and e.get("team") != self.team:
                self._add({"t": e["t"], "kind": "eliminated", "team": e.get("team")})
        self._trace_at = len(events)

    def drain(self) -> list[dict]:
        out, self.events = self.events, []
        return out


def summarize(events: list[dict], limit: int = 40) -> list[str]:
    """One line per event group: consecutive same-kind sightings / deaths of one type merge."""
    lines: list[str] = []
    groups: list[tuple[tuple, list[dict]]] = []
    for e in sorted(events, key=lambda e: e["t"]):
        key = (e["kind"], e.get("type"), e.get("team"), e.get("squad"), e.get("text"))
        if groups and groups[-1][0] == key and e["kind"] in ("sighted", "lost", "killed", "ally_lost", "enemy_died"):
            groups[-1][1].append(e)
        else:
            groups.append((key, [e]))
    for (kind, utype, team, squad, text), members in groups:
        first = members[0]
        t = f"t={first['t']:g}s"
        xs = [m["x"] for m in members if m.get("x") is not None]
        ys = [m["y"] for m in members if m.get("y") is not None]
        at = f" near ({sum(xs) / len(xs):.0f},{sum(ys) / len(ys):.0f})" if xs and ys else ""
        n = len(members)
        if kind == "sighted":
            lines.append(f"{t}: sighted {n} enemy {utype} (team {team}){at}")
        elif kind in ("lost", "ally_lost", "killed", "enemy_died"):
            who = {"lost": "we lost", "ally_lost": "our ally lost", "killed": "we destroyed",
                   "enemy_died": "enemies lost"}[kind]
            lines.append(f"{t}: {who} {n} {utype}{at}")
        elif kind == "engaged":
            lines.append(f"{t}: squad {squad} engaged enemies{at}")
        elif kind == "disengaged":
            lines.append(f"{t}: squad {squad} ended its engagement{at}, resuming {first.get('resumes')}")
        elif kind == "message":
            lines.append(f"{t}: message: {text}")
        elif kind == "eliminated":
            lines.append(f"{t}: team {team} was eliminated")
    if len(lines) > limit:
        lines = lines[:limit // 2] + [f"... {len(lines) - limit} more events ..."] + lines[-(limit - limit // 2):]
    return lines
