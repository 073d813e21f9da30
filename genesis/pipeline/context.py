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
