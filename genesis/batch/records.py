"""One batch query's result, read back from its scenario folder (the folder is the truth)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from genesis.fileio import read_json_object
from genesis.pipeline.finalize import clause_tally
from genesis.pipeline.runner import INFRA_ERROR, RUN_FILE

RETRY_DECISIONS = ("retry", "rollback")


class QueryRecord(BaseModel):
    index: int
    query: str
    slug: str
    status: str = Field(description="pipeline status (playable, failed, refused, error, infra_error) or "
                                    "invalid_query / crashed")
    playable: bool
    certified: bool = Field(False, description="playable and its validity certificate holds (a benchmark task)")
    verdict: str = Field("", description="CERTIFIED, NOT CERTIFIED, PLAYABLE (certificate skipped), NOT PLAYABLE, ...")
    competency: str | None = None
    difficulty: str | None = Field(None, description="the certificate's difficulty band")
    reason: str = ""
    generation_time_s: float | None = None
    wall_s: float | None = Field(None, description="worker wall time in this run; None when no worker ran it now "
                                                   "(finished by an earlier run, or an invalid query)")
    resumed: bool = Field(False, description="finished by an earlier run of the same batch and skipped now")
    infra_retries: int = Field(0, description="times this run generated it again after an infrastructure failure")
    fast_tracked: bool = False
    stages_retried: dict[str, int] = Field(default_factory=dict, description="stage -> retry/rollback decisions")
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = Field(0.0, description="estimated from litellm's cost map; None: the model has no "
                                                     "price there (unknown); 0 for the offline backend")
    cost_basis: str = Field("", description="how cost_usd was estimated, or why it is unknown")
    rubric_versions: dict[str, int] = Field(default_factory=dict)
    backend: str | None = None
    report: str | None = Field(None, description="link to the scenario report, relative to the batch folder")
    clauses: dict[str, int] = Field(default_factory=dict, description="how many of the request's clauses are "
                                                                      "honoured, partial, assumed, not honoured")

    @property
    def infra_error(self) -> bool:
        """The model endpoint stayed unavailable: no verdict, not counted in Playability, retried on re-run."""
        return self.status == INFRA_ERROR

    @property
    def usable(self) -> bool:
        """A benchmark task: certified, or playable with the certificate switched off (or recorded before it)."""
        return self.certified or (self.playable and self.verdict in ("", "PLAYABLE (certificate skipped)"))

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens




def is_done(folder: Path, query: str) -> bool:
    """True iff `folder` holds a finished generation of exactly `query`.

    A killed worker leaves no validation.json for its run (start() deletes the stale one first), and
    a run killed between validation.json and report.html has an older or missing report: both count
    as not done, so the query is generated again; so is a run stopped by an unavailable model endpoint.
    """
    run, validation = read_json_object(folder / RUN_FILE), read_json_object(folder / "validation.json")
    if run is None or validation is None or run.get("query") != query or validation.get("run_id") != run.get("run_id"):
        return False
    if validation.get("status") == INFRA_ERROR:
        return False
    if validation.get("status") == "error":  # PipelineError: finished, with error.log instead of a report
        return True
    report = folder / "report.html"
    return report.exists() and report.stat().st_mtime >= (folder / "validation.json").stat().st_mtime


def is_infra_error(folder: Path, query: str) -> bool:
    """True iff `folder`'s latest run of exactly `query` stopped on an infrastructure failure (no verdict)."""
    run, validation = read_json_object(folder / RUN_FILE), read_json_object(folder / "validation.json")
    return (run is not None and validation is not None and run.get("query") == query
            and validation.get("run_id") == run.get("run_id") and validation.get("status") == INFRA_ERROR)


def stages_retried(decisions: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for d in decisions:
        if d.get("decision") in RETRY_DECISIONS:
            counts[d.get("stage", "?")] = counts.get(d.get("stage", "?"), 0) + 1
    return counts


def from_folder(index: int, query: str, slug: str, folder: Path, *, wall_s: float | None, resumed: bool) -> QueryRecord:
    v = read_json_object(folder / "validation.json") or {}
    usage = (v.get("usage") or {}).get("total") or {}
    designer = (v.get("backend") or {}).get("designer")
    if isinstance(designer, dict):  # error verdicts of older versions held the full per-role config
        designer = designer.get("backend")
    return QueryRecord(
        index=index, query=query, slug=slug, status=v.get("status") or "unknown", playable=bool(v.get("playable")),
        certified=bool(v.get("certified")), verdict=str(v.get("verdict") or ""),
        competency=(read_json_object(folder / "gdd.json") or {}).get("competency"),
        difficulty=(v.get("certificate") or {}).get("difficulty") if v.get("certified") else None,
        reason=v.get("reason") or "", generation_time_s=v.get("generation_time_s"), wall_s=wall_s, resumed=resumed,
        fast_tracked=bool(v.get("fast_tracked")), stages_retried=stages_retried(v.get("decisions") or []),
        model_calls=int(usage.get("calls", 0)), prompt_tokens=int(usage.get("prompt_tokens", 0)),
        completion_tokens=int(usage.get("completion_tokens", 0)), **_cost(v),
        rubric_versions=v.get("rubric_versions") or {}, backend=designer,
        report=_report_link(folder, slug, v.get("status")), clauses=clause_tally(v.get("clauses") or []))


def _cost(v: dict[str, Any]) -> dict[str, Any]:
    """The scenario's cost estimate; a validation.json written before estimates existed has its summed cost."""
    cost = (v.get("usage") or {}).get("cost")
    if cost is None:
        return {"cost_usd": float(((v.get("usage") or {}).get("total") or {}).get("cost_usd", 0.0)),
                "cost_basis": "summed per call (recorded before cost estimates)"}
    return {"cost_usd": cost.get("usd"), "cost_basis": str(cost.get("basis", ""))}


def _report_link(folder: Path, slug: str, status: str | None) -> str | None:
    """The scenario's report.html, or its error.log when the pipeline broke before writing a report."""
    name = "error.log" if status == "error" else "report.html"
    return f"{slug}/{name}" if (folder / name).exists() else None


def failed(index: int, query: str, slug: str, status: str, reason: str, wall_s: float | None) -> QueryRecord:
    """A query that never produced a scenario folder verdict (invalid query, crashed worker)."""
    return QueryRecord(index=index, query=query, slug=slug, status=status, playable=False, reason=reason, wall_s=wall_s)
