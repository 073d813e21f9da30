"""suite.json: a batch folder as a benchmark suite. The certified scenarios are its tasks (what
`genesis eval` plays); every other finished query is listed as rejected, with why.

Each task is pinned by its level hash (`validation_cache.level_hash`) and the manifest by the
Genesis and engine versions that wrote it, so two labs can tell whether they evaluate the same suite.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from genesis.batch.records import QueryRecord
from genesis.fileio import atomic_write_json, read_json_object

if TYPE_CHECKING:
    from genesis.batch.summary import BatchSummary

SUITE_FILE = "suite.json"
FORMAT = 1


class SuiteTask(BaseModel):
    id: str = Field(description="the scenario folder's name")
    path: str = Field(description="the scenario folder, relative to the suite folder")
    index: int = Field(description="the query's index in the batch file")
    request: str
    competency: str | None
    difficulty: str | None = Field(description="the certificate's difficulty band")
    certificate: dict[str, Any] = Field(description="seeds, ladder win shares, passed checks, flags")
    seeds: list[int] = Field(description="the seeds the certificate played")
    level_hash: str
    backend: str | None = Field(description="the designer model that generated it")


class RejectedQuery(BaseModel):
    index: int
    request: str
    id: str
    status: str
    verdict: str
    why: str


class SuiteManifest(BaseModel):
    format: int = FORMAT
    name: str
    file: str
    status: str = Field(description="the batch's: running, interrupted, complete or incomplete")
    genesis_version: str
    engine_version: str
    backend: str = Field(description="where the batch ran (local or ray) and its model")
    tasks: list[SuiteTask]
    rejected: list[RejectedQuery]
    pending: int = Field(description="queries not finished yet")
    coverage: dict[str, dict[str, int]] = Field(description="per competency: queries, playable, certified")


def _folder(q: QueryRecord, batch_dir: Path) -> Path:
    """The scenario folder: beside its report (a merged batch links into the shard folders)."""
    return batch_dir / Path(q.report).parent if q.report else batch_dir / q.slug


def certificate_summary(cert: dict[str, Any]) -> dict[str, Any]:
    checks = cert.get("checks") or {}
    return {"valid": bool(cert.get("valid")), "difficulty": cert.get("difficulty") or None,
            "seeds": list(cert.get("seeds") or []), "ladder": cert.get("ladder") or {},
            "checks_passed": sorted(k for k, c in checks.items() if c.get("passed")),
            "flags": list(cert.get("flags") or [])}


def why_rejected(q: QueryRecord, cert: dict[str, Any]) -> str:
    failed = sorted(k for k, c in (cert.get("checks") or {}).items() if not c.get("passed"))
    if q.playable and "checks" not in cert:
        skipped = cert.get("skipped")
        return "playable, but its certificate was not computed" + (f" ({skipped})" if skipped else "")
    reason = q.reason or q.verdict or q.status
    return f"{reason} (failed checks: {', '.join(failed)})" if failed else reason


def build_manifest(summary: BatchSummary, batch_dir: Path) -> SuiteManifest:
    from engine.errors import EngineError
    from genesis import __version__
    from genesis.validation_cache import engine_version, level_hash

    tasks, rejected = [], []
    for q in summary.queries:
        folder = _folder(q, batch_dir)
        cert = (read_json_object(folder / "validation.json") or {}).get("certificate") or {}
        why = why_rejected(q, cert)
        if q.certified:
            try:
                c = certificate_summary(cert)
                tasks.append(SuiteTask(id=folder.name, path=os.path.relpath(folder, batch_dir), index=q.index,
                                       request=q.query, competency=q.competency, difficulty=q.difficulty,
                                       certificate=c, seeds=c["seeds"], level_hash=level_hash(folder / "level.json"),
                                       backend=q.backend))
                continue
            except (EngineError, OSError) as exc:       # the folder was edited or damaged since it was certified
                why = f"certified, but its level no longer loads: {exc}"
        if not q.infra_error:     # no verdict yet: retried on the next run, neither task nor rejected
            rejected.append(RejectedQuery(index=q.index, request=q.query, id=q.slug, status=q.status,
                                          verdict=q.verdict, why=why))
    return SuiteManifest(name=summary.name, file=summary.file, status=summary.status, genesis_version=__version__,
                         engine_version=engine_version(), backend=f"{summary.backend} · {summary.model}",
                         tasks=tasks, rejected=rejected,
                         pending=len(summary.pending) + sum(q.infra_error for q in summary.queries),
                         coverage=summary.aggregates()["by_competency"])


def write_manifest(summary: BatchSummary, batch_dir: Path) -> None:
    atomic_write_json(batch_dir / SUITE_FILE, build_manifest(summary, batch_dir).model_dump(mode="json"))
