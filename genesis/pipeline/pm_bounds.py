"""Hard limits on the PM's gate decisions, whatever model makes them.

The PM may be a small or confused model: it can "advance" a failing stage, roll back to a later
stage, or retry forever. The pipeline's guarantees do not rest on it: a stage advances iff its
rubric verdict passed, rollbacks only go to earlier stages, and the total budget is a hard cap: a
run never takes more stage attempts than it allows. Within it, a retry or rollback the PM asks for
is honoured; the stage budget (counted per visit of a stage: a rollback or an advance starts a new
one) bounds only the retries the pipeline itself substitutes for an invalid proposal. A failure no
retry can fix, such as a prompt larger than the model's context, stops at once.
"""
from __future__ import annotations

from genesis.models import MetaFeedback, Verdict

STAGE_ORDER = ("brief", "gdd", "rules", "level")
NEXT_STAGE = {"gdd": "rules", "rules": "level", "level": "done"}


def failing_criteria(verdict: Verdict) -> list[str]:
    """`id: reason` of every failed mandatory criterion (or the verdict's feedback when none is listed)."""
    failed = [f"{c.id}: {c.reason}" for c in verdict.criteria if not c.passed and c.mandatory]
    return failed or list(verdict.feedback) or ["the stage verdict did not pass"]


def settled_decision(stage: str, verdict: Verdict) -> MetaFeedback | None:
    """The gate's decision when no PM call could change it: a passing verdict advances, and with no failing
    criterion and no reviewer's word there is no guidance to pass on (at the last stage nothing acts after it)."""
    if not verdict.passed:
        return None
    target = NEXT_STAGE[stage]
    if target == "done":
        return MetaFeedback(decision="advance", target_stage="done", reason="the level passed every criterion; "
                            "nothing acts after it (no PM call)")
    if verdict.feedback or not all(c.passed for c in verdict.criteria):
        return None
    return MetaFeedback(decision="advance", target_stage=target,  # type: ignore[arg-type]
                        reason=f"the {stage} passed every criterion and no reviewer flagged anything: nothing to "
                               "pass on (no PM call)")


def bound_decision(stage: str, verdict: Verdict, proposed: MetaFeedback, *, attempts: int, stage_budget: int,
                   total: int, total_budget: int) -> tuple[MetaFeedback, str | None]:
    """The decision the pipeline follows, and why it differs from the PM's proposal (None when it does not)."""
    if verdict.passed:
        if NEXT_STAGE[stage] != "done" and total >= total_budget:
            stop = MetaFeedback(decision="stop", target_stage=stage,  # type: ignore[arg-type]
                                guidance=[f"stage {stage} passed, but no iteration is left for stage {NEXT_STAGE[stage]}"],
                                reason=f"total iteration budget spent ({total}/{total_budget})")
            return stop, None if proposed.decision == "stop" else f"the PM proposed {proposed.decision}; {stop.reason}"
        if proposed.decision == "advance":
            return proposed, None
        effective = proposed.model_copy(update={"decision": "advance", "target_stage": NEXT_STAGE[stage]})
        return effective, f"the PM proposed {proposed.decision} on a passing verdict; a passing stage advances"
    failing = failing_criteria(verdict)
    if verdict.unrecoverable:  # e.g. the prompt exceeds the model's context: every retry would fail the same way
        stop = MetaFeedback(decision="stop", target_stage=stage, guidance=failing,  # type: ignore[arg-type]
                            reason=f"no retry can pass: {verdict.unrecoverable}")
        return stop, None if proposed.decision == "stop" else f"the PM proposed {proposed.decision}; {stop.reason}"
    if proposed.decision == "stop":  # the PM may always stop a failing stage; the verdict says why
        return proposed.model_copy(update={"guidance": failing}), None
    if total >= total_budget:
        reason = f"total iteration budget spent at stage {stage} (total {total}/{total_budget})"
        stop = MetaFeedback(decision="stop", target_stage=stage, guidance=failing, reason=reason)  # type: ignore[arg-type]
        return stop, f"the PM proposed {proposed.decision} with no budget left"
    if proposed.decision == "rollback" and proposed.target_stage in STAGE_ORDER[:STAGE_ORDER.index(stage)]:
        # the target and every stage after it run again before this one can pass
        needed = STAGE_ORDER.index(stage) - STAGE_ORDER.index(proposed.target_stage) + 1
        if needed <= total_budget - total:
            return proposed, None
        retry = MetaFeedback(decision="retry", target_stage=stage,  # type: ignore[arg-type]
                             guidance=[*proposed.guidance, *failing], reason=proposed.reason)
        return retry, (f"the rollback to {proposed.target_stage} needs {needed} stage attempts to come back to "
                       f"{stage} and {total_budget - total} are left; retrying stage {stage}")
    if proposed.decision == "retry" and proposed.target_stage == stage:
        return proposed, None
    if attempts >= stage_budget:
        reason = f"stage budget spent at stage {stage} ({attempts}/{stage_budget}, total {total}/{total_budget})"
        stop = MetaFeedback(decision="stop", target_stage=stage, guidance=failing, reason=reason)  # type: ignore[arg-type]
        return stop, f"the PM proposed {proposed.decision} -> {proposed.target_stage}, which is not a valid step, " \
                     "and this stage has no retry left"
    # advance on a failing verdict, a rollback to this or a later stage, or a retry of another stage:
    # retry this stage, with the failing criteria added to whatever guidance the PM gave.
    effective = MetaFeedback(decision="retry", target_stage=stage,  # type: ignore[arg-type]
                             guidance=[*proposed.guidance, *failing], reason=proposed.reason)
    return effective, (f"the PM proposed {proposed.decision} -> {proposed.target_stage} on a failing verdict; "
                       f"retrying stage {stage}")
