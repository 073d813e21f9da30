"""Maps rubric criterion kinds to check functions and runs a rubric's criteria."""
from __future__ import annotations

from typing import Any, Callable

from genesis.checks import gdd_checks, level_checks, rule_checks
from genesis.checks import clause_checks
from genesis.checks.context import CheckContext
from genesis.models import CriterionResult

Check = Callable[[CheckContext], tuple[bool, str]]

CHECKS: dict[str, dict[str, Check]] = {
    "brief": clause_checks.CHECKS,
    "gdd": gdd_checks.CHECKS,
    "rules": rule_checks.CHECKS,
    "level": level_checks.CHECKS,
}


def run_criteria(stage: str, criteria: list[Any], ctx: CheckContext,
                 judged: dict[str, CriterionResult] | None = None) -> list[CriterionResult]:
    """Runs every automated criterion of a rubric stage; judged ones come from the analyst model."""
    out = []
    for crit in criteria:
        kind = crit.kind
        if kind.startswith("check:"):
            name = kind.split(":", 1)[1]
            fn = CHECKS[stage].get(name)
            if fn is None:
                ok, why = False, f"no automated check named {name!r} for stage {stage}"
            else:
                try:
                    ok, why = fn(ctx)
                except Exception as exc:  # a broken artifact must fail its check, not the pipeline
                    ok, why = False, f"check crashed: {type(exc).__name__}: {exc}"
        else:
            j = (judged or {}).get(crit.id)
            if j:
                ok, why = j.passed, j.reason
            elif judged is None:  # this stage has no analyst review (e.g. a judged criterion evolved into it)
                ok, why = True, "not judged (no analyst review at this stage)"
            else:  # the analyst skipped it (a small model may return other ids): no evidence of quality
                ok, why = False, "not judged: the analyst returned no judgement for it"
        out.append(CriterionResult(id=crit.id, passed=ok, mandatory=crit.mandatory, kind=kind, reason=why))
    return out
