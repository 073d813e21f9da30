"""Run an evaluation: every (task, agent, seed) game not already in the results file, in worker
processes of a SimPool, the results file rewritten after each finished game (an interrupted run
resumes where it stopped), then the leaderboard."""
from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pydantic import ValidationError

from genesis.eval.agents import AgentSpecError, build_policy, resolve_agent
from genesis.eval.results import EvalEpisode, EvalResults, TaskEntry, suite_hash
from genesis.eval.suite import SuiteError, Task, load_suite
from genesis.eval.summary import CI_METHOD, agent_summaries, ladder_report
from genesis.fileio import atomic_write_json, read_json_object
from genesis.play.runner import SCRIPTED_INTERVAL
from genesis.simulate import DEFAULT_TIMEOUT_S, SimPool, process_budget

RESULTS_FILE = "results.json"


class EvalError(ValueError):
    """Bad input to `genesis eval` (exit status 2)."""


@dataclass(frozen=True)
class EvalJob:
    task: Task
    agent: str
    seed: int


@dataclass
class EvalFailure:
    task: str
    agent: str
    seed: int
    error: str


@dataclass
class EvalOutcome:
    results: EvalResults
    results_path: Path
    played: int                                   # games played by this run (the others were resumed)
    resumed: int
    failures: list[EvalFailure] = field(default_factory=list)
    wall_s: float = 0.0
    leaderboard: list[Path] = field(default_factory=list)


def run_eval_job(job: EvalJob) -> EvalEpisode | EvalFailure:
    """Runs in the worker process: one seeded game, scored with `genesis play`'s metrics."""
    from engine import load_level
    from genesis.play.agents import ScriptedAgent
    from genesis.play.episode import run_episode
    from genesis.play.metrics import episode_metrics

    t = job.task
    try:
        policy = build_policy(job.agent, team=t.team, seed=job.seed, decision_interval=SCRIPTED_INTERVAL)
        agent = ScriptedAgent(job.agent, t.team, job.seed, SCRIPTED_INTERVAL, policy=policy)
        episode = run_episode(load_level(t.level_path), agent, seed=job.seed, team=t.team,
                              decision_interval=SCRIPTED_INTERVAL, record_replay=False)
        metrics = episode_metrics(episode, t.n_teams, t.free_for_all)
        return EvalEpisode(task=t.id, agent=job.agent, **metrics.model_dump())
    except Exception as exc:  # an agent's crash fails its game, the evaluation goes on and reports it
        return EvalFailure(t.id, job.agent, job.seed, f"{type(exc).__name__}: {exc}")


def versions() -> dict[str, str]:
    from genesis import __version__
    from genesis.validation_cache import engine_version

    return {"genesis_version": __version__, "engine_version": engine_version()}


def previous_episodes(path: Path, tasks: list[Task], pinned: dict[str, str]) -> list[EvalEpisode]:
    """The episodes of an earlier run still valid for this suite (same task and level hash). A file
    written by other versions is refused: its numbers are not comparable with new ones."""
    data = read_json_object(path)
    if data is None:
        return []
    theirs = {k: data.get(k) for k in pinned}
    if theirs != pinned:
        raise EvalError(f"{path} holds results of {theirs}, not of this installation {pinned}: "
                        "evaluate into another --out folder (or delete the file)")
    hashes = {t.id: t.level_hash for t in tasks}
    try:
        known = {t["id"]: t["level_hash"] for t in data.get("tasks") or []}
        return [EvalEpisode(**e) for e in data.get("episodes") or []
                if hashes.get(e.get("task")) is not None and hashes[e["task"]] == known.get(e["task"])]
    except (KeyError, TypeError, AttributeError, ValidationError) as exc:
        raise EvalError(f"{path} is not a results file of `genesis eval` ({type(exc).__name__}: {exc}); "
                        "evaluate into another --out folder (or delete the file)") from None


def build_results(suite: Path, tasks: list[Task], episodes: list[EvalEpisode], pinned: dict[str, str]) -> EvalResults:
    episodes = sorted(episodes, key=lambda e: e.key)
    entries = [TaskEntry(**t.summary()) for t in tasks]
    summaries = agent_summaries(tasks, episodes)
    return EvalResults(**pinned, suite=str(Path(suite).resolve()), suite_hash=suite_hash(entries), tasks=entries,
                       ci_method=CI_METHOD, episodes=[e.record() for e in episodes], agents=summaries,
                       ladder=ladder_report(tasks, summaries))


def _play(jobs: list[EvalJob], workers: int, timeout_s: float, done: Callable[[EvalEpisode | EvalFailure], None]) -> None:
    """Every job on a pool of `workers` processes; one that overruns `timeout_s` is killed (with the
    pool: the jobs still queued are submitted again to a new one)."""
    queue = list(jobs)
    with SimPool(workers) as pool:
        while queue:
            pending = [(job, pool.submit(run_eval_job, job)) for job in queue]
            queue = []
            for k, (job, res) in enumerate(pending):
                try:
                    done(res.get(timeout=timeout_s))
                except mp.TimeoutError:
                    done(EvalFailure(job.task.id, job.agent, job.seed, f"killed after {timeout_s:.0f} s wall clock"))
                    pool.close()
                    queue = [j for j, _ in pending[k + 1:]]
                    break


def evaluate(suite: Path, agents: list[str], seeds: int, *, out: Path | None = None, workers: int | None = None,
             timeout_s: float = DEFAULT_TIMEOUT_S, progress: Callable[[str], None] | None = None) -> EvalOutcome:
    """Play seeds 0..N-1 of every task with every agent (resuming from OUT/results.json), write the
    results and the leaderboard; returns what was done."""
    from genesis.eval.leaderboard import write_leaderboard

    if not agents:
        raise EvalError("give at least one --agent")
    if len(set(agents)) != len(agents):
        raise EvalError("an --agent is given twice")
    if seeds < 1:
        raise EvalError("--seeds must be at least 1")
    try:
        for spec in agents:
            resolve_agent(spec)
        tasks = load_suite(suite)
    except (AgentSpecError, SuiteError) as exc:
        raise EvalError(str(exc)) from None
    started = time.perf_counter()
    folder = Path(out) if out is not None else Path(suite) / "eval"
    path = folder / RESULTS_FILE
    pinned = versions()
    episodes = {e.key: e for e in previous_episodes(path, tasks, pinned)}
    jobs = [EvalJob(t, a, s) for t in tasks for a in agents for s in range(seeds) if (t.id, a, s) not in episodes]
    resumed = len(tasks) * len(agents) * seeds - len(jobs)
    failures: list[EvalFailure] = []

    def done(result: EvalEpisode | EvalFailure) -> None:
        if isinstance(result, EvalFailure):
            failures.append(result)
            msg = f"{result.task} · {result.agent} · seed {result.seed}: FAILED ({result.error})"
        else:
            episodes[result.key] = result
            atomic_write_json(path, build_results(suite, tasks, list(episodes.values()), pinned).model_dump(mode="json"))
            msg = f"{result.task} · {result.agent} · seed {result.seed}: {result.outcome} at {result.game_time_s:g} s"
        if progress:
            progress(msg)

    if jobs:
        _play(jobs, max(1, min(workers or process_budget(), len(jobs))), timeout_s, done)
    results = build_results(suite, tasks, list(episodes.values()), pinned)
    atomic_write_json(path, results.model_dump(mode="json"))
    pages = write_leaderboard(results, folder)
    return EvalOutcome(results=results, results_path=path, played=len(jobs) - len(failures), resumed=resumed,
                       failures=failures, wall_s=round(time.perf_counter() - started, 2), leaderboard=pages)
