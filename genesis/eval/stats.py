"""Interval and rank statistics of evaluation results: Wilson score intervals, Kendall's tau-b."""
from __future__ import annotations

import math
from typing import Sequence

Z95 = 1.959963984540054     # two-sided 95 %


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a win rate (it stays inside [0, 1] and is not degenerate at 0 or n
    wins, unlike the normal approximation, which matters with a handful of seeds)."""
    if n <= 0:
        return None
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


def _sign(a, b) -> int:
    return (a > b) - (a < b)


def kendall_tau_b(x: Sequence, y: Sequence) -> float | None:
    """Kendall's tau-b of two paired sequences (values compared with <, so tuples rank
    lexicographically); None when either side is all ties."""
    concordant = discordant = ties_x = ties_y = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            sx, sy = _sign(x[i], x[j]), _sign(y[i], y[j])
            if sx == 0 and sy == 0:
                continue
            if sx == 0:
                ties_x += 1
            elif sy == 0:
                ties_y += 1
            elif sx == sy:
                concordant += 1
            else:
                discordant += 1
    denom = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return round((concordant - discordant) / denom, 4) if denom else None
