"""The replay gate: a rubric change is adopted only when history proves it.

The candidate criterion is re-run on the recorded artifacts of every failure it targets (the
feedback log's snapshots) and must fail each of them; it is re-run on every accepted scenario in
the KB (stored GDDs for a GDD criterion, stored levels for a level criterion, simulated through
the validation cache when the check reads runs) and must pass each. A target it lets through, or
an accepted scenario it would reject (a conflict), rejects the change; so does a KB whose accepted
scenarios could none of them be replayed (a judged criterion with no recorded brief to judge by).
"""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from genesis.checks import CheckContext, run_criteria
from genesis.checks.registry import needs
from genesis.models import GDD, Brief
from genesis.pipeline import feedback
from genesis.pipeline.feedback import FeedbackRecord

# A judged criterion is replayed by the analyst: (criterion, brief, gdd) -> passed.
Judge = Callable[[Any, Brief | None, GDD], bool]
EVIDENCE_CHECKS = frozenset({"requirement_evidence", "requirement_evidence_present"})  # read a GDD's requirements


@dataclass
class ReplayReport:
    caught: list[str] = field(default_factory=list)      # targeted failures the criterion fails
    missed: list[str] = field(default_factory=list)      # targeted failures it passes
    conflicts: list[str] = field(default_factory=list)   # accepted scenarios it fails
    passed: list[str] = field(default_factory=list)      # accepted scenarios it passes
    skipped: list[str] = field(default_factory=list)     # what could not be replayed, and why

    unchecked: int = 0                                   # accepted scenarios there were, none of them replayed

    @property
    def accepted(self) -> bool:
        # a criterion no accepted scenario could be replayed on was never shown to let a good one through
        return bool(self.caught) and not self.missed and not self.conflicts and not self.unchecked

    def evidence(self) -> list[str]:
        return ([f"fails recorded failure {c}" for c in self.caught]
                + [f"passes {len(self.passed)} accepted KB scenario(s)"]
                + [f"skipped {s}" for s in self.skipped][:5])

    def why_rejected(self) -> str:
        if self.missed:
            return f"it passes recorded failures it targets: {'; '.join(self.missed[:3])}"
        if self.conflicts:
            return f"it fails accepted KB scenarios: {'; '.join(self.conflicts[:5])}"
        if self.unchecked:
            return (f"none of the {self.unchecked} accepted KB scenario(s) could be replayed, so nothing shows it "
                    "passes a good design" + (f" ({self.skipped[-1]})" if self.skipped else ""))
        return "no recorded failure it targets could be replayed" + (f" ({self.skipped[0]})" if self.skipped else "")


def _run_one(stage: str, criterion, ctx: CheckContext, judge: Judge | None) -> tuple[bool, str]:
    if criterion.check_name is None:
        if judge is None or ctx.gdd is None:
            raise LookupError("a judged criterion needs the analyst and a GDD to replay")
        return judge(criterion, ctx.brief, ctx.gdd), "judged"
    (result,) = run_criteria(stage, [criterion], ctx)
    return result.passed, result.reason


def _simulate(level_path: Path, kb_root: Path, gdd: GDD | None) -> list:
    from genesis.simulate import generation_processes, validation_jobs
    from genesis.validation_cache import ValidationCache, cache_root, run_cached

    jobs = validation_jobs(str(level_path), gdd.requirements if gdd is not None else [])
    return run_cached(jobs, ValidationCache(cache_root(kb_root)), workers=generation_processes())


def _level_context(level_path: Path, level: dict, gdd: GDD | None, kb_root: Path, with_runs: bool) -> CheckContext:
    ctx = CheckContext(gdd=gdd, level=level, level_path=level_path, kb_root=kb_root)
    if with_runs:
        from engine.maps import load_map
        from engine.schema.level import MapRef
        from genesis.evidence import requirement_evidence

        ctx.runs = _simulate(level_path, kb_root, gdd)
        if gdd is not None:
            m = load_map(MapRef.model_validate(level["map"]), level_path.parent)
            ctx.evidence = requirement_evidence(gdd.requirements, ctx.runs, (m.width, m.height), level_path)
    return ctx


def _rebuild_level(snap: dict, folder: Path) -> Path:
    """The recorded level in a scratch folder, with its rule scripts and map file beside it."""
    for rel, source in (snap.get("rule_sources") or {}).items():
        path = folder / rel
        if folder.resolve() not in path.resolve().parents:
            raise ValueError(f"recorded script path {rel!r} leaves the level folder")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    if snap.get("map_file"):
        (folder / snap["map_file"]["name"]).write_text(json.dumps(snap["map_file"]["data"]), encoding="utf-8")
        snap["level"]["map"] = {"file": snap["map_file"]["name"]}
    (folder / "level.json").write_text(json.dumps(snap["level"]), encoding="utf-8")
    return folder / "level.json"


def _targets(records: list[FeedbackRecord], keys: list[str]) -> list[FeedbackRecord]:
    wanted = set(keys)
    return [r for r in records if r.kind == "verdict" and r.outcome == "failed"
            and any(s.key in wanted for s in r.signatures)]


def replay(stage: str, criterion, targets: list[str], records: list[FeedbackRecord], rubrics_root: Path,
           kb, judge: Judge | None = None) -> ReplayReport:
    """Re-runs `criterion` (a rubric_store.Criterion for `stage`) on history; see the module docstring."""
    with tempfile.TemporaryDirectory(prefix="genesis-replay-") as tmp:
        return _replay(stage, criterion, targets, records, rubrics_root, kb, judge, Path(tmp))


def _replay(stage: str, criterion, targets: list[str], records: list[FeedbackRecord], rubrics_root: Path, kb,
            judge: Judge | None, scratch: Path) -> ReplayReport:
    report = ReplayReport()
    kind = needs(stage, criterion.check_name) if criterion.check_name else "gdd"
    kb_root = Path(kb.root)
    for n, rec in enumerate(_targets(records, targets)):
        label = f"{rec.run_id} ({rec.stage}, iteration {rec.iteration})"
        snap = feedback.load_artifacts(rubrics_root, rec.artifact) if rec.artifact else None
        try:
            if snap is None:
                raise LookupError("no artifact snapshot recorded")
            ctx = _target_context(snap, kind, kb, kb_root, scratch / f"target{n}")
            ok, why = _run_one(stage, criterion, ctx, judge)
        except (LookupError, ValueError, OSError) as exc:
            report.skipped.append(f"{label}: {exc}")
            continue
        (report.missed if ok else report.caught).append(f"{label}: {why[:160]}")
    if not report.caught:
        return report
    for name, ctx in _accepted(kind, kb, kb_root):
        if criterion.check_name in EVIDENCE_CHECKS and ctx.gdd is None:
            report.skipped.append(f"KB {name}: no recorded requirements to evidence")
            continue
        try:
            ok, why = _run_one(stage, criterion, ctx, judge)
        except (LookupError, ValueError, OSError) as exc:
            report.skipped.append(f"KB {name}: {exc}")
            continue
        (report.passed if ok else report.conflicts).append(name if ok else f"{name}: {why[:160]}")
    skipped_kb = sum(s.startswith("KB ") for s in report.skipped)
    if skipped_kb and not report.passed and not report.conflicts:
        report.unchecked = skipped_kb
    return report


def _target_context(snap: dict, kind: str, kb, kb_root: Path, folder: Path) -> CheckContext:
    brief = Brief.model_validate(snap["brief"]) if snap.get("brief") else None
    gdd = GDD.model_validate(snap["gdd"]) if snap.get("gdd") else None
    if kind == "gdd":
        if gdd is None:
            raise LookupError("the snapshot holds no GDD")
        return CheckContext(brief=brief, gdd=gdd, known_rules={e.id for e in kb.list("rules")}, kb_root=kb_root)
    if kind == "rules" or not snap.get("level"):
        raise LookupError(f"a {kind} check cannot be replayed on a {snap.get('stage')} snapshot")
    folder.mkdir(parents=True)
    return _level_context(_rebuild_level(snap, folder), snap["level"], gdd, kb_root, with_runs=kind == "runs")


def _accepted(kind: str, kb, kb_root: Path):
    """(name, context) of every accepted scenario in the KB that a check of this kind can read."""
    if kind == "gdd":
        known = {e.id for e in kb.list("rules")}
        for entry in kb.list("gdds"):
            yield f"gdds/{entry.id}", CheckContext(gdd=GDD.model_validate(entry.data["gdd"]), known_rules=known,
                                                   kb_root=kb_root)
        return
    if kind == "rules":
        return
    designs = {e.data.get("level_id"): e for e in kb.list("gdds")}
    for entry in kb.list("levels"):
        path = kb_root / "levels" / entry.id / "level.json"
        level = json.loads(path.read_text(encoding="utf-8"))
        design = designs.get(entry.id)
        gdd = GDD.model_validate(design.data["gdd"]) if design is not None else None
        yield f"levels/{entry.id}", _level_context(path, level, gdd, kb_root, with_runs=kind == "runs")
