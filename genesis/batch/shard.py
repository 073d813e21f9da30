"""Slurm-style array jobs: `--shard i/n` runs every n-th query of the file, starting at query i."""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from genesis.batch.queries import BatchFileError, BatchQuery


@dataclass(frozen=True)
class Shard:
    index: int   # 0-based, as $SLURM_ARRAY_TASK_ID of `--array=0-<n-1>`
    count: int

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"

    @property
    def folder(self) -> str:
        """The shard's own batch folder inside the batch folder (its batch.json, logs, scenarios)."""
        return f"shard-{self.index}-of-{self.count}"

    def select(self, queries: list[BatchQuery]) -> list[BatchQuery]:
        return [q for q in queries if q.index % self.count == self.index]


def parse_shard(text: str) -> Shard:
    """`i/n` with 0 <= i < n."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not match:
        raise BatchFileError(f"--shard {text!r}: give i/n, e.g. 0/4 for the first of four shards")
    index, count = int(match[1]), int(match[2])
    if count < 1 or not 0 <= index < count:
        raise BatchFileError(f"--shard {text!r}: i must be 0..n-1 and n at least 1")
    return Shard(index, count)


def queries_digest(queries: list[BatchQuery]) -> str:
    """Identifies the batch file's queries, so merge refuses shards of different files."""
    return hashlib.sha256("\n".join(q.query for q in queries).encode("utf-8")).hexdigest()[:16]
