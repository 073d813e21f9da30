"""Validity certificate of a scenario: evidence that it measures play, not luck or a fixed script.

Checks, over the validation seeds:
- replay: the reference run of the first seed, replayed, gives the same trace (determinism): the
  validation's replay of its opening when that game is reused, else a whole second game;
- reference_wins: the scripted reference policy wins every seed;
- idle_loses: an agent that gives no orders wins no seed;
- open_loop: the reference's first-seed orders replayed by game time, blind to what happens
  (`engine.agent.open_loop.OpenLoopPolicy`), do not win every seed (else a fixed script solves it);
- ladder: win rates of idle < random < scripted rush < reference, with the flags
  trivial (the weakest non-idle agent, random, wins every seed; or the reference wins every seed
  in under 10% of the time limit, losing no unit on the first seed) and impossible (no agent of
  the ladder wins).
`valid` holds when every check passes and neither flag is raised. With GENESIS_CERTIFICATE=off
the pipeline records that it skipped the certificate (the test suite does, for speed). Reference and idle runs the
pipeline already made (`prior` run summaries) are reused rather than run again. Generated levels
are hostile, so every run goes through a worker process with a hard wall-clock kill
(`genesis.simulate`).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from engine.errors import EngineError
from genesis.fileio import atomic_write_text
from genesis.simulate import DEFAULT_TIMEOUT_S, SimPool, copy_followers, seed_leaders
from genesis.validation_cache import engine_version, level_fingerprint

SEEDS = (0, 1, 2)
LADDER = ("idle", "random", "rush", "reference")
TRIVIAL_TIME_SHARE = 0.10


@dataclass
class CertJob:
    level_path: str
    seed: int
    agent: str                                      # a LADDER name or "open_loop"
    schedule: list[dict] = field(default_factory=list)
    keep_trace: bool = False


@dataclass
class CertRun:
    seed: int
    agent: str
    ok: bool
    won: bool = False
    duration: float = 0.0
    units_lost: int = 0
    trace_hash: str = ""
    error: str | None = None
    schedule: list[dict] = field(default_factory=list)
    seed_independent: bool = False
    same_as_seed: int | None = None      # a copy of this seed's game, which drew nothing from its seed


def _agent_teams(level) -> list[int]:
    return [t.id for t in level.config.teams if t.controller.type == "agent"] or [level.config.teams[0].id]


def run_cert_job(job: CertJob) -> CertRun:
    """Runs in the worker process: one seeded game with one agent in every agent seat."""
    from engine import Simulation, load_level
    from engine.agent.open_loop import OpenLoopPolicy, RushPolicy
    from engine.agent.policies import make_policy

    try:
        level = load_level(job.level_path)
        teams = _agent_teams(level)
        if job.agent == "open_loop":
            policies = {t: OpenLoopPolicy(team=t, seed=job.seed, schedule=[s for s in job.schedule if s["team"] == t])
                        for t in teams}
        elif job.agent == "rush":
            policies = {t: RushPolicy(team=t, seed=job.seed) for t in teams}
        else:
            policies = {t: make_policy(job.agent, team=t, seed=job.seed) for t in teams}
        result = Simulation(level, seed=job.seed, policies=policies).run()
        first = teams[0]
        schedule = schedule_of(result.trace, teams) if job.keep_trace else []
        return CertRun(seed=job.seed, agent=job.agent, ok=result.ended_by != "error", won=first in result.winners,
                       duration=float(result.duration),
                       units_lost=int(result.team_stats.get(first, {}).get("units_lost", 0)),
                       trace_hash=result.trace_hash, error=result.error, schedule=schedule,
                       seed_independent=result.seed_independent)
    except Exception as exc:  # a broken level is a finding of the certificate, not a crash
        return CertRun(seed=job.seed, agent=job.agent, ok=False, error=f"{type(exc).__name__}: {exc}")


class Check(BaseModel):
    passed: bool
    detail: str


class Certificate(BaseModel):
    valid: bool
    seeds: list[int]
    replay_hash: str
    checks: dict[str, Check]
    ladder: dict[str, float]          # agent -> win rate over the seeds
    trivial: bool
    impossible: bool
    flags: list[str]
    errors: list[str]
    # games not played because the same agent's game on another seed drew nothing from its seed
    copied_seeds: list[str] = []


def _rate(runs: list[CertRun]) -> float:
    return round(sum(r.won for r in runs) / len(runs), 3) if runs else 0.0


def _wins(runs: list[CertRun]) -> str:
    return f"{sum(r.won for r in runs)}/{len(runs)} seeds"


def _from_prior(summary: dict, team: int) -> CertRun:
    return CertRun(seed=int(summary["seed"]), agent=str(summary["policy"]), ok=bool(summary.get("ok")),
                   won=team in (summary.get("winners") or []), duration=float(summary.get("duration") or 0.0),
                   units_lost=int((summary.get("units_lost") or {}).get(str(team), 0)),
                   trace_hash=str(summary.get("trace_hash") or ""), error=summary.get("error"),
                   seed_independent=bool(summary.get("seed_independent")), same_as_seed=summary.get("same_as_seed"))


def _prefix_replay(summary: dict | None) -> Check | None:
    """The replay check from a validation game whose opening was replayed in another process, or None
    when the game was not replayed."""
    replay = (summary or {}).get("determinism") or {}
    if not replay.get("prefix_hash") or not replay.get("replay_prefix_hash"):
        return None
    same = replay["prefix_hash"] == replay["replay_prefix_hash"]
    return Check(passed=same, detail=f"reference seed {summary['seed']}: its first {replay.get('replayed_until_s', 0):g} s "
                                     f"replayed in another process left {'the same' if same else 'a different'} trace and "
                                     f"unit states ({replay['prefix_hash'][:12]} / {replay['replay_prefix_hash'][:12]})")


def schedule_of(trace: list[dict], teams: list[int]) -> list[dict]:
    """Every agent team's orders in a game's trace, by game time (what the open-loop games replay)."""
    from engine.agent.open_loop import order_schedule

    return [{**s, "team": t} for t in teams for s in order_schedule(trace, t)]


def _shared_key(job: CertJob):
    """Games of a deterministic agent share a seed's game; the taped game and random agents never do."""
    return None if job.keep_trace or job.agent == "random" else job.agent


def _settle(pool: SimPool, jobs: list[CertJob], runs: list[CertRun | None], leaders: dict[int, int],
            timeout_s: float, on_timeout) -> list[CertRun]:
    """`runs` with each follower of `leaders` a copy of its leader's game when that drew nothing from
    its seed, else played now."""
    later = copy_followers(runs, leaders,
                           lambda run, i: dataclasses.replace(run, seed=jobs[i].seed, schedule=[], same_as_seed=run.seed))
    played = pool.gather([jobs[i] for i in later], [pool.submit(run_cert_job, jobs[i]) for i in later],
                         timeout_s=timeout_s, on_timeout=on_timeout)
    for i, run in zip(later, played):
        runs[i] = run
    return runs


def _prior_runs(prior: list[dict] | None, seeds: tuple[int, ...], team: int) -> dict[tuple[str, int], CertRun]:
    known: dict[tuple[str, int], CertRun] = {}
    for summary in prior or []:
        if summary.get("policy") in ("reference", "idle") and summary.get("seed") in seeds:
            known.setdefault((summary["policy"], int(summary["seed"])), _from_prior(summary, team))
    return known


def prior_keys(prior: list[dict] | None, seeds: tuple[int, ...] = SEEDS) -> set[tuple[str, int]]:
    """The (agent, seed) games of `prior` the certificate reuses instead of playing them."""
    return set(_prior_runs(prior, seeds, 0))


class CertificateGames:
    """The certificate's games of one level, submitted to `pool` when constructed: queued behind the
    validation runs, they use the workers those leave idle while the pipeline goes on. The
    open-loop games replay the seed-0 reference game's orders: when that game is one of the reused
    validation games, `tape` hands over its trace (and its determinism replay stands for the replay
    check); otherwise the certificate plays a taped reference game of its own. They are submitted
    as soon as the orders are known. `finish` judges the level from them."""

    def __init__(self, level_path: Path, pool: SimPool, *, seeds: tuple[int, ...] = SEEDS,
                 reused: set[tuple[str, int]] = frozenset(), timeout_s: float = DEFAULT_TIMEOUT_S):
        from engine import load_level

        self.level_path, self.pool, self.seeds, self.reused, self.timeout_s = Path(level_path), pool, seeds, set(reused), timeout_s
        level = load_level(self.level_path)
        self.fingerprint = level_fingerprint(self.level_path)
        self.limit = float(level.config.switches.time_limit)
        self.teams = _agent_teams(level)
        self.team = self.teams[0]
        path = str(self.level_path)
        # the reused games come first, never played here: a later seed of theirs may copy them
        self.prior = [CertJob(path, s, a) for a, s in sorted(self.reused)]
        # the reused seed-0 reference game is taped by its caller (`tape`); else this plays its own
        self.tapes_own = ("reference", seeds[0]) not in self.reused
        own = [CertJob(path, seeds[0], "reference", keep_trace=True), CertJob(path, seeds[0], "reference")] \
            if self.tapes_own else []
        # strongest agents first: their games last longest, and a pool ends sooner with short games last
        own += [CertJob(path, s, a) for a in reversed(LADDER) for s in seeds
                if (a, s) not in self.reused and (a, s) != ("reference", seeds[0])]
        self.jobs = self.prior + own
        self.leaders = seed_leaders(self.jobs, _shared_key)
        self._lock = threading.Lock()
        self.loop_jobs: list[CertJob] = []
        self.loop_leaders: dict[int, int] = {}
        self._loop_pending: list | None = None
        self._loop_epoch = 0
        self.taped: CertRun | None = None       # the seed-0 reference game whose orders the open loop replays
        self.todo = [i for i in range(len(self.prior), len(self.jobs)) if i not in self.leaders]
        self.pending = []
        for i in self.todo:
            own_tape = self.tapes_own and i == len(self.prior)
            self.pending.append(pool.submit(run_cert_job, self.jobs[i], callback=self._submit_open_loop if own_tape else None))
        self.epoch = pool.epoch

    def tape(self, trace: list[dict]) -> None:
        """The trace of the reused seed-0 reference game: its orders start the open-loop games."""
        if not self.tapes_own:
            self._submit_open_loop(CertRun(seed=self.seeds[0], agent="reference", ok=True,
                                           schedule=schedule_of(trace, self.teams)))

    def _submit_open_loop(self, taped: CertRun, reopen: bool = False) -> None:
        """Runs in the pool's result thread as soon as the taped game is back (or from `tape`), and in
        `finish`, which submits the open-loop games again if they were lost with a closed pool."""
        with self._lock:
            self.taped = self.taped or taped
            if self._loop_pending is not None and self.pool.alive(self._loop_epoch):
                return
            self.loop_jobs = [CertJob(str(self.level_path), s, "open_loop", schedule=taped.schedule) for s in self.seeds]
            self.loop_leaders = seed_leaders(self.loop_jobs, _shared_key)
            try:
                self._loop_pending = [self.pool.submit(run_cert_job, job, reopen=reopen)
                                      for i, job in enumerate(self.loop_jobs) if i not in self.loop_leaders]
                self._loop_epoch = self.pool.epoch
            except ValueError:          # the pool was closed meanwhile: `finish` submits them again
                self._loop_pending = None

    def covers(self, level_path: Path) -> bool:
        """Whether `level_path` simulates like the level these games were started for."""
        try:
            return level_fingerprint(level_path) == self.fingerprint
        except EngineError:
            return False

    def alive(self) -> bool:
        """False once the pool its games run in was closed (a killed run, or the level was dropped)."""
        return self.pool.alive(self.epoch)

    def _killed(self, job: CertJob) -> CertRun:
        return CertRun(seed=job.seed, agent=job.agent, ok=False, error=f"killed after {self.timeout_s:.0f} s wall clock")

    def _played(self, jobs: list[CertJob], todo: list[int], pending: list, leaders: dict[int, int],
                known: list[CertRun] = ()) -> list[CertRun]:
        """The games of `jobs`: the first ones `known`, those of `todo` (submitted as `pending`)
        gathered, the others settled by their leaders."""
        runs: list[CertRun | None] = [*known] + [None] * (len(jobs) - len(known))
        gathered = self.pool.gather([jobs[i] for i in todo], pending, timeout_s=self.timeout_s, on_timeout=self._killed)
        for i, run in zip(todo, gathered):
            runs[i] = run
        return _settle(self.pool, jobs, runs, leaders, self.timeout_s, self._killed)

    def finish(self, prior: list[dict] | None = None) -> Certificate:
        """Waits for the games and judges the level; `prior` must hold the games named by `reused`."""
        known = _prior_runs(prior, self.seeds, self.team)
        if set(known) != self.reused:
            raise ValueError("the prior runs are not those the certificate's games were planned with")
        fresh = self._played(self.jobs, self.todo, self.pending, self.leaders,
                             [known[(job.agent, job.seed)] for job in self.prior])[len(self.prior):]
        first = ("reference", self.seeds[0])
        summary = next((r for r in prior or [] if (r.get("policy"), r.get("seed")) == first), None)
        replay = None if self.tapes_own else _prefix_replay(summary)
        if self.tapes_own:
            taped, replayed = fresh[0], fresh[1]
        else:
            replayed = known[first]
            with self._lock:
                recorded = self.taped
            if recorded is None or replay is None:     # never taped, or not replayed: play the game here
                job = CertJob(str(self.level_path), self.seeds[0], "reference", keep_trace=True)
                taped, replay = self._played([job], [0], [self.pool.submit(run_cert_job, job)], {})[0], None
            else:
                taped = dataclasses.replace(replayed, schedule=recorded.schedule)
        self._submit_open_loop(taped, reopen=True)
        with self._lock:
            loop_pending = self._loop_pending
        loop_todo = [i for i in range(len(self.loop_jobs)) if i not in self.loop_leaders]
        loop_runs = self._played(self.loop_jobs, loop_todo, loop_pending or [], self.loop_leaders)
        if replay is None:
            replay = Check(passed=taped.ok and taped.trace_hash == replayed.trace_hash,
                           detail=f"reference seed {self.seeds[0]} twice: {taped.trace_hash[:12]} / {replayed.trace_hash[:12]}")
        own = fresh[2:] if self.tapes_own else fresh
        runs = own + [r for k, r in known.items() if k != first]
        return _judge(self.seeds, self.limit, taped, replayed, replay, runs, loop_runs)


def certify(level_path: Path, *, seeds: tuple[int, ...] = SEEDS, prior: list[dict] | None = None,
            workers: int = 2, timeout_s: float = DEFAULT_TIMEOUT_S) -> Certificate:
    """Run the ladder, the replay and the open-loop replay on `level_path` and judge the level."""
    with SimPool(workers) as pool:
        return CertificateGames(level_path, pool, seeds=seeds, reused=prior_keys(prior, seeds),
                                timeout_s=timeout_s).finish(prior)


def _judge(seeds: tuple[int, ...], limit: float, taped: CertRun, replayed: CertRun, replay: Check, runs: list[CertRun],
           loop_runs: list[CertRun]) -> Certificate:
    by_agent = {a: sorted((r for r in [taped, *runs] if r.agent == a), key=lambda r: r.seed) for a in LADDER}
    errors = list(dict.fromkeys(f"{r.agent} seed {r.seed}: {r.error}" for r in [taped, replayed, *runs, *loop_runs]
                                if not r.ok))

    ref, idle = by_agent["reference"], by_agent["idle"]
    copies: dict[tuple[str, int], list[int]] = {}
    for r in sorted([*runs, *loop_runs], key=lambda r: (r.agent, r.seed)):
        if r.same_as_seed is not None:
            copies.setdefault((r.agent, r.same_as_seed), []).append(r.seed)
    copied = [f"{agent} seed{'s' * (len(later) > 1)} {', '.join(map(str, later))}: the game of seed {first} "
              "(it drew nothing from its seed)" for (agent, first), later in sorted(copies.items())]
    unvaried = len(loop_runs) > 1 and all(r.same_as_seed is not None for r in loop_runs[1:])
    checks = {
        "replay": replay,
        "reference_wins": Check(passed=all(r.won for r in ref), detail=f"reference won {_wins(ref)}"),
        "idle_loses": Check(passed=not any(r.won for r in idle), detail=f"idle won {_wins(idle)}"),
        "open_loop": Check(passed=bool(loop_runs) and not all(r.won for r in loop_runs),
                           detail=f"the reference's seed-{seeds[0]} orders ({len(taped.schedule)}) replayed blind "
                                  f"won {_wins(loop_runs)}"
                                  + ("; the level plays the same game on every seed" if unvaried else "")),
    }
    ladder = {a: _rate(by_agent[a]) for a in LADDER}
    flags = []
    if ladder["random"] == 1.0:
        flags.append("trivial: the random agent wins every seed")
    quick = [r for r in ref if r.won and r.duration < TRIVIAL_TIME_SHARE * limit]
    if ref and len(quick) == len(ref) and taped.units_lost == 0:
        flags.append(f"trivial: the reference wins every seed in under {TRIVIAL_TIME_SHARE:.0%} of the "
                     f"{limit:g} s limit, without losing a unit")
    impossible = not any(ladder.values())
    if impossible:
        flags.append("impossible: no agent of the ladder wins any seed")
    trivial = any(f.startswith("trivial") for f in flags)
    valid = all(c.passed for c in checks.values()) and not flags and not errors
    return Certificate(valid=valid, seeds=list(seeds), replay_hash=taped.trace_hash, checks=checks, ladder=ladder,
                       trivial=trivial, impossible=impossible, flags=flags, errors=errors, copied_seeds=copied)


def certificate_enabled() -> bool:
    return os.environ.get("GENESIS_CERTIFICATE", "on").lower() not in ("off", "0", "false", "no")


def cached_certificate(cache_dir: Path | None, level_path: Path) -> Certificate | None:
    cached = _cache_path(cache_dir, level_path)
    if cached is not None and cached.is_file():
        try:
            return Certificate.model_validate_json(cached.read_text())
        except ValueError:          # a torn or foreign file: certify again and overwrite it
            pass
    return None


def scenario_certificate(out_dir: Path, state: dict[str, Any], cache_dir: Path | None = None,
                         started: CertificateGames | None = None) -> dict[str, Any] | None:
    """The certificate of a playable scenario folder's level (None when there is nothing to certify).

    A certificate is a pure function of the level and the engine, so with `cache_dir` it is kept
    there under that key: a fast-tracked level that simulates like a certified one reuses it.
    `started` are the games already under way for this level (see `CertificateGames`); they are
    used while their pool is alive, they cover this level and the prior runs are those they were
    planned with, else the level is certified from scratch."""
    level_path = Path(out_dir) / "level.json"
    if state.get("status") != "playable" or not level_path.is_file():
        return None
    if not certificate_enabled():
        return {"skipped": "GENESIS_CERTIFICATE=off"}
    known = cached_certificate(cache_dir, level_path)
    if known is not None:
        return {**known.model_dump(), "cached": True}
    timeout = float((state.get("options") or {}).get("sim_timeout", DEFAULT_TIMEOUT_S))
    cert = None
    if started is not None and started.alive() and started.reused == prior_keys(state.get("runs")) \
            and started.covers(level_path):
        cert = started.finish(state.get("runs"))
    if cert is None:
        cert = certify(level_path, prior=state.get("runs"), timeout_s=timeout)
    cached = _cache_path(cache_dir, level_path)
    if cached is not None and not cert.errors:          # errors may come from the machine (a killed run)
        atomic_write_text(cached, cert.model_dump_json())
    return cert.model_dump()


def _cache_path(cache_dir: Path | None, level_path: Path) -> Path | None:
    if cache_dir is None:
        return None
    try:
        fingerprint = level_fingerprint(level_path)
    except EngineError:
        return None
    key = hashlib.sha256(json.dumps({"engine": engine_version(), "level": fingerprint, "seeds": list(SEEDS)},
                                    sort_keys=True).encode()).hexdigest()
    return Path(cache_dir) / "certificates" / f"{key}.json"
