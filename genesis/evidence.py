"""Checks each testable GDD requirement against the traces of the validation runs."""
from __future__ import annotations

from typing import Any

from engine.expect import evaluate
from genesis.models import Requirement
from genesis.simulate import SimRun


def run_view(run: SimRun) -> dict[str, Any]:
    return {"trace": run.events, "winners": run.winners, "losers": run.losers, "reason": run.reason,
            "ended_by": run.ended_by, "duration": run.duration}


def requirement_evidence(requirements: list[Requirement], runs: list[SimRun],
                         map_size: tuple[float, float]) -> list[dict[str, Any]]:
    """One entry per requirement: passed when its expectations hold in most runs of its policy.

    `status` is verified, failed, unverified (testable but with no expectation, or no run to check it
    on: no evidence either way) or untestable (the GDD says no trace can show it)."""
    out = []
    for req in requirements:
        entry: dict[str, Any] = {"id": req.id, "text": req.text, "testable": req.testable, "on": req.on}
        pool = [r for r in runs if r.policy == req.on and r.ok]
        if not req.testable:
            entry.update(passed=None, status="untestable", detail="not testable from a trace; listed in the brief",
                         per_run=[])
        elif not req.expect:
            entry.update(passed=None, status="unverified", detail="testable, but the GDD gives no expectation to check",
                         per_run=[])
        elif not pool:
            entry.update(passed=None, status="unverified", detail=f"no successful {req.on} run to check", per_run=[])
        else:
            per_run = []
            for run in pool:
                results = evaluate(req.expect, run_view(run), map_size)
                per_run.append({"seed": run.seed, "passed": all(r.passed for r in results),
                                "details": [f"{r.description}: {r.detail}" for r in results]})
            passed = sum(p["passed"] for p in per_run) * 2 > len(per_run)
            entry.update(passed=passed, status="verified" if passed else "failed", detail=per_run[0]["details"][0] if per_run[0]["details"] else "",
                         per_run=per_run)
        out.append(entry)
    return out
