"""The results file of `genesis eval`: every finished (task, agent, seed) episode, pinned to the
engine and Genesis versions and to each level's hash, with the summaries derived from them.

Only what a replay of the same game reproduces goes in (no wall times), so re-running the
evaluation with the same versions writes the same file byte for byte.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, Field

from genesis.play.metrics import EpisodeMetrics

FORMAT = 1
NOT_REPRODUCED = {"wall_s", "llm"}      # machine- or provider-dependent: kept out of the file


class EvalEpisode(EpisodeMetrics):
    """One seeded game of one agent on one task, with the metrics `genesis play` computes."""

    task: str
    agent: str
    wall_s: float = 0.0

    @property
    def key(self) -> tuple[str, str, int]:
        return self.task, self.agent, self.seed

    def record(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", exclude=NOT_REPRODUCED)
        return {"task": data.pop("task"), "agent": data.pop("agent"), "seed": data.pop("seed"), **data}


class TaskEntry(BaseModel):
    id: str
    level_path: str
    level_hash: str
    competency: str | None
    team: int


class EvalResults(BaseModel):
    format: int = FORMAT
    genesis_version: str
    engine_version: str
    suite: str = Field(description="the suite folder evaluated")
    suite_hash: str = Field(description="sha256 over the tasks' ids and level hashes")
    tasks: list[TaskEntry]
    ci_method: str = Field(description="how the win-rate intervals are computed")
    episodes: list[dict[str, Any]] = Field(description="EvalEpisode records, sorted by task, agent, seed")
    agents: dict[str, Any] = Field(description="per agent: overall, per competency and per task summaries")
    ladder: dict[str, Any] = Field(description="whether the built-in ladder's order holds, per task and overall")


def suite_hash(tasks: list[TaskEntry]) -> str:
    pairs = sorted((t.id, t.level_hash) for t in tasks)
    return hashlib.sha256(json.dumps(pairs).encode()).hexdigest()
