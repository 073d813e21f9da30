"""Where a run's seed enters the game, so callers can tell when two seeds play the same game.

A seed changes a game only through the random generators derived from it (spawn jitter, waves that
choose their target, rule scripts' `random`/`random_int`) and through a policy that draws from its
own seeded generator. `SeededStreams` hands out the simulation's generators and tells afterwards
whether any was drawn from; `expected_seed_draws` reads a level for what will draw before running it.
"""
from __future__ import annotations

import numpy as np


class SeededStreams:
    """The generators one run derives from its seed, each remembered with its initial state."""

    def __init__(self, seed: int):
        self.seed = int(seed)
        self._made: list[tuple[np.random.Generator, dict]] = []

    def generator(self, *stream: int) -> np.random.Generator:
        """A generator of its own for `stream`, so draws from one stream never shift another."""
        gen = np.random.default_rng([self.seed, *stream])
        self._made.append((gen, gen.bit_generator.state))
        return gen

    def drawn(self) -> bool:
        """Whether any generator handed out has been drawn from."""
        return any(gen.bit_generator.state != start for gen, start in self._made)


def policy_uses_seed(policy) -> bool:
    """A policy draws from its seed unless it declares otherwise (an unknown agent may)."""
    return bool(getattr(policy, "uses_seed", True))


def expected_seed_draws(level) -> list[str]:
    """What in `level` draws seeded random numbers in (almost) every game. Rule scripts are not read:
    whether one draws shows only when it runs (`RunResult.seed_independent`)."""
    sources = []
    jitter = float(level.config.switches.spawn_jitter)
    if jitter > 0 and any(not level.catalog.units[p.type].is_building for p in level.placements):
        sources.append(f"spawn_jitter {jitter:g} tiles")
    for team in level.config.teams:
        if getattr(team.controller, "choose_target", False):
            sources.append(f"team {team.id}'s waves choose their target")
    return sources
