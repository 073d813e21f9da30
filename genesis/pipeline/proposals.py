"""Typed rubric proposals: what a retrospective (offline or model-backed) may ask for.

Three kinds exist, all bounded by the check registry: enable a registered check that the rubric
does not run yet, tighten a registered threshold of a check the rubric runs, or add a judged
criterion on a stage where a model judges. `problems` says why a proposal cannot be applied; a
valid one becomes a rubric_store.Change only after the replay gate (genesis.pipeline.replay).
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from genesis import rubric_store
from genesis.checks.registry import CATCHES, CHECK_TEXT, CHECKS, JUDGED_STAGES, THRESHOLDS
from genesis.pipeline.feedback import FeedbackRecord

DEFAULT_MIN_OCCURRENCES = 2


class RubricProposal(BaseModel):
    """One rubric change proposed from recurring failures in the feedback log."""

    model_config = ConfigDict(extra="forbid")
    action: Literal["enable_check", "tighten_param", "add_judged"] = Field(
        description="enable_check: add a criterion running a registered check the stage's rubric does not run yet; "
                    "tighten_param: make a registered threshold of a check the rubric already runs stricter; "
                    "add_judged: add a criterion a model judges (only on a stage with an analyst review)")
    stage: Literal["gdd", "rules", "level"] = Field(description="the rubric the change applies to")
    criterion_id: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="snake_case id of the criterion to add, or "
                                                                         "of the existing criterion to tighten")
    check: str | None = Field(None, description="enable_check and tighten_param: the registered check's name")
    text: str = Field("", description="enable_check and add_judged: the criterion text the writers and judges read")
    param: str | None = Field(None, description="tighten_param: the registered threshold to change")
    value: float | None = Field(None, description="tighten_param: the new, stricter value of the threshold")
    targets: list[str] = Field(min_length=1, description="the failure signature keys (stage:criterion:detail_class) "
                                                         "from the feedback log this change must catch")
    rationale: str = Field(min_length=1, description="the recurring failures that motivate it, with their count")


class ProposalSet(BaseModel):
    """The retrospective's answer."""

    model_config = ConfigDict(extra="forbid")
    proposals: list[RubricProposal] = Field(default_factory=list, description="the changes, most useful first; "
                                                                              "empty when nothing recurs")
    summary: str = Field("", description="what the feedback log shows, in a few sentences")


def recurring(records: list[FeedbackRecord], min_occurrences: int = DEFAULT_MIN_OCCURRENCES) -> dict[str, int]:
    """Failure signature keys seen in at least `min_occurrences` different runs (infrastructure
    failures carry no signature and never count)."""
    runs: dict[str, set[str]] = {}
    for r in records:
        if r.kind == "verdict" and r.outcome == "failed" and not r.infra:
            for s in r.signatures:
                runs.setdefault(s.key, set()).add(r.run_id)
    return {k: len(v) for k, v in sorted(runs.items()) if len(v) >= min_occurrences}


def _criterion(rubrics: dict[str, rubric_store.Rubric], stage: str, check: str) -> rubric_store.Criterion | None:
    return next((c for c in rubrics[stage].criteria if c.check_name == check), None)


def problems(p: RubricProposal, rubrics: dict[str, rubric_store.Rubric]) -> list[str]:
    """Why the proposal cannot be applied to these rubrics (empty: it can)."""
    if p.action == "add_judged":
        out = [] if p.stage in JUDGED_STAGES else [
            f"a judged criterion on {p.stage} would never be judged (only {', '.join(sorted(JUDGED_STAGES))} has an "
            "analyst review)"]
        if not p.text.strip():
            out.append("a judged criterion needs its text")
        if rubrics[p.stage].criterion(p.criterion_id) is not None:
            out.append(f"{p.stage} already has a criterion {p.criterion_id!r}")
        return out
    if not p.check or p.check not in CHECKS[p.stage]:
        return [f"no check named {p.check!r} is registered for {p.stage} (registered: {', '.join(sorted(CHECKS[p.stage]))})"]
    present = _criterion(rubrics, p.stage, p.check)
    if p.action == "enable_check":
        if present is not None:
            return [f"{p.stage} already runs check:{p.check} as {present.id!r}"]
        if rubrics[p.stage].criterion(p.criterion_id) is not None:
            return [f"{p.stage} already has a criterion {p.criterion_id!r}"]
        return []
    spec = THRESHOLDS.get((p.stage, p.check), {}).get(p.param or "")
    if spec is None:
        return [f"check {p.check!r} has no tunable threshold {p.param!r} "
                f"(it has: {sorted(THRESHOLDS.get((p.stage, p.check), {})) or 'none'})"]
    if present is None:
        return [f"{p.stage} does not run check:{p.check}: enable it before tightening it"]
    if p.value is None:
        return ["tighten_param needs a value"]
    current = present.params.get(p.param, spec.default)
    stricter = p.value > current if spec.tighter == "up" else p.value < current
    within = p.value <= spec.limit if spec.tighter == "up" else p.value >= spec.limit
    if not stricter:
        return [f"{p.param}={p.value:g} is not stricter than the current {current:g} (stricter is {spec.tighter})"]
    if not within:
        return [f"{p.param}={p.value:g} is beyond the strictest allowed value {spec.limit:g}"]
    return []


def candidate(p: RubricProposal, rubrics: dict[str, rubric_store.Rubric]) -> rubric_store.Criterion:
    """The criterion as it would read after the change."""
    if p.action == "tighten_param":
        present = _criterion(rubrics, p.stage, p.check or "")
        return present.model_copy(update={"params": {**present.params, p.param: p.value}})
    kind = "judged" if p.action == "add_judged" else f"check:{p.check}"
    return rubric_store.Criterion(id=p.criterion_id, text=p.text or CHECK_TEXT.get((p.stage, p.check or ""), p.criterion_id),
                                  kind=kind, origin="evolved")


def to_change(p: RubricProposal, rubrics: dict[str, rubric_store.Rubric], evidence: list[str]) -> rubric_store.Change:
    crit = candidate(p, rubrics)
    if p.action == "tighten_param":
        return rubric_store.Change(op="modify", id=crit.id, params={p.param: p.value}, rationale=p.rationale,
                                   evidence=evidence)
    return rubric_store.Change(op="add", id=crit.id, text=crit.text, kind=crit.kind, mandatory=True,
                               rationale=p.rationale, evidence=evidence)


def catalog_proposals(recurring_keys: dict[str, int], rubrics: dict[str, list[dict]]) -> list[RubricProposal]:
    """The offline retrospective: for each recurring signature, enable the earliest registered check
    that catches its class and is not yet in force; when all are, tighten one of their thresholds.
    `rubrics` holds each stage's criteria as the PM's prompt shows them ({id, kind, params, text})."""
    out: list[RubricProposal] = []
    for key, n in recurring_keys.items():
        taken = {(p.stage, p.check) for p in out}
        options = [p for stage, check in CATCHES.get(key.rsplit(":", 1)[1], ()) if (stage, check) not in taken
                   for p in [_catalog_option(key, n, stage, check, rubrics)] if p is not None]
        out += options[:1]
    return out


def _catalog_option(key: str, n: int, stage: str, check: str, rubrics: dict[str, list[dict]]) -> RubricProposal | None:
    why = f"{n} runs failed with {key}"
    present = next((c for c in rubrics.get(stage, []) if c.get("kind") == f"check:{check}"), None)
    if present is None:
        return RubricProposal(action="enable_check", stage=stage, criterion_id=check, check=check,  # type: ignore[arg-type]
                              text=CHECK_TEXT[(stage, check)], targets=[key],
                              rationale=f"{why}; check:{check} catches this class of failure")
    for param, spec in THRESHOLDS.get((stage, check), {}).items():
        current = (present.get("params") or {}).get(param, spec.default)
        value = round(current + spec.step if spec.tighter == "up" else current - spec.step, 6)
        if (value <= spec.limit) if spec.tighter == "up" else (value >= spec.limit):
            return RubricProposal(action="tighten_param", stage=stage, criterion_id=present["id"], check=check,  # type: ignore[arg-type]
                                  param=param, value=value, targets=[key],
                                  rationale=f"{why} although check:{check} runs; {param} {current:g} -> {value:g}")
    return None
