"""The offline PM: MetaFeedback decisions and the rubric retrospective, from the feedback log."""
from __future__ import annotations

import hashlib
import re
from typing import Any

from genesis.checks.gdd_checks import UNTESTED
from genesis.models import MetaFeedback
from genesis.pipeline.proposals import ProposalSet, catalog_proposals

STAGE_ORDER = ["brief", "gdd", "rules", "level"]


def _failed(verdict: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in verdict.get("criteria", []) if not c["passed"] and c.get("mandatory", True)]


def meta_feedback(inputs: dict[str, Any]) -> MetaFeedback:
    stage = inputs["stage"]
    verdict = inputs["verdict"]
    attempts = int(inputs.get("attempts", 1))
    budget = int(inputs.get("budget", 3))
    total = int(inputs.get("total_iterations", attempts))
    total_budget = int(inputs.get("total_budget", 11))
    if verdict["passed"]:
        nxt = STAGE_ORDER[STAGE_ORDER.index(stage) + 1] if stage != "level" else "done"
        return MetaFeedback(decision="advance", target_stage=nxt, reason=f"{stage} passed its rubric")  # type: ignore[arg-type]
    failed = _failed(verdict)
    ids = {c["id"] for c in failed} | {c.get("kind", "").split(":")[-1] for c in failed}
    reasons = [f"{c['id']}: {c['reason']}" for c in failed]
    if attempts >= budget or total >= total_budget:
        return MetaFeedback(decision="stop", target_stage=stage, guidance=reasons,  # type: ignore[arg-type]
                            reason=f"iteration budget spent at stage {stage} ({attempts}/{budget}, total {total}/{total_budget})")
    if stage == "level":
        decision = _level_decision(inputs, failed, ids, reasons)
        if decision.decision == "stop":
            return decision
        # the failures' fingerprint goes with the decision, so the next gate sees whether they changed
        return decision.model_copy(update={"reason": f"{decision.reason} [failures "
                                                     f"{_fingerprint(reasons, inputs.get('runs'))}]"})
    return _design_decision(inputs, stage, failed, ids, reasons, attempts)


def _level_decision(inputs: dict[str, Any], failed: list[dict[str, Any]], ids: set[str],
                    reasons: list[str]) -> MetaFeedback:
    history = inputs.get("history", [])
    if _identical_to_last("level", reasons, history, inputs.get("runs")):
        # the simulations are deterministic: the same games failing word for word mean the last correction left
        # the level as it was (a strength already at its floor, forces the request fixes), so the next is no
        # different; a changed level whose games changed but failed alike is corrected again
        unmet = [e["id"] for e in inputs.get("evidence", []) if e.get("status") == "failed"]
        return MetaFeedback(decision="stop", target_stage="level", guidance=reasons,  # type: ignore[arg-type]
                            reason="the last correction left every failure word for word the same, so no change the "
                                   "offline designer can make addresses them; not honoured: "
                                   + ", ".join(sorted({c["id"] for c in failed}))
                                   + (f" (the runs do not show the requirements {', '.join(unmet)})" if unmet else ""))
    # an army that never moves while an idle player wins too was not needed, not trapped: the enemy is too weak
    # once placed where every group can leave, an army that still stays put holds by plan (a ranked
    # free-for-all's pocket): the failing criteria decide, not another identical placement
    placed_free = any(g.startswith(TRAPPED) for d in history for g in d.get("guidance", []))
    if "immobile_units" in inputs.get("signatures", []) and not placed_free \
            and _balance_guidance(failed) != [STRONGER]:
        return MetaFeedback(decision="rollback", target_stage="gdd", guidance=[TRAPPED, *reasons],
                            reason="the reference policy could not move its units")
    if ids and ids <= {"certificate", "difficulty"}:
        return _certificate_decision(failed)
    guidance = _balance_guidance(failed)
    if not guidance and _repeats_last_failure("level", failed, history):
        return MetaFeedback(decision="stop", target_stage="level", guidance=reasons,  # type: ignore[arg-type]
                            reason="the same criteria failed again and no design change addresses them")
    if "requirement_evidence" in ids:
        return MetaFeedback(decision="rollback", target_stage="gdd", guidance=guidance + reasons,
                            reason="requirements are not evidenced by the trace: the design must change")
    if "rule_tests_pass" in ids or "lua_compiles" in ids:
        return MetaFeedback(decision="rollback", target_stage="rules", guidance=reasons, reason="rules broken")
    if guidance:
        return MetaFeedback(decision="rollback", target_stage="gdd", guidance=guidance + reasons,
                            reason="balance must change in the design")
    return MetaFeedback(decision="retry", target_stage="level", guidance=reasons, reason="fix the level")


# The brief's requirements the offline design builds no evidence for: the brief reports their clauses
UNBUILT = "not built by the offline design (report their clauses as not honoured): "


def unbuilt_requirements(guidance: list[str]) -> set[str]:
    """The requirement ids an UNBUILT instruction names."""
    return {i.strip() for g in guidance if g.startswith(UNBUILT) for i in g[len(UNBUILT):].split(",") if i.strip()}


def _design_decision(inputs: dict[str, Any], stage: str, failed: list[dict[str, Any]], ids: set[str],
                     reasons: list[str], attempts: int) -> MetaFeedback:
    uncovered = next((re.search(re.escape(UNTESTED) + r": \[([^\]]*)\]", c["reason"])
                      for c in failed if c["id"] == "requirements_covered"), None)
    if stage == "gdd" and uncovered:
        # the family's design has nothing that shows these: writing it again would not either, so the brief
        # drops them and says which clauses are not built
        named = [i.strip(" '\"") for i in uncovered.group(1).split(",") if i.strip(" '\"")]
        return MetaFeedback(decision="rollback", target_stage="brief",  # type: ignore[arg-type]
                            guidance=[UNBUILT + ", ".join(named)],
                            reason="the design builds no evidence for " + ", ".join(named) + ": the brief reports "
                                   "their clauses as not honoured")
    if stage == "gdd" and ids <= {"balance_preview"} and any(w in r for r in reasons for w in ("weaker", "stronger")):
        # each retry moves the enemy's strength one more step (the writer counts the calls); the brief has no
        # say in balance, so a rollback to it would only write the same design again
        return MetaFeedback(decision="retry", target_stage="gdd", guidance=reasons,  # type: ignore[arg-type]
                            reason="the design's balance misses the reference play: change the enemy's strength")
    if stage in ("gdd", "rules") and _repeats_last_failure(stage, failed, inputs.get("history", []), corrections=2):
        # a retry and a rollback changed nothing: the next pass would write the same design again
        return MetaFeedback(decision="stop", target_stage=stage, guidance=reasons,  # type: ignore[arg-type]
                            reason="the same criteria failed after a retry and a rollback: no change addresses them")
    if stage == "rules" and attempts >= 2:
        return MetaFeedback(decision="rollback", target_stage="gdd", guidance=reasons,
                            reason="rules keep failing: choose other rule components")
    if stage == "gdd" and attempts >= 2:
        return MetaFeedback(decision="rollback", target_stage="brief", guidance=reasons,
                            reason="the GDD keeps failing: revisit the brief")
    return MetaFeedback(decision="retry", target_stage=stage, guidance=reasons, reason=f"fix the {stage}")  # type: ignore[arg-type]


TRAPPED = "units are trapped at their spawn and never move: place every mobile group where it can leave its spawn"
# Requirements whose evidence shows the player side winning too rarely / the idle side not losing.
PLAYER_MUST_WIN = ("survive_win", "production_win", "destroy_win", "capture_win")
IDLE_MUST_LOSE = ("objective_loss", "deadline_loss")
WEAKER = "enemy too strong for the reference play: make the enemy weaker"
STRONGER = "an idle player does not lose: make the enemy stronger"
VARY_MORE = "the seed does not change the game enough (a blind replay of one game wins): vary more per seed"
HARDER = "the level plays below the difficulty band asked: make it harder"
EASIER = "the level plays above the difficulty band asked: make it easier"
CHEAP_WIN = "a cheap policy (rush, turtle, random or a probe) wins every seed: make the cheap plan lose"


def _balance_guidance(failed: list[dict[str, Any]]) -> list[str]:
    """One corrective instruction the GDD writer acts on, read from the failed level criteria:
    the outcome scores of reference vs idle play, and which requirements lack evidence."""
    outcome = next((c["reason"] for c in failed if "outcome_discrimination" in c.get("kind", "")), "")
    ref_lost = any("reference_wins" in c.get("kind", "") for c in failed)
    evidence = next((c["reason"] for c in failed if "requirement_evidence" in c.get("kind", "")), "")
    unmet = set(re.findall(r"(?:^|; )(\w+): ", evidence))
    ref, idle = _score(outcome, "reference policy scores"), _score(outcome, "idle scores")
    if ref_lost or (ref is not None and ref < 0.5) or unmet & set(PLAYER_MUST_WIN):
        return [WEAKER]
    if (idle is not None and idle >= 0.5) or (outcome and ref is not None and idle is not None and idle >= ref) \
            or unmet & set(IDLE_MUST_LOSE):
        return [STRONGER]
    return []


def _certificate_decision(failed: list[dict[str, Any]]) -> MetaFeedback:
    """The level plays but is not certified, or not at the difficulty asked: the design must change, in
    the direction the failing checks point (the GDD writer reads these instructions)."""
    reason = next((c["reason"] for c in failed if c["id"] == "certificate"), "")
    failing = set(re.findall(r"(?:^not certified: |; )(\w+): ", reason))
    guidance = []
    if "reference_wins" in failing or "impossible" in reason:
        guidance.append(WEAKER)
    if failing & {"seeds_matter", "open_loop"}:
        guidance.append(VARY_MORE)
    if "no_cheap_win" in failing or "trivial" in reason:
        guidance.append(CHEAP_WIN)
    band = next((c["reason"] for c in failed if c["id"] == "difficulty"), "")
    if band:
        guidance.append(HARDER if "Make the design harder" in band else EASIER)
    return MetaFeedback(decision="rollback", target_stage="gdd", reason="the level plays but is not certified at the "
                        "difficulty asked: the design must change",
                        guidance=guidance + ["failing: " + ", ".join(sorted(failing | ({"difficulty"} if band else set())))])


def _repeats_last_failure(stage: str, failed: list[dict[str, Any]], history: list[dict[str, Any]],
                          corrections: int = 1) -> bool:
    """The last `corrections` corrections at this stage each named the same failing criteria: another
    unchanged pass is futile."""
    prev = [d for d in history if d.get("stage") == stage and d.get("decision") in ("retry", "rollback")]
    if len(prev) < corrections:
        return False
    ids = {c["id"] for c in failed}
    return all(ids <= {g.split(":", 1)[0].strip() for g in d.get("guidance", [])} for d in prev[-corrections:])


def _fingerprint(reasons: list[str], runs: list[dict[str, Any]] | None = None) -> str:
    """The failures word for word and, when the level's games are given, their trace hashes: a level the
    correction changed plays other games even where it fails alike."""
    games = sorted(f"{r.get('policy')}:{r.get('seed')}:{r.get('trace_hash')}" for r in runs or [])
    return hashlib.sha256("\n".join(sorted(reasons) + games).encode()).hexdigest()[:12]


def _identical_to_last(stage: str, reasons: list[str], history: list[dict[str, Any]],
                       runs: list[dict[str, Any]] | None = None) -> bool:
    """The last correction at this stage was made for these very failures, word for word (counts, seeds and
    times), of these very games, as its fingerprint shows."""
    prev = [d for d in history if d.get("stage") == stage and d.get("decision") in ("retry", "rollback")]
    return bool(prev and reasons) and f"[failures {_fingerprint(reasons, runs)}]" in prev[-1].get("reason", "")


def _score(text: str, label: str) -> float | None:
    m = re.search(re.escape(label) + r"\s+([0-9.]+)", text)
    return float(m.group(1)) if m else None


def retrospective(inputs: dict[str, Any]) -> ProposalSet:
    """Proposals from the check catalog for every failure signature that recurs (see
    genesis.pipeline.proposals.catalog_proposals); the replay gate decides what is adopted."""
    recurring = inputs.get("recurring", {})
    proposals = catalog_proposals(recurring, inputs.get("rubrics", {}))
    failures = len(inputs.get("failures", []))
    summary = (f"{len(proposals)} proposal(s) for {len(recurring)} recurring failure signature(s) in {failures} "
               f"failed verdicts" if proposals else
               f"no recurring failure without a catalog change in {failures} failed verdicts")
    return ProposalSet(proposals=proposals, summary=summary)
