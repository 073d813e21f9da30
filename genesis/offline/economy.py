"""A production race's starting economy, sized from what the goal costs: the goal units and the factories
and constructors on the way to them. With the same 600 metal for two light tanks and for three heavy
tanks (an advanced plant and a constructor first), the second race was lost before its deadline."""
from __future__ import annotations

import math
from collections import deque

from engine.catalog import load_catalog

DEFAULT_METAL, DEFAULT_ENERGY = 600.0, 1500.0
METAL_SHARE, ENERGY_SHARE = 0.75, 0.4     # of the goal's cost, at the start: the rest comes from the economy


def build_chain(target: str, start: list[str]) -> tuple[str, ...] | None:
    """The units built on the way to `target` from the `start` units, on the path cheapest in metal
    (without `target` itself); None when nothing there can lead to it."""
    units = load_catalog().units
    best = {s: (0.0, ()) for s in start}
    queue = deque(start)
    while queue:
        u = queue.popleft()
        cost, path = best[u]
        for b in units[u].builds:
            c = cost + units[b].cost_metal
            if b not in best or c < best[b][0]:
                best[b] = (c, path + (b,))
                queue.append(b)
    if target not in best:
        return None
    return best[target][1][:-1]


def goal_cost(composition: dict[str, int], start: list[str]) -> tuple[float, float]:
    """Metal and energy for the composition and, once each, every unit on the way to its types."""
    units = load_catalog().units
    on_the_way = {u for t in composition for u in (build_chain(t, start) or ())}
    metal = sum(units[t].cost_metal * n for t, n in composition.items()) + sum(units[u].cost_metal for u in on_the_way)
    energy = (sum(units[t].cost_energy * n for t, n in composition.items())
              + sum(units[u].cost_energy for u in on_the_way))
    return metal, energy


# a race under raids: the extractors the raids go for matter, the more so in a long race (time to build them)
RAIDED_METAL_SHARE, SHORT_RAIDED_METAL_SHARE, RAIDED_METAL_FLOOR = 0.45, 0.6, 360.0
SHORT_RACE = 240.0      # seconds: a race shorter than this under raids keeps more of its start


def starting_resources(composition: dict[str, int], start: list[str], strength: float = 1.0,
                       raided: bool = False, deadline: float | None = None) -> tuple[float, float]:
    """The race's starting metal and energy: a share of the goal's cost, never below the defaults; a weaker
    enemy asked for (strength < 1) after a lost race also means a richer start. Under raids (`raided`) the
    start holds less metal: the rest comes from the extractors, so raids left alone cost the race (a short
    race, before `SHORT_RACE`, keeps more: it has little time to build extractors)."""
    metal, energy = goal_cost(composition, start)
    boost = 1.0 / min(1.0, strength)
    short = deadline is not None and deadline < SHORT_RACE
    share, floor = ((SHORT_RAIDED_METAL_SHARE if short else RAIDED_METAL_SHARE, RAIDED_METAL_FLOOR) if raided
                    else (METAL_SHARE, DEFAULT_METAL))
    return (round(max(floor, share * metal) * boost, -1),
            round(max(DEFAULT_ENERGY, ENERGY_SHARE * energy) * boost, -1))


BUILD_SHARE = 0.85      # of the deadline: the goal's units come out of their factories by then
MAX_FACTORIES = 3


def prebuilt_factories(composition: dict[str, int], start: list[str], deadline: float) -> dict[str, int]:
    """Factories the race starts with when one built on the way could not turn out the goal in time
    (its queue alone would outlast BUILD_SHARE of the deadline): enough of them, at most MAX_FACTORIES
    each, that the queues, split between them, fit. Empty when the race is feasible from scratch."""
    units = load_catalog().units
    queue: dict[str, float] = {}       # factory type -> seconds of build time it must turn out
    chain_time = 0.0
    for t, n in composition.items():
        chain = build_chain(t, start) or ()
        factory = next((u for u in reversed(chain) if units[u].category == "factory"), None)
        if factory is None:
            continue
        queue[factory] = queue.get(factory, 0.0) + n * units[t].build_time / max(units[factory].build_power, 0.1)
        chain_time = max(chain_time, sum(units[u].build_time for u in chain) / 1.5)
    if not queue or chain_time + sum(queue.values()) <= BUILD_SHARE * deadline:
        return {}
    return {f: min(MAX_FACTORIES, max(1, math.ceil(q / (BUILD_SHARE * deadline)))) for f, q in queue.items()}
