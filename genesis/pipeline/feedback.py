"""The feedback log: one typed line per verdict and per run outcome, for every run.

Each PM gate appends its stage verdict (passed or failed) the moment it is taken, and every run
appends how it ended: playable, stopped (the PM gave up), failed, interrupted (Ctrl-C), error (a
pipeline bug) or infra_error (the model endpoint stayed unavailable: tagged apart, it says nothing
about the scenario). A failed verdict carries its failure signatures (stage, criterion, the class
of the check's detail, archetype, rule ids) and a snapshot of the artifacts it judged, so the
retrospective can replay a proposed check on the very artifacts that failed. Lines are appended
under a file lock, each in one write, so parallel runs sharing a workspace never interleave.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from genesis import rubric_store
from genesis.checks.messages import shorten
from genesis.fileio import FileLock, atomic_write_json

FEEDBACK_LOG = "feedback_log.jsonl"
ARTIFACTS = "feedback_artifacts"
Outcome = Literal["passed", "failed", "playable", "not_certified", "stopped", "interrupted", "error", "infra_error"]
# Signatures read from the runs rather than from one criterion (the reference army never moved,
# every run hit the time limit); `criterion` names the runs.
RUNS = "(runs)"

# The check's detail text -> a class that recurs across runs although the numbers differ.
DETAIL_CLASSES: tuple[tuple[str, str], ...] = (
    ("no automated check named", "unknown_check"),
    ("check crashed", "check_crashed"),
    (r"plays the same game on every seed", "unvaried_seeds"),
    (r"open_loop: ", "blind_replay_wins"),
    (r"no_cheap_win: ", "cheap_win"),
    (r"asked for (?:easy|medium|hard), the certificate", "difficulty_missed"),
    (r"can reach only|trapped|cannot leave", "trapped_units"),
    (r"cannot reach|unreachable", "unreachable"),
    (r"overlap", "overlap"),
    (r"off the .*map|is off the map", "off_map"),
    (r"ended in an error|run\(s\) failed", "run_error"),
    (r"reference policy won \d+/\d+ seeds", "reference_lost"),
    (r"unverified", "unverified_requirement"),
    (r"no expectation", "no_expectation"),
    (r"time limit", "timeout"),
    (r"never fire", "rule_silent"),
    (r"never reach", "wave_unengaged"),
    (r"in under|trivial", "degenerate"),
    (r"idle scores", "outcome_not_discriminated"),
    (r"not judged", "not_judged"),
)


class FailureSignature(BaseModel):
    """What recurs across runs: where a failure happened and what kind of failure it was."""

    model_config = ConfigDict(extra="forbid")
    stage: str
    criterion: str
    check: str = Field(description="the failing criterion's kind: check:<name>, judged, or model")
    detail_class: str
    archetype: str = ""
    rule_ids: list[str] = Field(default_factory=list)

    @property
    def key(self) -> str:
        """The recurrence key: runs of different archetypes failing the same way count together."""
        return f"{self.stage}:{self.criterion}:{self.detail_class}"


class FeedbackRecord(BaseModel):
    """One line of rubrics/feedback_log.jsonl."""

    model_config = ConfigDict(extra="forbid")
    run_id: str
    query: str = ""
    time: str
    kind: Literal["verdict", "outcome"]
    stage: str | None = None
    outcome: Outcome
    infra: bool = Field(False, description="an infrastructure failure: no verdict on the scenario")
    iteration: int | None = None
    failed: list[str] = Field(default_factory=list)
    signatures: list[FailureSignature] = Field(default_factory=list)
    hints: list[str] = Field(default_factory=list, description="run-derived signatures the PM's gate reads")
    artifact: str | None = Field(None, description="the judged artifacts' snapshot in feedback_artifacts/")
    reason: str = ""


def detail_class(reason: str) -> str:
    for pattern, name in DETAIL_CLASSES:
        if re.search(pattern, reason, re.I):
            return name
    return "failed"


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def run_hints(stage: str, runs: list[dict]) -> list[str]:
    """Failure patterns the runs show whatever criterion failed (the PM's gate reads them too)."""
    hints = []
    ref = [r for r in runs if r.get("policy") == "reference" and r.get("ok")]
    # the reference policy moves its whole army; a quarter that never leaves its spawn is trapped
    if stage == "level" and ref and min(r.get("mobility", {}).get("0", 1.0) for r in ref) < 0.75:
        hints.append("immobile_units")
    if stage == "level" and runs and all(r.get("ended_by") == "time_limit" for r in runs):
        hints.append("timeout_only")
    return hints


def _scenario_facts(state: dict) -> tuple[str, list[str]]:
    brief = state.get("brief")
    archetype = brief.concepts.archetype if brief is not None else ""
    rule_ids = [r.reused_from or r.id for r in state.get("rules") or []]
    return archetype, rule_ids


def verdict_record(state: dict, stage: str, verdict, iteration: int, artifact: str | None = None) -> FeedbackRecord:
    archetype, rule_ids = _scenario_facts(state)
    failed = [c for c in verdict.criteria if not c.passed and c.mandatory]
    hints = run_hints(stage, state.get("runs") or []) if not verdict.passed else []
    sigs = [FailureSignature(stage=stage, criterion=c.id, check=c.kind or "model", detail_class=detail_class(c.reason),
                             archetype=archetype, rule_ids=rule_ids) for c in failed]
    sigs += [FailureSignature(stage=stage, criterion=RUNS, check=RUNS, detail_class=h, archetype=archetype,
                              rule_ids=rule_ids) for h in hints]
    return FeedbackRecord(run_id=state["run_id"], query=state.get("query", ""), time=_now(), kind="verdict",
                          stage=stage, outcome="passed" if verdict.passed else "failed", iteration=iteration,
                          failed=[shorten(f"{c.id}: {c.reason}", 300) for c in failed], signatures=sigs, hints=hints,
                          artifact=artifact)


def outcome_record(run_id: str, query: str, outcome: str, reason: str = "") -> FeedbackRecord:
    return FeedbackRecord(run_id=run_id, query=query, time=_now(), kind="outcome", outcome=outcome,  # type: ignore[arg-type]
                          infra=outcome == "infra_error", reason=shorten(reason, 600))


# --- files ---------------------------------------------------------------------------------------
def log_path(root) -> Path:
    return rubric_store.rubrics_root(root) / FEEDBACK_LOG


def append(root, records: list[FeedbackRecord]) -> None:
    """Appends whole lines under the log's lock, in one write, flushed to disk."""
    if not records:
        return
    base = rubric_store.rubrics_root(root)
    base.mkdir(parents=True, exist_ok=True)
    data = "".join(r.model_dump_json() + "\n" for r in records).encode("utf-8")
    with FileLock(base / ".feedback.lock"):
        fd = os.open(base / FEEDBACK_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)


def read(root) -> list[FeedbackRecord]:
    """Every well-formed line, oldest first; lines in an older format, torn or damaged (not UTF-8,
    not JSON) are skipped: the log is shared and hand-editable, and the retrospective that reads it
    runs after all of a run's work."""
    path = log_path(root)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    out = []
    for line in data.split(b"\n"):  # whole lines only: a JSON string may hold other line separators
        try:
            out.append(FeedbackRecord.model_validate_json(line))
        except ValidationError:
            continue
    return out


def save_artifacts(root, state: dict, stage: str, level_dir: Path | None) -> str | None:
    """A content-addressed copy of what the failing stage judged (brief, GDD, level and its map
    file), so the retrospective can re-run a proposed check on it after the scenario folder moved on."""
    snap: dict[str, Any] = {"stage": stage}
    if state.get("brief") is not None:
        snap["brief"] = state["brief"].model_dump(mode="json")
    if state.get("gdd") is not None:
        snap["gdd"] = state["gdd"].model_dump(mode="json")
    if stage == "level" and state.get("level"):
        snap["level"] = state["level"]
        map_file = (state["level"].get("map") or {}).get("file")
        if map_file and level_dir is not None and (level_dir / map_file).is_file():
            snap["map_file"] = {"name": Path(map_file).name, "data": json.loads((level_dir / map_file).read_text())}
        sources = {a.id: a.source for a in state.get("rules") or []}
        snap["rule_sources"] = {r["script"]: sources[r["id"]] for r in state["level"].get("rules", [])
                                if r.get("id") in sources and r.get("script")}
    if len(snap) == 1:
        return None
    text = json.dumps(snap, sort_keys=True)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]
    path = rubric_store.rubrics_root(root) / ARTIFACTS / f"{digest}.json"
    if not path.exists():
        atomic_write_json(path, snap, indent=None, sort_keys=True)
    return digest


def load_artifacts(root, digest: str) -> dict[str, Any] | None:
    path = rubric_store.rubrics_root(root) / ARTIFACTS / f"{digest}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def log_outcome(ctx, run_id: str, outcome: str, reason: str = "") -> None:
    """A run's end, whatever it was; the query comes from the folder's run.json."""
    try:
        query = json.loads((Path(ctx.out_dir) / "run.json").read_text(encoding="utf-8")).get("query", "")
    except (OSError, ValueError):
        query = ""
    append(ctx.rubrics_root, [outcome_record(run_id, query, outcome, reason)])
