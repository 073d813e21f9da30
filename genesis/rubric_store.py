"""Stage rubrics as versioned data (rubrics/<stage>.yaml), evolved by the PM's retrospective.

R2 (gdd), R3 (rules) and R4 (level) are YAML files. Each criterion is either `check:<name>` (the
analyst runs the deterministic check of that name) or `judged` (a model judges it from the text).
`apply_update` snapshots the current file to history/<stage>.v<N>.yaml, then writes version N+1
atomically under a lock, recording each change's rationale in the criterion's history and in the
top-level changelog. Criterion `version` and history `version` are rubric versions: the version in
which the criterion last changed. The root is the workspace's rubrics folder (seeded on first use).
"""
from __future__ import annotations

import difflib
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from genesis.fileio import FileLock, atomic_write_text, dump_yaml, parse_yaml

STAGES = ("gdd", "rules", "level")
Stage = Literal["gdd", "rules", "level"]


class RubricError(Exception):
    """A rubric file is missing or malformed, or an update is invalid."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HistoryEntry(_Strict):
    version: int
    change: str
    rationale: str
    date: str
    evidence: list[str] = Field(default_factory=list)


class Criterion(_Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    text: str = Field(min_length=1)
    mandatory: bool = True
    kind: str = Field(pattern=r"^(check:[a-z][a-z0-9_]*|judged)$")
    origin: Literal["human", "evolved"] = "human"
    version: int = 1
    params: dict[str, float] = Field(default_factory=dict, description="thresholds of the check (registered ones)")
    history: list[HistoryEntry] = Field(default_factory=list)

    @property
    def check_name(self) -> str | None:
        """The check to run for `check:<name>` criteria, None for judged ones."""
        return self.kind.split(":", 1)[1] if self.kind.startswith("check:") else None


class ChangelogEntry(_Strict):
    version: int
    date: str
    author: str
    changes: list[str]
    rationale: str
    evidence: list[str] = Field(default_factory=list)


class Rubric(_Strict):
    stage: Stage
    version: int = Field(ge=1)
    updated: str
    criteria: list[Criterion]
    changelog: list[ChangelogEntry] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_ids(self) -> Rubric:
        ids = [c.id for c in self.criteria]
        if len(ids) != len(set(ids)):
            raise ValueError(f"criteria: duplicate ids {sorted({i for i in ids if ids.count(i) > 1})}")
        return self

    def criterion(self, criterion_id: str) -> Criterion | None:
        return next((c for c in self.criteria if c.id == criterion_id), None)

    def as_prompt(self) -> str:
        """The criteria as a numbered list for an analyst prompt."""
        lines = [f"Rubric {self.stage} v{self.version}:"]
        for n, c in enumerate(self.criteria, 1):
            flag = "mandatory" if c.mandatory else "advisory"
            lines.append(f"{n}. [{c.id}] ({c.kind}, {flag}) {c.text}")
        return "\n".join(lines)


class Change(_Strict):
    """One edit proposed by the retrospective. `add` needs text and kind; `modify` any field."""

    op: Literal["add", "modify", "remove"]
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    text: str | None = None
    kind: str | None = Field(None, pattern=r"^(check:[a-z][a-z0-9_]*|judged)$")
    mandatory: bool | None = None
    params: dict[str, float] | None = None
    rationale: str = Field(min_length=1)
    evidence: list[str] = Field(default_factory=list, description="what proves the change: replayed failures, "
                                                                   "accepted scenarios it still passes")


# --- files ---------------------------------------------------------------------------------------
def rubrics_root(root: str | os.PathLike[str] | None = None) -> Path:
    if root is None:
        from genesis import workspace

        return workspace.ensure().rubrics
    return Path(root)


def _check_stage(stage: str) -> None:
    if stage not in STAGES:
        raise RubricError(f"unknown stage {stage!r} (one of: {', '.join(STAGES)})")


def _path(root: Path, stage: str, version: int | None = None) -> Path:
    return root / f"{stage}.yaml" if version is None else root / "history" / f"{stage}.v{version}.yaml"


def _parse(path: Path) -> Rubric:
    try:
        raw = parse_yaml(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RubricError(f"{path}: no such rubric file") from None
    except (OSError, yaml.YAMLError) as err:
        raise RubricError(f"{path}: cannot read YAML: {err}") from None
    try:
        return Rubric.model_validate(raw)
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in err.errors())
        raise RubricError(f"{path}: {problems}") from None


def dump(rubric: Rubric) -> str:
    """Canonical YAML of a rubric (what is written, and what `diff` compares); empty params and
    evidence lists are left out, so a rubric without them reads as it always did."""
    data = rubric.model_dump(mode="json")
    for entry in [*data["criteria"], *(h for c in data["criteria"] for h in c["history"]), *data["changelog"]]:
        for key in ("params", "evidence"):
            if key in entry and not entry[key]:
                del entry[key]
    return dump_yaml(data, sort_keys=False, allow_unicode=True, width=100)


def _lock(root: Path) -> FileLock:
    return FileLock(root / ".lock", timeout=60.0)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# --- reading -------------------------------------------------------------------------------------
def load(stage: str, version: int | None = None, root: str | os.PathLike[str] | None = None) -> Rubric:
    """The current rubric of `stage`, or an earlier `version` of it."""
    _check_stage(stage)
    base = rubrics_root(root)
    current = _parse(_path(base, stage))
    if version is None or version == current.version:
        return current
    if not _path(base, stage, version).exists():
        raise RubricError(f"{stage}: no version {version} (available: {', '.join(map(str, versions(stage, base)))})")
    return _parse(_path(base, stage, version))


def load_all(root: str | os.PathLike[str] | None = None) -> dict[str, Rubric]:
    return {stage: load(stage, root=root) for stage in STAGES}


def versions(stage: str, root: str | os.PathLike[str] | None = None) -> list[int]:
    """Every version that can be loaded: the history snapshots plus the current one."""
    _check_stage(stage)
    base = rubrics_root(root)
    found = {int(p.stem.rsplit(".v", 1)[1]) for p in (base / "history").glob(f"{stage}.v*.yaml")
             if p.stem.rsplit(".v", 1)[1].isdigit()}
    found.add(load(stage, root=base).version)
    return sorted(found)


def history(stage: str, root: str | os.PathLike[str] | None = None) -> list[ChangelogEntry]:
    """One entry per version, oldest first, with author, changes and rationale."""
    return [entry.model_copy() for entry in load(stage, root=root).changelog]


def diff(stage: str, v1: int, v2: int, root: str | os.PathLike[str] | None = None) -> str:
    """Unified diff between the canonical YAML of two versions ('' when equal)."""
    old, new = dump(load(stage, v1, root)), dump(load(stage, v2, root))
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"{stage}.v{v1}.yaml", tofile=f"{stage}.v{v2}.yaml"))


# --- writing -------------------------------------------------------------------------------------
def _apply(rubric: Rubric, change: Change, version: int, date: str, protect_human: bool) -> str:
    """Apply one change in place; returns its changelog line."""
    existing = rubric.criterion(change.id)
    if protect_human and change.op != "add" and existing is not None and existing.origin == "human" and (
            change.op == "remove" or (change.kind not in (None, existing.kind))
            or (change.mandatory is False and existing.mandatory)):
        # The retrospective may tighten the rubrics but never drop or weaken a human-written check
        # (a model once proposed removing check:schema); humans do that with rollback or by hand.
        raise RubricError(f"{rubric.stage}: the {change.op} of human criterion {change.id!r} would weaken it; "
                          "only a human may do that")
    if change.op == "add":
        if existing is not None:
            raise RubricError(f"{rubric.stage}: cannot add {change.id!r}, it already exists")
        if not change.text or not change.kind:
            raise RubricError(f"{rubric.stage}: adding {change.id!r} needs text and kind")
        rubric.criteria.append(Criterion(
            id=change.id, text=change.text, kind=change.kind, mandatory=True if change.mandatory is None else change.mandatory,
            origin="evolved", version=version, params=change.params or {},
            history=[HistoryEntry(version=version, change="created", rationale=change.rationale, date=date,
                                  evidence=change.evidence)]))
        return f"add {change.id}"
    if existing is None:
        raise RubricError(f"{rubric.stage}: cannot {change.op} {change.id!r}, no such criterion")
    if change.op == "remove":
        rubric.criteria.remove(existing)
        return f"remove {change.id}"
    params = None if change.params is None else {**existing.params, **change.params}
    edits = {k: v for k, v in (("text", change.text), ("kind", change.kind), ("mandatory", change.mandatory),
                               ("params", params))
             if v is not None and getattr(existing, k) != v}
    if not edits:
        raise RubricError(f"{rubric.stage}: modifying {change.id!r} changes nothing")
    for key, value in edits.items():
        setattr(existing, key, value)
    existing.version = version
    existing.history.append(HistoryEntry(version=version, change=f"modified {', '.join(edits)}", rationale=change.rationale,
                                         date=date, evidence=change.evidence))
    return f"modify {change.id} ({', '.join(edits)})"


def _check_runnable(stage: str, crit: Criterion) -> None:
    """A criterion must be able to fail: its check is registered for the stage, its thresholds are
    ones that check reads, and a judged criterion sits on a stage where a model judges."""
    from genesis.checks.registry import CHECKS, JUDGED_STAGES, THRESHOLDS

    name = crit.check_name
    if name is None:
        if stage not in JUDGED_STAGES:
            raise RubricError(f"{stage}: judged criterion {crit.id!r} would never be judged: only "
                              f"{', '.join(sorted(JUDGED_STAGES))} has an analyst review")
        if crit.params:
            raise RubricError(f"{stage}: judged criterion {crit.id!r} takes no params")
        return
    if name not in CHECKS[stage]:
        raise RubricError(f"{stage}: criterion {crit.id!r} names check {name!r}, which is not registered for this "
                          f"stage (registered: {', '.join(sorted(CHECKS[stage]))})")
    unknown = sorted(set(crit.params) - set(THRESHOLDS.get((stage, name), {})))
    if unknown:
        raise RubricError(f"{stage}: check {name!r} has no parameter(s) {unknown}")


def _write_new_version(base: Path, current: Rubric, new: Rubric) -> None:
    """Snapshot the current version (once), then replace the rubric file; caller holds the lock."""
    snapshot = _path(base, current.stage, current.version)
    if not snapshot.exists():
        atomic_write_text(snapshot, dump(current))
    atomic_write_text(_path(base, current.stage), dump(new))


def apply_update(stage: str, changes: list[Change], author: str = "retrospective",
                 root: str | os.PathLike[str] | None = None) -> Rubric:
    """Write version N+1 of `stage` with `changes` applied (all or nothing); returns it."""
    _check_stage(stage)
    if not changes:
        raise RubricError(f"{stage}: an update needs at least one change")
    base = rubrics_root(root)
    with _lock(base):
        current = load(stage, root=base)
        new = current.model_copy(deep=True)
        version, date = current.version + 1, _now()
        lines = [_apply(new, change, version, date, protect_human=author != "human") for change in changes]
        if not new.criteria:
            raise RubricError(f"{stage}: an update may not remove every criterion")
        for change in changes:
            if change.op != "remove":
                _check_runnable(stage, new.criterion(change.id))
        new.version, new.updated = version, date
        new.changelog.append(ChangelogEntry(
            version=version, date=date, author=author, changes=lines,
            rationale="; ".join(f"{c.id}: {c.rationale}" for c in changes),
            evidence=[e for c in changes for e in c.evidence]))
        Rubric.model_validate(new.model_dump())  # re-check invariants (unique ids) before writing
        _write_new_version(base, current, new)
        return new


def rollback(stage: str, version: int, author: str = "human", root: str | os.PathLike[str] | None = None) -> Rubric:
    """Write a new version whose criteria equal those of `version`; nothing is deleted."""
    _check_stage(stage)
    base = rubrics_root(root)
    with _lock(base):
        current = load(stage, root=base)
        if version == current.version:
            raise RubricError(f"{stage}: version {version} is already the current one")
        old = load(stage, version, base)
        new_version, date = current.version + 1, _now()
        new = Rubric(stage=current.stage, version=new_version, updated=date,
                     criteria=[c.model_copy(deep=True) for c in old.criteria],
                     changelog=[*current.changelog, ChangelogEntry(
                         version=new_version, date=date, author=author, changes=[f"rollback to v{version}"],
                         rationale=f"restore the criteria of version {version}")])
        _write_new_version(base, current, new)
        return new
