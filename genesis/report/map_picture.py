"""The level at t=0 as one picture (map.png): terrain and start units, with labelled markers for
each team's start groups, for every named map spawn point the level's rules use, and for the
rules' own `mark()` markers; the engine's frame renderer keeps their labels on the picture and
apart."""
from __future__ import annotations

import dataclasses
import io
import math
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterator


from engine.snapshot import Marker
from genesis.fileio import atomic_write_bytes

SPAWN_COLOR = "#ff9f1c"
PICTURE_SIZE = 640
GROUP_TILES = 8.0


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def rule_spawn_uses(level) -> dict[str, list[str]]:
    """Map spawn name -> ["rule.param", ...] for every rule param value naming a spawn of the map."""
    names = {s.name for s in level.map.spawns}
    uses: dict[str, list[str]] = defaultdict(list)
    for rule in level.config.rules:
        for param, value in (rule.params or {}).items():
            for s in _strings(value):
                if s in names and f"{rule.id}.{param}" not in uses[s]:
                    uses[s].append(f"{rule.id}.{param}")
    return dict(uses)


def _start_groups(level) -> list[tuple[int, float, float, str]]:
    """(team, x, y, label) per start group: units sharing a position are one group, and groups of a
    team with the same kinds of unit within GROUP_TILES of each other are one label at their centre
    (four lone turrets of a base read "4 heavy_turret", not four labels)."""
    spawns = {s.name: (s.x, s.y) for s in level.map.spawns}
    at: dict[tuple[int, float, float], dict[tuple[str, str | None], int]] = defaultdict(dict)
    for team in level.config.teams:
        for u in team.units:
            x, y = (u.x, u.y) if u.at is None else spawns[u.at]
            kinds = at[(team.id, x, y)]
            kinds[(u.type, u.tag)] = kinds.get((u.type, u.tag), 0) + u.count
    clusters: list[tuple[int, list[tuple[float, float]], dict]] = []
    for (team, x, y), kinds in at.items():
        near = next((c for c in clusters if c[0] == team and c[2].keys() == kinds.keys()
                     and any(math.dist((x, y), p) <= GROUP_TILES for p in c[1])), None)
        if near is None:
            clusters.append((team, [(x, y)], dict(kinds)))
            continue
        near[1].append((x, y))
        for kind, n in kinds.items():
            near[2][kind] += n
    out = []
    for team, points, kinds in clusters:
        parts = [f"{n} {t}" + (f" [{tag}]" if tag else "") for (t, tag), n in kinds.items()]
        cx, cy = sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)
        out.append((team, cx, cy, f"T{team}: " + ", ".join(parts)))
    return out


def level_markers(level, team_colors: dict[int, str]) -> list[Marker]:
    """Start groups in their team's colour, then the rule-used spawn points in orange."""
    spawns = {s.name: s for s in level.map.spawns}
    markers = [Marker(x, y, label, team_colors.get(team, "#ffffff")) for team, x, y, label in _start_groups(level)]
    for name, uses in sorted(rule_spawn_uses(level).items()):
        s = spawns[name]
        markers.append(Marker(s.x, s.y, f"spawn {name} <- {', '.join(uses)}", SPAWN_COLOR))
    return markers


def write_map_picture(level_path: Path, out_png: Path, size: int = PICTURE_SIZE) -> list[Marker]:
    """Render the level's initial state with its markers to `out_png`; returns the markers drawn.
    Raises LevelError for a level that does not load."""
    from engine import Simulation, load_level
    from engine.render import render_frame

    level = load_level(level_path)
    snap = Simulation(level, seed=0, policies={}).snapshot()
    markers = list(snap.markers) + level_markers(level, snap.team_colors)
    img, _ = render_frame(dataclasses.replace(snap, markers=tuple(markers)), width=size, caption="the level at the start")
    data = io.BytesIO()
    img.save(data, format="PNG", compress_level=1)   # 3x faster than the default for ~15% more bytes
    atomic_write_bytes(out_png, data.getvalue())
    return markers
