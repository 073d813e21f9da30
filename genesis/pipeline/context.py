"""Run-wide services the nodes use: model client, agents, knowledge base, rubric root, output folder."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from genesis.agents.analyst import Analyst
from genesis.agents.designer import Designer
from genesis.agents.developer import Developer
from genesis.agents.pm import PM


@dataclass
class RunContext:
    client: object
    out_dir: Path
    kb_root: Path | None
    rubrics_root: Path | None
    progress: object | None = None   # callable(stage, message) for the live view

    def __post_init__(self):
        self.designer = Designer(self.client)
        self.developer = Developer(self.client)
        self.analyst = Analyst(self.client)
        self.pm = PM(self.client)
        self._kb = None
        self._validation_cache = None
        self._sim_pool = None
        self.certificate_games = None   # the certificate's games, started behind the validation runs
        self.replay_gif = None          # the report's GIF of the accepted level, drawn by a worker

    def sim_pool(self, workers: int):
        """The generation's simulation processes, shared by its stages (see genesis.simulate.SimPool)."""
        from genesis.simulate import SimPool

        if self._sim_pool is None or self._sim_pool.workers != max(1, workers):
            self.close()
            self._sim_pool = SimPool(workers)
        return self._sim_pool

    def drop_certificate_games(self) -> None:
        """The level they certify is rejected or about to change: stop its games."""
        if self.certificate_games is not None:
            self.certificate_games = None
            if self._sim_pool is not None:
                self._sim_pool.close()

    def close(self) -> None:
        self.certificate_games = self.replay_gif = None
        if self._sim_pool is not None:
            self._sim_pool.close()
            self._sim_pool = None

    @property
    def kb(self):
        if self._kb is None:
            from genesis.kb.store import KnowledgeBase

            self._kb = KnowledgeBase(self.kb_root)
        return self._kb

    @property
    def validation_cache(self):
        if self._validation_cache is None:
            from genesis.validation_cache import ValidationCache, cache_root

            self._validation_cache = ValidationCache(cache_root(self.kb_root))
        return self._validation_cache

    def say(self, stage: str, message: str) -> None:
        if self.progress:
            self.progress(stage, message)
