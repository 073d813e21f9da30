"""Maps rubric criterion kinds to check functions and runs a rubric's criteria.

Besides the functions, the registry says what the retrospective may propose: which checks exist
per stage, which of their thresholds can be tightened (and in which direction), what a check
needs to be re-run on history, and on which stages a model judges `judged` criteria."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal

from genesis.checks import certificate_checks, clause_checks, gdd_checks, level_checks, playability_checks, rule_checks
from genesis.checks.context import CheckContext
from genesis.models import CriterionResult

Check = Callable[[CheckContext], tuple[bool, str]]

CHECKS: dict[str, dict[str, Check]] = {
    "brief": clause_checks.CHECKS,
    "gdd": {**gdd_checks.CHECKS, **playability_checks.GDD_CHECKS},
    "rules": rule_checks.CHECKS,
    "level": {**level_checks.CHECKS, **playability_checks.LEVEL_CHECKS, **certificate_checks.CHECKS},
}

# Only Stage 2 has an analyst review that returns judgements per criterion; a judged criterion
# anywhere else would never be judged.
JUDGED_STAGES = frozenset({"gdd"})


@dataclass(frozen=True)
class Threshold:
    """A check parameter the retrospective may tighten: `tighter` says which way makes the check stricter."""
    default: float
    tighter: Literal["up", "down"]
    limit: float        # the strictest value allowed
    step: float


THRESHOLDS: dict[tuple[str, str], dict[str, Threshold]] = {
    ("level", "pathability"): {"min_region_share": Threshold(0.5, "up", 0.9, 0.1)},
    ("gdd", "start_pathability"): {"min_region_share": Threshold(0.5, "up", 0.9, 0.1)},
    ("level", "degenerate_difficulty"): {"max_share": Threshold(0.1, "up", 0.3, 0.05)},
    ("level", "requirement_evidence_present"): {"min_runs": Threshold(1, "up", 3, 1)},
}

# What a check reads, so it can be re-run on recorded artifacts: the GDD (and brief), the level
# file, or the level plus its validation runs and evidence.
Needs = Literal["gdd", "level", "runs", "rules"]
NEEDS: dict[str, Needs] = {"gdd": "gdd", "rules": "rules", "level": "runs"}
STATIC_LEVEL_CHECKS = frozenset({"schema", "placement", "pathability", "objectives_reachable"})

# Which recurring failure classes (see genesis.pipeline.feedback.DETAIL_CLASSES) each check
# catches, the earliest stage first: the retrospective enables the earliest one not yet in force.
CATCHES: dict[str, tuple[tuple[str, str], ...]] = {
    "trapped_units": (("gdd", "start_pathability"), ("level", "pathability")),
    "immobile_units": (("gdd", "start_pathability"), ("level", "pathability")),
    "reference_lost": (("gdd", "balance_preview"),),
    "unreachable": (("level", "objectives_reachable"),),
    "degenerate": (("level", "degenerate_difficulty"),),
    "wave_unengaged": (("level", "waves_reach_player"),),
    "rule_silent": (("level", "rules_fire"),),
    "unverified_requirement": (("level", "requirement_evidence_present"),),
    "unvaried_seeds": (("gdd", "variation_declared"),),
    "blind_replay_wins": (("gdd", "variation_declared"),),
}

# The criterion text a newly enabled check gets in a rubric.
CHECK_TEXT: dict[tuple[str, str], str] = {
    ("gdd", "start_pathability"): "Every mobile ground start unit, placed as the engine places it, can leave its "
                                  "spawn: its ground region is a large part of the map, not a walled pocket.",
    ("gdd", "balance_preview"): "The level the design describes (its library rules with their params, its teams "
                                "and map) is won by its reference strategy in every validation seed before any rule "
                                "or level is built.",
    ("gdd", "variation_declared"): "The GDD's variation says what the seed varies and through which seeded "
                                   "mechanism of the design, or quotes in fixed_by the request's clause that fixes "
                                   "every event.",
    ("level", "pathability"): "Every mobile unit has a feasible path away from its spawn.",
    ("level", "objectives_reachable"): "Every enemy objective stands next to ground the player's units can reach.",
    ("level", "degenerate_difficulty"): "The reference policy does not win every seed without losses in a small "
                                        "fraction of the time limit: the level must be hard enough to measure play.",
    ("level", "waves_reach_player"): "Every enemy wave a rule spawns reaches and fights the player's forces.",
    ("level", "rules_fire"): "Every rule of the level fires (leaves a log or message) in the validation runs.",
    ("level", "requirement_evidence_present"): "Every testable requirement has evidence in the validation runs.",
}


def registry_facts() -> dict[str, Any]:
    """What a retrospective may propose, per stage: registered checks with what each catches, its
    tunable thresholds and, for a check no initial rubric runs, the criterion text it would get; and
    whether a model judges criteria there."""
    catches: dict[tuple[str, str], list[str]] = {}
    for detail, checks in CATCHES.items():
        for key in checks:
            catches.setdefault(key, []).append(detail)
    return {stage: {"judged_criteria_allowed": stage in JUDGED_STAGES,
                    "checks": {name: {**({"text": CHECK_TEXT[(stage, name)]} if (stage, name) in CHECK_TEXT else {}),
                                      "catches": catches.get((stage, name), []),
                                      "thresholds": {p: {"default": t.default, "stricter": t.tighter, "limit": t.limit}
                                                     for p, t in THRESHOLDS.get((stage, name), {}).items()}}
                               for name in sorted(fns)}}
            for stage, fns in CHECKS.items()}


def needs(stage: str, name: str) -> Needs:
    if stage == "level" and name in STATIC_LEVEL_CHECKS:
        return "level"
    return NEEDS[stage]


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
                ctx.params = dict(getattr(crit, "params", None) or {})
                try:
                    ok, why = fn(ctx)
                except Exception as exc:  # a broken artifact must fail its check, not the pipeline
                    ok, why = False, f"check crashed: {type(exc).__name__}: {exc}"
                finally:
                    ctx.params = {}
        else:
            j = (judged or {}).get(crit.id)
            if j:
                ok, why = j.passed, j.reason
            elif judged is None:  # no analyst review at this stage: a criterion nobody judges proves nothing
                ok, why = False, "not judged: no analyst review at this stage (move it to the gdd rubric)"
            else:  # the analyst skipped it (a small model may return other ids): no evidence of quality
                ok, why = False, "not judged: the analyst returned no judgement for it"
        out.append(CriterionResult(id=crit.id, passed=ok, mandatory=crit.mandatory, kind=kind, reason=why))
    return out
