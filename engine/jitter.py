"""Seeded spawn jitter: start units shifted a little per seed, so seeds of one level differ.

With `switches.spawn_jitter` = j > 0, every mobile start unit moves by an offset drawn uniformly
from [-j, j] tiles per axis (a generator of its own, seeded by the run's seed, so no other random
stream shifts); buildings keep their place (objectives and fortifications are part of the design).
A shifted unit that would land off the map or on ground it cannot stand on keeps its position.
"""
from __future__ import annotations

import dataclasses

from engine.level import Level, Placement
from engine.seeding import SeededStreams
from engine.world import Terrain

JITTER_STREAM = 104729          # keeps this generator apart from the simulation's own


def jittered_placements(level: Level, streams: SeededStreams, terrain: Terrain) -> list[Placement]:
    amount = float(level.config.switches.spawn_jitter)
    if amount <= 0:
        return list(level.placements)
    rng = streams.generator(JITTER_STREAM)
    units = level.catalog.units
    out = []
    for p in level.placements:
        dx, dy = rng.uniform(-amount, amount, size=2)
        spec = units[p.type]
        x, y = p.x + float(dx), p.y + float(dy)
        mobile = not spec.is_building
        fits = terrain.on_map(x, y) and (spec.is_air or bool(terrain.passable[int(y), int(x)]))
        out.append(dataclasses.replace(p, x=round(x, 2), y=round(y, 2)) if mobile and fits else p)
    return out
