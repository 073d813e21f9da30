"""The mobility the PM reads to diagnose trapped units: a unit that never left its spawn counts against
its team only while it lives; one killed where it stood was fighting, not trapped."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from engine.snapshot import CATEGORIES
from genesis.simulate import LEFT_SPAWN_TILES, MobilityTracker

BOT = CATEGORIES.index("bot")


def _snap(units: dict[int, tuple[float, float]], team: int = 0):
    ids = sorted(units)
    return SimpleNamespace(ids=np.array(ids), x=np.array([units[i][0] for i in ids]),
                           y=np.array([units[i][1] for i in ids]), team=np.full(len(ids), team),
                           category=np.full(len(ids), BOT))


def test_units_that_stay_alive_at_spawn_count_as_trapped():
    t = MobilityTracker(_snap({1: (0, 0), 2: (0, 0), 3: (0, 0), 4: (0, 0)}))
    t.update(_snap({1: (LEFT_SPAWN_TILES + 1, 0), 2: (1, 0), 3: (0, 1), 4: (0, 0)}))
    assert t.fractions() == {"0": 0.25}


def test_units_killed_at_their_spawn_are_not_trapped():
    t = MobilityTracker(_snap({1: (0, 0), 2: (0, 0), 3: (0, 0), 4: (0, 0)}))
    t.update(_snap({1: (LEFT_SPAWN_TILES + 1, 0), 2: (1, 0)}))       # 3 and 4 died where they stood
    t.update(_snap({1: (LEFT_SPAWN_TILES + 2, 0), 2: (1, 0)}))
    assert t.fractions() == {"0": 0.5}
    t.update(_snap({1: (LEFT_SPAWN_TILES + 2, 0)}))
    assert t.fractions() == {"0": 1.0}
