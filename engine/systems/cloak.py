"""Cloaking: a cloaked unit is hidden from every other alliance (not listed to its agents or scripted
players, not targeted by its units, not drawn in its views) unless a unit of that alliance with a
detection radius stands within that radius of it. Splash and rules still reach hidden units. Only
rules cloak units and give detection, so nothing here runs until a rule has cloaked one."""
from __future__ import annotations

import numpy as np

from engine.world import World

# What cloaking means for play (the prompts state it).
CLOAK_DOC = ("a cloaked unit is hidden from the other sides (not seen, not targeted, not drawn) unless one of their "
             "units with a detection radius (set by a rule) is within that radius of it; splash and rules still "
             "hit it; its own side and allies see it")


def hidden(world: World, alliance: frozenset[int], ids: np.ndarray) -> np.ndarray:
    """Mask over `ids`: which of them `alliance` cannot see for cloaking."""
    w = world
    mask = w.cloaked[ids] & ~np.isin(w.team[ids], list(alliance))
    if not mask.any():
        return mask
    idx = w.alive_idx
    det = idx[(w.detect[idx] > 0) & np.isin(w.team[idx], list(alliance)) & (w.progress[idx] >= 1.0)]
    if det.size:
        cand = ids[mask]
        dx = w.x[cand][:, None] - w.x[det][None, :]
        dy = w.y[cand][:, None] - w.y[det][None, :]
        r = w.detect[det][None, :]
        seen = ((dx * dx + dy * dy) <= r * r).any(axis=1)
        mask[mask.nonzero()[0][seen]] = False
    return mask
