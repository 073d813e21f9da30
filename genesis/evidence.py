"""Checks each testable GDD requirement against the validation runs: their traces, outcomes and, for
`state` expectations, the engine state at the asked times."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.expect import evaluate, run_sampled, state_times
from genesis.checks.messages import failing_run_head, shorten
from genesis.models import Requirement
from genesis.simulate import SimRun, end_text, seat_policies


def run_view(run: SimRun, states: dict[float, dict] | None = None) -> dict[str, Any]:
    return {"trace": run.events, "winners": run.winners, "losers": run.losers, "reason": run.reason,
            "ended_by": run.ended_by, "duration": run.duration, "states": states or {}}


def state_samples(level_path: Path, run: SimRun, times: list[float]) -> dict[float, dict]:
    """The state at `times` in a replay of `run`: the simulation is deterministic, so the same level,
    seed and policy give the same run; a replay whose trace differs yields no samples. A run stopped
    once the player's outcome was decided is replayed to the same stop, so a time after it reads the
    final state, as for a game that ended."""
    from engine import Simulation, load_level

    level = load_level(level_path)
    sim = Simulation(level, seed=run.seed, policies=seat_policies(level, run.policy, run.seed))
    result, states = run_sampled(sim, run.duration if run.ended_by == "decided" else None, times)
    return states if result.trace_hash == run.trace_hash else {}


def requirement_evidence(requirements: list[Requirement], runs: list[SimRun], map_size: tuple[float, float],
                         level_path: Path | None = None) -> list[dict[str, Any]]:
    """One entry per requirement: passed when its expectations hold in most runs of its policy.

    `status` is verified, failed, unverified (testable but with no expectation, or no run to check it
    on: no evidence either way) or untestable (the GDD says no trace can show it)."""
    out = []
    times = state_times([e for r in requirements if r.testable for e in r.expect])
    states: dict[tuple[str, int], dict[float, dict]] = {}
    if times and level_path is not None:
        for run in runs:
            if run.ok and (run.policy, run.seed) not in states:
                copied = states.get((run.policy, run.same_as_seed)) if run.same_as_seed is not None else None
                states[(run.policy, run.seed)] = copied if copied is not None else state_samples(level_path, run, times)
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
                results = evaluate(req.expect, run_view(run, states.get((run.policy, run.seed))), map_size)
                per_run.append({"seed": run.seed, "passed": all(r.passed for r in results), "ended": _ended(run),
                                "details": [f"{r.description}: {r.detail}" for r in results],
                                "failures": [f"{r.description}: {r.detail}" for r in results if not r.passed]})
            passed = sum(p["passed"] for p in per_run) * 2 > len(per_run)
            entry.update(passed=passed, status="verified" if passed else "failed", detail=_evidence_detail(per_run, passed),
                         per_run=per_run)
        out.append(entry)
    return out


def _evidence_detail(per_run: list[dict[str, Any]], passed: bool) -> str:
    """What decided the requirement: on a failure the failing expectations (of the first failing
    seed), never a satisfied one; on a pass what the first run showed."""
    if passed:
        # a passing run's details, and how many runs passed (a requirement passes on most runs, not all)
        shown = next(p for p in per_run if p["passed"])
        ok = sum(p["passed"] for p in per_run)
        return (f"{ok}/{len(per_run)} runs, e.g. seed {shown['seed']}: " if ok < len(per_run) else "") \
            + "; ".join(shown["details"])
    failing = next(p for p in per_run if not p["passed"])
    return failing_run_head(failing) + "; ".join(failing["failures"])


def _ended(run) -> str:
    """How a run ended, so a failed expectation about a later moment shows why it never came, and where
    each side's army stood then (did the attackers ever reach what they were sent at?)."""
    how = run.decided or run.reason or run.ended_by
    where = end_text(run)
    return f"the run ended at {run.duration:.0f} s" + (f": {shorten(how, 120)}" if how else "") + \
        (f"; {where}" if where else "")
