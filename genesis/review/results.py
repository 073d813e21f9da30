"""The review's results file (review.json): what is compared, and every judgement given.

Human choices (from the page) and model or heuristic judgements (from `--judge`) share one file;
each judgement says who gave it, so the aggregation never mixes a model's preference into the
human one. Writers merge: a reviewer's new submission replaces only that reviewer's judgements.
"""
from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from genesis.fileio import atomic_write_text

FORMAT = "genesis-review/1"
Choice = Literal["a", "b", "tie"]
JudgeKind = Literal["human", "model", "heuristic"]
MAX_TEXT = 2_000
MAX_QUERY_TEXT = 5_000   # the page's "A: ... | B: ..." of two 2,000-character queries fits
_write_lock = threading.Lock()   # the review server handles requests in threads


class ResultsError(ValueError):
    """review.json is unreadable or not a review results document."""


class Side(BaseModel):
    model_config = ConfigDict(extra="forbid")
    label: str = Field(max_length=200, description="what the reviewer is told this side is")
    path: str = Field(max_length=4_000)


class Item(BaseModel):
    """One query to judge: the pair of scenarios generated for it."""
    model_config = ConfigDict(extra="forbid")
    key: str = Field(max_length=MAX_QUERY_TEXT, description="stable id of the pair (batch and query)")
    query: str = Field(max_length=MAX_QUERY_TEXT)
    batch: int | None = Field(None, ge=1, description="1-based batch of an experiment; None for two single folders")
    theme: str | None = Field(None, max_length=300)


class Judgement(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: str = Field(max_length=MAX_QUERY_TEXT)
    choice: Choice
    timestamp: datetime
    reviewer: str = Field(min_length=1, max_length=100, description="the person, or the model name")
    kind: JudgeKind = "human"
    rationale: str | None = Field(None, max_length=MAX_TEXT)


class Submission(BaseModel):
    """What the page posts: one reviewer's human choices, the whole set each time."""
    model_config = ConfigDict(extra="forbid")
    reviewer: str = Field(min_length=1, max_length=100)
    judgements: list[Judgement] = Field(max_length=10_000)


class ReviewResults(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: Literal["genesis-review/1"] = FORMAT
    a: Side
    b: Side
    items: list[Item]
    judgements: list[Judgement] = Field(default_factory=list)

    def unknown_keys(self, judgements: list[Judgement]) -> list[str]:
        known = {i.key for i in self.items}
        return sorted({j.key for j in judgements if j.key not in known})

    def replace(self, reviewer: str, kind: JudgeKind, judgements: list[Judgement]) -> None:
        """Swap in `reviewer`'s judgements of `kind` (the latest per query) for the queries they cover,
        keeping every other judgement."""
        unknown = self.unknown_keys(judgements)
        if unknown:
            raise ResultsError(f"judgements for queries this review does not have: {', '.join(unknown[:5])}")
        wrong = [j for j in judgements if j.reviewer != reviewer or j.kind != kind]
        if wrong:
            raise ResultsError(f"a submission of {kind} reviewer {reviewer!r} holds a judgement by "
                               f"{wrong[0].kind} {wrong[0].reviewer!r}")
        latest: dict[str, Judgement] = {}
        for j in sorted(judgements, key=lambda j: j.timestamp):
            latest[j.key] = j
        mine = [j for j in self.judgements if j.reviewer == reviewer and j.kind == kind and j.key in latest]
        for old in mine:   # a submission that arrives late must not undo a newer choice
            if old.timestamp > latest[old.key].timestamp:
                latest[old.key] = old
        self.judgements = [j for j in self.judgements if j not in mine] + list(latest.values())


def read_results(path: Path) -> ReviewResults:
    try:
        return ReviewResults.model_validate_json(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ResultsError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "<root>"
        raise ResultsError(f"{path} is not a review results file: {where}: {first['msg']}") from None


def write_results(path: Path, results: ReviewResults) -> None:
    atomic_write_text(path, results.model_dump_json(indent=2))


def merge_into(path: Path, reviewer: str, kind: JudgeKind, judgements: list[Judgement]) -> ReviewResults:
    """Read `path`, replace `reviewer`'s judgements of `kind` for the queries given, write it back atomically."""
    with _write_lock:
        results = read_results(path)
        results.replace(reviewer, kind, judgements)
        write_results(path, results)
        return results
