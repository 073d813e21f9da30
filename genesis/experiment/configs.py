"""The four configurations and the one task the experiment runs: one query under one configuration.

A task generates into its own folder, then the independent validator judges whatever level the
configuration delivered (its final level.json, whatever its own verdict), so every configuration
is graded by the same judge. The task runs in a worker process and returns a plain dict.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from genesis.experiment.e2e import VERIFY_BUDGET
from genesis.experiment.e2e import generate as e2e_generate
from genesis.experiment.validator import validate

INFRA_ERROR = "infra_error"  # the model endpoint stayed unavailable: no verdict either way


@dataclass(frozen=True)
class ConfigSpec:
    key: str
    label: str
    description: str
    evolves: bool          # commits to its KB and updates its rubrics: its batches must run in order
    uses_rubrics: bool


CONFIGS = {c.key: c for c in (
    ConfigSpec("agent_se", "Agent w/ SE", "full pipeline; KB commits and rubric updates between batches", True, True),
    ConfigSpec("agent_no_se", "Agent w/o SE", "full pipeline with KB and rubrics frozen: every batch starts "
               "from the seed KB", False, True),
    ConfigSpec("e2e", "E2E", "brief, GDD, rules and level in one pass, no stage validation", False, False),
    ConfigSpec("e2e_verify", "E2E w/ verify", f"the one pass, regenerated with the failures as guidance until "
               f"its own simulation check passes ({VERIFY_BUDGET} attempts)", False, False),
)}


@dataclass
class Task:
    config: str
    batch: int
    index: int
    query: str
    out_dir: str
    kb_root: str
    rubrics_root: str
    model_cli: dict[str, Any] = field(default_factory=dict)
    seed: int = 0


@dataclass
class Generation:
    """What a configuration reports about its own run (the validator's verdict is kept apart)."""
    status: str
    claimed_playable: bool
    generation_time_s: float | None    # Stage 1 start -> success; None when the configuration did not succeed
    elapsed_s: float                   # Stage 1 start -> the configuration gave up or succeeded
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    fast_tracked: bool = False
    iterations: int = 1               # pipeline: PM gate decisions; E2E: generation passes
    rubric_versions: dict[str, int] | None = None
    error: str | None = None
    failed_verdicts: dict[str, int] = field(default_factory=dict)   # pipeline: failed stage verdicts per stage
    level_validations: int = 0        # pipeline: Stage 4 verdicts (each one simulates the level)
    certified: bool = False            # the pipeline's validity certificate holds (a benchmark task)
    certificate_failures: int = 0      # pipeline: Stage 4 verdicts whose certificate criterion failed


def _pipeline(task: Task, frozen: bool) -> Generation:
    from genesis.pipeline.runner import PipelineError, QueryError, start

    first_seen: dict[str, float] = {}

    def progress(stage: str, message: str) -> None:
        first_seen.setdefault(stage, time.perf_counter())

    t0 = time.perf_counter()
    error = None
    try:
        outcome = start(task.query, out=Path(task.out_dir), model_cli=task.model_cli or None, seed=task.seed,
                        progress=progress, kb_root=Path(task.kb_root), rubrics_root=Path(task.rubrics_root), register=False,
                        options={"frozen": True} if frozen else None)
        status, v = outcome.status, outcome.validation
    except (QueryError, PipelineError) as exc:
        status, error = "error", str(exc)[:600]
        path = Path(task.out_dir) / "validation.json"
        v = json.loads(path.read_text()) if path.exists() else {}
    end = time.perf_counter()
    verdicts = _verdicts(Path(task.rubrics_root), v.get("run_id"))
    begin = first_seen.get("brief", t0)
    # the evolve node starts the moment the Stage 4 gate passes: that is "Stage 4 success"
    success = first_seen.get("evolve") if status == "playable" else None
    usage = (v.get("usage") or {}).get("total") or {}
    return Generation(status=status, claimed_playable=status in ("playable", "not_certified"),
                      certified=bool(v.get("certified")),
                      generation_time_s=round(success - begin, 3) if success else None,
                      elapsed_s=round((success or end) - begin, 3), calls=int(usage.get("calls", 0)),
                      prompt_tokens=int(usage.get("prompt_tokens", 0)),
                      completion_tokens=int(usage.get("completion_tokens", 0)),
                      fast_tracked=bool(v.get("fast_tracked")), iterations=len(v.get("decisions") or []) or 1,
                      rubric_versions=v.get("rubric_versions"), error=error or (v.get("reason") if status != "playable" else None),
                      failed_verdicts=dict(Counter(r.stage for r in verdicts if r.outcome == "failed")),
                      level_validations=sum(r.stage == "level" for r in verdicts),
                      certificate_failures=sum(r.stage == "level" and any(s.criterion == "certificate" for s in r.signatures)
                                               for r in verdicts))


def _verdicts(rubrics_root: Path, run_id: str | None) -> list:
    """This run's stage verdicts, from the feedback log its configuration shares."""
    from genesis.pipeline import feedback

    return [r for r in feedback.read(rubrics_root) if r.kind == "verdict" and r.run_id == run_id] if run_id else []


def _e2e(task: Task, budget: int) -> Generation:
    o = e2e_generate(task.query, Path(task.out_dir), Path(task.kb_root), model_cli=task.model_cli or None,
                     verify_budget=budget)
    errors = [a.error or "; ".join(a.failures) for a in o.attempts if a.error or a.failures]
    return Generation(status=o.status, claimed_playable=o.status in ("done", "verified"),
                      generation_time_s=o.generation_time_s, elapsed_s=o.generation_time_s or o.elapsed_s,
                      calls=int(o.usage.get("calls", 0)), prompt_tokens=int(o.usage.get("prompt_tokens", 0)),
                      completion_tokens=int(o.usage.get("completion_tokens", 0)), iterations=len(o.attempts),
                      error=errors[-1][:600] if errors and o.status not in ("done", "verified") else None)


def generate(task: Task) -> Generation:
    if task.config == "agent_se":
        return _pipeline(task, frozen=False)
    if task.config == "agent_no_se":
        return _pipeline(task, frozen=True)
    if task.config == "e2e":
        return _e2e(task, budget=0)
    if task.config == "e2e_verify":
        return _e2e(task, budget=VERIFY_BUDGET)
    raise ValueError(f"unknown configuration {task.config!r}; known: {', '.join(CONFIGS)}")


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (simulation workers): unlike wall time,
    it does not depend on how busy the shared machine is."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def run_task(task: Task) -> dict[str, Any]:
    """Runs in a worker process: generate, then the independent Playability verdict."""
    from genesis.llm.client import ModelUnavailableError

    t0, c0 = time.perf_counter(), cpu_seconds()
    try:
        gen = generate(task)
    except ModelUnavailableError as exc:  # no verdict on the configuration: left out of its Playability
        gen = Generation(status=INFRA_ERROR, claimed_playable=False, generation_time_s=None,
                         elapsed_s=round(time.perf_counter() - t0, 3), error=str(exc)[:600])
    except Exception as exc:  # one broken generation must not sink the experiment; it scores unplayable
        gen = Generation(status="error", claimed_playable=False, generation_time_s=None,
                         elapsed_s=round(time.perf_counter() - t0, 3), error=f"{type(exc).__name__}: {exc}"[:600])
    c1 = cpu_seconds()
    verdict = validate(task.out_dir)
    return {"config": task.config, "batch": task.batch, "index": task.index, "query": task.query,
            "out_dir": task.out_dir, **asdict(gen), "playable": verdict.playable,
            "validator": verdict.to_dict(), "task_wall_s": round(time.perf_counter() - t0, 2),
            "generation_cpu_s": round(c1 - c0, 2), "validation_cpu_s": round(cpu_seconds() - c1, 2)}
