"""A compact recording of one run, for the browser replay viewer and for rendered frames and GIFs.

`ReplayRecorder` samples the simulation every `every` game seconds and keeps, per sample, only the
units whose quantised state changed (position in 1/QUANT tile, hp in whole percent, under
construction) and the ids that disappeared. Static facts (unit type, team, tag; type constants; the
terrain as run lengths) are stored once. Key events — waves, contacts, objective losses, deaths,
wins, losses and the end — are derived from the engine trace and the samples, so a viewer can put
them on its timeline and a frame renderer can capture them.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from engine.snapshot import CATEGORIES, ENVIRONMENT, Marker, Shape, Snapshot

QUANT = 4                # positions are stored in quarter tiles
REKEYED_FROM = 1 << 24   # replay ids of units that changed side start here (world ids stay below)
SETUP_S = 1.0            # rule spawns before this set the start up (a drawn layout), not a wave
WAVE_GAP_S = 5.0         # rule spawns of one team closer than this belong to one wave
CONTACT_GAP_S = 15.0     # a contact after this long without one starts a new engagement
CONTACT_SLACK = 0.5      # tiles beyond weapon range that still count as contact
FLAG_BUILDING = 1        # under construction
MAX_SAMPLES = 900        # bounds the recording of long games

EventKind = Literal["wave", "contact", "objective_lost", "death", "lose", "win", "end", "message", "side_change"]
KEY_EVENTS = ("wave", "contact", "objective_lost", "side_change", "end")   # the ones frames and GIFs must show


class ReplayTeam(BaseModel):
    id: int
    name: str
    color: str
    allies: list[int]
    player: bool


class ReplayType(BaseModel):
    category: str
    hp: float
    sight: float
    size: float
    range: float


class ReplayUnit(BaseModel):
    id: int
    type: str
    team: int
    tag: str | None = None


class ReplayFrame(BaseModel):
    t: float
    u: list[int] = Field(default_factory=list, description="id, x*QUANT, y*QUANT, hp %, flags for each changed unit")
    gone: list[int] = Field(default_factory=list, description="ids that no longer exist")


class ReplayMarker(BaseModel):
    t: float
    x: float
    y: float
    label: str
    color: str


class ReplayShape(BaseModel):
    """A rule's area from time t on, until the next entry with its id; kind "gone" once removed."""
    t: float
    id: int
    kind: Literal["circle", "rect", "gone"]
    x: float = 0.0
    y: float = 0.0
    half_w: float = 0.0
    half_h: float = 0.0
    label: str = ""
    color: str = ""


class ReplayEvent(BaseModel):
    t: float
    kind: EventKind
    label: str
    x: float | None = None
    y: float | None = None
    team: int | None = None


class ReplayEnd(BaseModel):
    ended_by: str = ""
    reason: str = ""
    winners: list[int] = Field(default_factory=list)
    losers: list[int] = Field(default_factory=list)
    duration: float = 0.0


class Replay(BaseModel):
    version: int = 1
    title: str
    width: int
    height: int
    quant: int = QUANT
    terrain: list[int] = Field(description="run lengths over the row-major terrain codes: code, count, code, count, ...")
    deposits: list[list[float]]
    fog: bool
    teams: list[ReplayTeam]
    types: dict[str, ReplayType]
    units: list[ReplayUnit]
    frames: list[ReplayFrame]
    markers: list[ReplayMarker] = Field(default_factory=list)
    shapes: list[ReplayShape] = Field(default_factory=list)
    events: list[ReplayEvent] = Field(default_factory=list)
    end: ReplayEnd = Field(default_factory=ReplayEnd)

    def key_events(self) -> list[ReplayEvent]:
        return [e for e in self.events if e.kind in KEY_EVENTS]


def _runs(codes: np.ndarray) -> list[int]:
    flat = codes.ravel()
    if flat.size == 0:
        return []
    starts = np.flatnonzero(np.r_[True, flat[1:] != flat[:-1]])
    counts = np.diff(np.r_[starts, flat.size])
    return np.column_stack([flat[starts], counts]).ravel().astype(int).tolist()


def terrain_codes(replay: Replay) -> np.ndarray:
    pairs = np.asarray(replay.terrain, dtype=np.int64).reshape(-1, 2)
    return np.repeat(pairs[:, 0], pairs[:, 1]).astype(np.uint8).reshape(replay.height, replay.width)


def _compass(x: float, y: float, width: int, height: int) -> str:
    dx, dy = x - width / 2, y - height / 2
    if math.hypot(dx / max(width, 1), dy / max(height, 1)) < 0.12:
        return "centre"
    names = ("east", "south-east", "south", "south-west", "west", "north-west", "north", "north-east")
    return names[round(math.atan2(dy, dx) / (math.pi / 4)) % 8]


class ReplayRecorder:
    """Samples a Simulation; call `observe(sim)` between steps and `finish(sim)` at the end.
    By default a sample a second, fewer for games longer than MAX_SAMPLES seconds."""

    def __init__(self, sim, every: float | None = None):
        limit = float(sim.config.switches.time_limit or 0)
        self.every = every if every is not None else max(1.0, limit / MAX_SAMPLES)
        self.next_t = 0.0
        self.units: dict[int, ReplayUnit] = {}
        self.key: dict[int, int] = {}           # world id -> its replay id (a new one each time it changes side)
        self._next_key = REKEYED_FROM
        self.state: dict[int, tuple[int, int, int, int]] = {}
        self.frames: list[ReplayFrame] = []
        self.markers: list[ReplayMarker] = []
        self._marker_keys: set[tuple] = set()
        self.shapes: list[ReplayShape] = []
        self._shapes: dict[int, Shape] = {}      # each area as last recorded
        self.contacts: list[tuple[float, float, float]] = []
        self._last_contact = -math.inf
        types = sim.world.types
        self.w_range = types.w_range
        self.hostile = sim.hostile

    def observe(self, sim) -> None:
        if sim.time + 1e-9 >= self.next_t:
            self.sample(sim)
            self.next_t = sim.time + self.every

    def sample(self, sim) -> None:
        snap = sim.snapshot()
        ids = snap.ids.tolist()
        qx = np.rint(snap.x * QUANT).astype(int).tolist()
        qy = np.rint(snap.y * QUANT).astype(int).tolist()
        hp = np.rint(snap.hp_frac * 100).astype(int).tolist()
        flags = np.where(snap.under_construction, FLAG_BUILDING, 0).tolist()
        changed: list[int] = []
        now: dict[int, tuple[int, int, int, int]] = {}
        for i, x, y, h, f, team in zip(ids, qx, qy, hp, flags, snap.team.tolist()):
            k = self.key.get(i)
            if k is None:
                k = self.key[i] = i
                info = sim.world.unit_dict(i)
                self.units[k] = ReplayUnit(id=k, type=info["type"], team=info["team"], tag=info["tag"])
            elif self.units[k].team != team:
                # a rule moved it to another side: from here it is a unit of that side, under a replay id of its own
                old, k = self.units[k], self._next_key
                self.key[i], self._next_key = k, k + 1
                self.units[k] = ReplayUnit(id=k, type=old.type, team=team, tag=old.tag)
            now[k] = (x, y, h, f)
            if self.state.get(k) != now[k]:
                changed += [k, x, y, h, f]
        gone = sorted(set(self.state) - set(now))
        self.state = now
        self.frames.append(ReplayFrame(t=round(snap.time, 2), u=changed, gone=gone))
        for m in snap.markers:
            key = (m.x, m.y, m.label, m.color)
            if key not in self._marker_keys:
                self._marker_keys.add(key)
                self.markers.append(ReplayMarker(t=round(snap.time, 2), x=m.x, y=m.y, label=m.label, color=m.color))
        self._record_shapes(snap)
        self._contact(sim, snap)

    def _record_shapes(self, snap: Snapshot) -> None:
        """An entry per area that appeared, changed or went since the last sample."""
        t = round(snap.time, 2)
        now = {s.id: s for s in snap.shapes}
        for sid, s in now.items():
            if self._shapes.get(sid) != s:
                self.shapes.append(ReplayShape(t=t, id=sid, kind=s.kind, x=round(s.x, 2), y=round(s.y, 2),
                                               half_w=round(s.half_w, 2), half_h=round(s.half_h, 2), label=s.label,
                                               color=s.color))
        for sid in sorted(set(self._shapes) - set(now)):
            self.shapes.append(ReplayShape(t=t, id=sid, kind="gone"))
        self._shapes = now

    def _contact(self, sim, snap: Snapshot) -> None:
        """Record the time and place where two hostile units first come within weapon range of each
        other after CONTACT_GAP_S without any such pair."""
        ready = ~snap.under_construction
        ids = snap.ids[ready]
        if ids.size < 2:
            return
        xy = np.column_stack([snap.x[ready], snap.y[ready]])
        team = snap.team[ready].astype(int)
        reach = sim.world.types.w_range[sim.world.type[ids]] + CONTACT_SLACK
        for start in range(0, ids.size, 256):    # rows in chunks bound the pairwise matrix
            d = np.linalg.norm(xy[start:start + 256, None, :] - xy[None, :, :], axis=-1)
            hit = (d <= reach[start:start + 256, None]) & self.hostile[team[start:start + 256, None], team[None, :]]
            hit &= reach[start:start + 256, None] > CONTACT_SLACK
            if hit.any():
                a, b = np.argwhere(hit)[0]
                if snap.time - self._last_contact >= CONTACT_GAP_S:
                    mid = (xy[start + a] + xy[b]) / 2
                    self.contacts.append((round(snap.time, 2), float(mid[0]), float(mid[1])))
                self._last_contact = snap.time
                return

    def finish(self, sim, result=None) -> Replay:
        """The replay document; `result` (a RunResult or its dict) fills in the end."""
        self.sample(sim)
        snap = sim.snapshot()
        types = sim.world.types
        used = sorted({u.type for u in self.units.values()})
        type_docs = {n: ReplayType(category=CATEGORIES[int(types.category[types.index[n]])],
                                   hp=float(types.hp[types.index[n]]), sight=float(types.sight[types.index[n]]),
                                   size=float(types.size[types.index[n]]), range=float(types.w_range[types.index[n]]))
                     for n in used}
        players = {t.id for t in sim.config.teams if t.controller.type == "agent"}
        teams = [ReplayTeam(id=t, name=s.name, color=s.color, allies=sorted(a for a in s.allies if a != t),
                            player=t in players) for t, s in sorted(sim.teams.items())]
        if ENVIRONMENT in snap.team_colors:
            teams.append(ReplayTeam(id=ENVIRONMENT, name="environment", color=snap.team_colors[ENVIRONMENT], allies=[],
                                    player=False))
        end = _end(result)
        replay = Replay(title=sim.config.name, width=snap.width, height=snap.height, terrain=_runs(snap.terrain),
                        deposits=np.round(snap.deposits, 2).tolist(), fog=bool(sim.fog), teams=teams, types=type_docs,
                        units=sorted(self.units.values(), key=lambda u: u.id), frames=self.frames,
                        markers=self.markers, shapes=self.shapes, end=end)
        replay.events = derive_events(replay, sim.trace.events, self.contacts)
        return replay


def _end(result) -> ReplayEnd:
    if result is None:
        return ReplayEnd()
    d = result if isinstance(result, dict) else result.to_dict()
    return ReplayEnd(ended_by=str(d.get("ended_by") or ""), reason=str(d.get("reason") or ""),
                     winners=list(d.get("winners") or []), losers=list(d.get("losers") or []),
                     duration=float(d.get("duration") or 0.0))


def derive_events(replay: Replay, trace: list[dict], contacts: list[tuple[float, float, float]]) -> list[ReplayEvent]:
    """Timeline events from the engine trace (waves, deaths, objective losses, wins, losses, end)
    and from the sampled contacts."""
    tags = {u.id: u.tag for u in replay.units}
    w, h = replay.width, replay.height
    events: list[ReplayEvent] = []
    waves: dict[int, list[list[dict]]] = {}
    for ev in trace:
        kind = ev.get("event")
        # a rule's spawns in the first second set the start up (a drawn layout): no wave comes then
        if kind == "spawn" and ev.get("source") == "rule" and ev["t"] >= SETUP_S:
            groups = waves.setdefault(int(ev.get("team", -1)), [])
            if groups and ev["t"] - groups[-1][-1]["t"] <= WAVE_GAP_S:
                groups[-1].append(ev)
            else:
                groups.append([ev])
        elif kind == "death":
            where = {"t": ev["t"], "x": ev.get("x"), "y": ev.get("y"), "team": ev.get("team")}
            unit = f"T{ev.get('team')} {ev.get('type')}"
            events.append(ReplayEvent(kind="death", label=f"{unit} destroyed", **where))
            tag = tags.get(ev.get("id"))
            if tag and "objective" in tag:
                events.append(ReplayEvent(kind="objective_lost", label=f"objective lost: {unit}", **where))
        elif kind in ("win", "lose"):
            verb = "wins" if kind == "win" else "loses"
            events.append(ReplayEvent(t=ev["t"], kind=kind, team=ev.get("team"),
                                      label=f"T{ev.get('team')} {verb}: {ev.get('reason', '')}"))
        elif kind == "rule_team":
            n = len(ev.get("ids") or [])
            events.append(ReplayEvent(t=ev["t"], kind="side_change", team=ev.get("team"),
                                      label=f"{n} unit{'s' if n != 1 else ''} of T"
                                            + "/T".join(str(t) for t in sorted(set(ev.get("from") or [])))
                                            + f" join{'s' if n == 1 else ''} T{ev.get('team')}"))
        elif kind == "message":
            events.append(ReplayEvent(t=ev["t"], kind="message", label=str(ev.get("text", ""))[:120],
                                      team=ev.get("team")))
        elif kind == "end":
            events.append(ReplayEvent(t=ev["t"], kind="end", label=f"end: {ev.get('reason') or ev.get('ended_by')}"))
    for team, groups in waves.items():
        # what a rule's spawns are for (an attack, reinforcements, a reward, creatures) only the rule knows: the
        # caption says who arrives where
        side = "environment" if team == ENVIRONMENT else f"T{team}"
        for n, group in enumerate(groups, 1):
            x = sum(e["x"] for e in group) / len(group)
            y = sum(e["y"] for e in group) / len(group)
            events.append(ReplayEvent(t=group[0]["t"], kind="wave", team=team, x=round(x, 2), y=round(y, 2),
                                      label=f"{side} arrival {n}: {len(group)} units in the {_compass(x, y, w, h)}"))
    for k, (t, x, y) in enumerate(contacts):
        events.append(ReplayEvent(t=t, kind="contact", x=round(x, 2), y=round(y, 2),
                                  label="first contact" if k == 0 else "contact: fighting resumes"))
    order = {k: i for i, k in enumerate(("wave", "contact", "death", "objective_lost", "side_change", "message", "lose", "win",
                                         "end"))}
    return sorted(events, key=lambda e: (e.t, order[e.kind]))


# --- reading a replay back -------------------------------------------------------------------------
class ReplayCursor:
    """Decodes the frames once; `snapshot(i)` is the world at sample i, for the Pillow renderer."""

    def __init__(self, replay: Replay):
        self.replay = replay
        self.terrain = terrain_codes(replay)
        self.deposits = np.asarray(replay.deposits, dtype=float).reshape(-1, 2)
        self.units = {u.id: u for u in replay.units}
        self.times = [f.t for f in replay.frames]
        self.states: list[dict[int, tuple[int, int, int, int]]] = []
        state: dict[int, tuple[int, int, int, int]] = {}
        for f in replay.frames:
            state = dict(state)
            for i in f.gone:
                state.pop(i, None)
            u = f.u
            for k in range(0, len(u), 5):
                state[u[k]] = (u[k + 1], u[k + 2], u[k + 3], u[k + 4])
            self.states.append(state)

    def index_at(self, t: float) -> int:
        """The last sample at or before t (the first one for t before the start)."""
        i = int(np.searchsorted(self.times, t + 1e-6, side="right")) - 1
        return min(max(i, 0), len(self.times) - 1)

    def snapshot(self, i: int, title: str | None = None) -> Snapshot:
        r = self.replay
        state = self.states[i]
        ids = np.array(sorted(state), dtype=int)
        rows = np.array([state[k] for k in ids.tolist()], dtype=float).reshape(-1, 4)
        types = [r.types[self.units[k].type] for k in ids.tolist()]
        t = self.times[i]
        return Snapshot(
            time=t, terrain=self.terrain, deposits=self.deposits, ids=ids,
            x=rows[:, 0] / r.quant, y=rows[:, 1] / r.quant,
            team=np.array([self.units[k].team for k in ids.tolist()], dtype=int),
            category=np.array([CATEGORIES.index(ty.category) for ty in types], dtype=int),
            hp_frac=rows[:, 2] / 100.0, size=np.array([ty.size for ty in types], dtype=float),
            under_construction=(rows[:, 3].astype(int) & FLAG_BUILDING) > 0,
            team_colors={tm.id: tm.color for tm in r.teams},
            markers=tuple(Marker(m.x, m.y, m.label, m.color) for m in r.markers if m.t <= t + 1e-6),
            shapes=shapes_at(r, t),
            title=r.title if title is None else title)


def shapes_at(replay: Replay, t: float) -> tuple[Shape, ...]:
    """The rules' areas as they were at time t."""
    last: dict[int, ReplayShape] = {}
    for s in replay.shapes:
        if s.t <= t + 1e-6:
            last[s.id] = s
    return tuple(Shape(s.id, s.kind, s.x, s.y, s.half_w, s.half_h, s.label, s.color)
                 for sid, s in sorted(last.items()) if s.kind != "gone")
