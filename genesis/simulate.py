"""Runs validation simulations of untrusted levels in worker processes with a hard wall-clock kill.

Rule scripts are sandboxed, but C functions inside Lua are not metered, so every
simulation of a generated level runs in a child process that is killed when it overruns.
"""
from __future__ import annotations

import collections

import dataclasses
import multiprocessing as mp
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.replay import Replay, ReplayRecorder
from engine.result import Outcome, team_outcome
from engine.sim import TICK_HZ
from engine.snapshot import CATEGORIES
from genesis.parent_death import die_with_parent

DEFAULT_TIMEOUT_S = 120.0
# the validation games of a level: the reference policy must win every seed, idle must lose
REFERENCE_SEEDS = (0, 1, 2)
IDLE_SEEDS = (0, 1)
RUSH_SEEDS = (0, 1)       # played only for a requirement whose evidence is on the rush policy


@dataclass
class SimJob:
    level_path: str
    seed: int
    policy: str                    # policy for every agent-controlled team
    frames_dir: str | None = None  # frames at regular intervals and at key events, with frames.json
    gif_path: str | None = None
    replay_path: str | None = None  # the run's Replay document (the report's interactive replay)
    prefix_s: float = 0.0          # hash trace and unit states after this many game seconds (0: not)
    prefix_only: bool = False      # stop once the prefix is recorded: a determinism replay, not a game


REFUSED_KINDS = 5   # the most frequent (kind, reason) pairs of refused orders a run summary lists


@dataclass
class SimRun:
    seed: int
    policy: str
    ok: bool
    winners: list[int] = field(default_factory=list)
    losers: list[int] = field(default_factory=list)
    reason: str = ""
    ended_by: str = ""
    duration: float = 0.0
    trace_hash: str = ""
    error: str | None = None
    wall_s: float = 0.0
    events: list[dict] = field(default_factory=list)
    team_stats: dict[str, Any] = field(default_factory=dict)
    mobility: dict[str, float] = field(default_factory=dict)   # team -> fraction of mobile units that left spawn
    frames: list[str] = field(default_factory=list)
    prefix_t: float = 0.0          # game time the prefix hash was taken at
    prefix_hash: str = ""          # hash of the trace and the unit states at prefix_t
    replay_prefix_hash: str = ""   # the same prefix of a second, independent run (determinism)
    decided: str = ""              # why the run stopped before the game's own end, if it did
    cached: bool = False           # reused from the validation cache instead of simulated
    seed_independent: bool = False  # drew nothing from its seed: every seed plays this same game
    same_as_seed: int | None = None  # a copy of this seed's run, which was seed independent (not simulated)
    end_state: dict[str, Any] = field(default_factory=dict)  # team -> living units and where its mobile ones stood

    def outcome(self, team: int) -> Outcome:
        return team_outcome(self.winners, self.losers, team)

    def summary(self) -> dict[str, Any]:
        out = {"seed": self.seed, "policy": self.policy, "ok": self.ok, "winners": self.winners,
               "losers": self.losers, "reason": self.reason, "ended_by": self.ended_by,
               "duration": round(self.duration, 1), "trace_hash": self.trace_hash, "error": self.error,
               "wall_s": round(self.wall_s, 2), "mobility": self.mobility, "cached": self.cached}
        if self.team_stats:
            out["units_lost"] = {team: int(stats.get("units_lost", 0)) for team, stats in self.team_stats.items()}
        refused = collections.Counter(f"{e.get('kind')}: {e.get('error')}" for e in self.events
                                      if e.get("event") == "order" and e.get("team") == 0 and not e.get("ok"))
        if refused:   # why the player's plan stalled: orders the engine turned down, by kind and reason
            out["orders_refused"] = dict(refused.most_common(REFUSED_KINDS))
        if self.decided:
            out["decided"] = self.decided
        if self.same_as_seed is not None:
            out["same_as_seed"] = self.same_as_seed
        elif self.seed_independent:
            out["seed_independent"] = True
        if self.replay_prefix_hash:
            out["determinism"] = {"replayed_until_s": round(self.prefix_t, 2), "prefix_hash": self.prefix_hash,
                                  "replay_prefix_hash": self.replay_prefix_hash}
        return out

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SimRun:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def validation_jobs(level_path: str, requirements: list, first: SimJob | None = None) -> list[SimJob]:
    """A level's validation games: the reference on REFERENCE_SEEDS (`first` in place of its seed-0 game, to
    record media), idle on IDLE_SEEDS, and rush or a probe of the level's variation (probe:<name>) on RUSH_SEEDS
    only when a testable requirement is on it."""
    jobs = [first or SimJob(level_path, REFERENCE_SEEDS[0], "reference")]
    jobs += [SimJob(level_path, s, "reference") for s in REFERENCE_SEEDS[1:]]
    jobs += [SimJob(level_path, s, "idle") for s in IDLE_SEEDS]
    # rush and each probe a testable requirement is on, on RUSH_SEEDS
    extra = dict.fromkeys(r.on for r in requirements if r.testable and (r.on == "rush" or r.on.startswith(PROBE)))
    jobs += [SimJob(level_path, s, on) for on in extra for s in RUSH_SEEDS]
    return jobs


def seed_copy(run: SimRun, seed: int) -> SimRun:
    """The run `seed` gives when `run` drew nothing from its seed: the same game, not simulated again
    (without `run`'s media and determinism prefix, which belong to the game actually played)."""
    return dataclasses.replace(run, seed=seed, wall_s=0.0, frames=[], prefix_t=0.0, prefix_hash="",
                               replay_prefix_hash="", cached=False, seed_independent=True, same_as_seed=run.seed)


def copy_followers(runs: list, leaders: dict[int, int], copy) -> list[int]:
    """Fills each follower of `leaders` (see `seed_leaders`) still missing from `runs` with
    `copy(leader_run, follower_index)` when its leader's game drew nothing from its seed; returns
    the followers whose games must be played."""
    later = []
    for i, lead in sorted(leaders.items()):
        if runs[i] is not None:
            continue
        leader = runs[lead]
        if leader is not None and leader.ok and leader.seed_independent:
            runs[i] = copy(leader, i)
        else:
            later.append(i)
    return later


def seed_leaders(jobs: list, key) -> dict[int, int]:
    """For jobs of one level: each job -> the first earlier job with the same `key(job)` (what besides the
    seed decides the game; None: never shared) and another seed, whose game it copies if that game
    draws nothing from its seed. Empty when the level is expected to draw seeded numbers anyway (spawn
    jitter, waves choosing targets) or does not load."""
    from engine import load_level
    from engine.errors import EngineError
    from engine.seeding import expected_seed_draws

    try:
        if not jobs or expected_seed_draws(load_level(jobs[0].level_path)):
            return {}
    except EngineError:
        return {}
    first: dict = {}
    leaders = {}
    for i, job in enumerate(jobs):
        k = key(job)
        if k is None:
            continue
        lead = first.setdefault(k, i)
        if lead != i and jobs[lead].seed != job.seed:
            leaders[i] = lead
    return leaders


def full_game_key(job: SimJob):
    """Validation jobs share a seed's game by policy; a determinism replay never does."""
    return None if job.prefix_only else job.policy


def _agent_teams(level) -> list[int]:
    return [t.id for t in level.config.teams if t.controller.type == "agent"]


def _is_ranked(level) -> bool:
    return any(c.kind == "rank_by_score" for c in level.config.conditions)


def decided(sim, agent_teams: list[int], ranked: bool) -> str:
    """Why the player's outcome can no longer change although the game goes on, or "".

    A team that lost stays lost; once every agent team has, only the other teams' fates remain
    (in ranked games an eliminated team's rank still moves with the others, so those play out)."""
    if ranked or sim.done or not agent_teams or not set(agent_teams) <= sim.eliminated:
        return ""
    return f"every agent team had lost at {sim.time:.1f} s; the rest of the game cannot change that"


PROBE = "probe:"     # a policy or requirement `on` that names one of a level's exploit probes


def probe_policy(spec: dict, team: int, seed: int):
    """A probe of a level's variation, its orders played blind for `team`."""
    from engine.agent.scripted import Probe, ScriptedPolicy

    return ScriptedPolicy(team=team, seed=seed, orders=Probe.model_validate(spec).orders)


def seat_policies(level, policy: str, seed: int) -> dict:
    """The policy `policy` names in every agent seat of `level`; probe:<name> plays that probe of the
    level's variation blind. A validation run and any replay of it (state samples) seat the same."""
    from engine.agent.policies import make_policy

    teams = _agent_teams(level)
    if not policy.startswith(PROBE):
        return {t: make_policy(policy, team=t, seed=seed) for t in teams}
    name = policy[len(PROBE):]
    probes = ((level.config.metadata or {}).get("variation") or {}).get("probes") or []
    spec = next((p for p in probes if isinstance(p, dict) and p.get("name") == name), None)
    if spec is None:
        raise ValueError(f"the level's variation has no probe named {name!r}")
    return {t: probe_policy(spec, t, seed) for t in teams}


def run_job(job: SimJob) -> SimRun:
    """Runs in the worker process."""
    import time

    from engine import Simulation, load_level

    t0 = time.perf_counter()
    try:
        level = load_level(job.level_path)
        agents, ranked = _agent_teams(level), _is_ranked(level)
        sim = Simulation(level, seed=job.seed, policies=seat_policies(level, job.policy, job.seed))
        tracker = MobilityTracker(sim.snapshot())
        recorder = ReplayRecorder(sim) if job.frames_dir or job.gif_path or job.replay_path else None
        next_sample = 0.0
        prefix_tick = round(job.prefix_s * TICK_HZ) if job.prefix_s > 0 else -1
        prefix_t, prefix_hash, why = 0.0, "", ""
        while not sim.done:
            if recorder:
                recorder.observe(sim)
            if sim.time >= next_sample:
                tracker.update(sim.snapshot())
                next_sample += 2.0
            # steps of 15 ticks, cut short to land exactly on the prefix tick
            sim.step(min(15, prefix_tick - sim.tick) if sim.tick < prefix_tick else 15)
            if sim.tick == prefix_tick and not prefix_hash:
                prefix_t, prefix_hash = sim.time, _prefix_hash(sim)
                if job.prefix_only:
                    break
            why = decided(sim, agents, ranked)
            if why:
                break
        if prefix_tick >= 0 and not prefix_hash:     # the game ended before the prefix did
            prefix_t, prefix_hash = sim.time, _prefix_hash(sim)
        if job.prefix_only:
            return SimRun(seed=job.seed, policy=job.policy, ok=True, duration=sim.time, ended_by="replay",
                          reason=f"determinism replay of the first {prefix_t:g} s", prefix_t=prefix_t,
                          prefix_hash=prefix_hash, wall_s=time.perf_counter() - t0)
        tracker.update(sim.snapshot())
        result = sim.run(until=sim.time) if why else sim.run()
        frames = _write_media(job, recorder.finish(sim, result)) if recorder else []
        moved = tracker.fractions()
        d = result.to_dict()
        run = SimRun(seed=job.seed, policy=job.policy, ok=d.get("ended_by") != "error",
                     winners=list(d.get("winners") or []), losers=list(d.get("losers") or []),
                     reason=str(d.get("reason", "")), ended_by=str(d.get("ended_by", "")),
                     duration=float(d.get("duration", 0.0)), trace_hash=str(d.get("trace_hash", "")),
                     error=d.get("error"), wall_s=time.perf_counter() - t0, events=list(result.trace),
                     team_stats={str(k): v for k, v in (d.get("team_stats") or {}).items()}, mobility=moved,
                     frames=frames, prefix_t=prefix_t, prefix_hash=prefix_hash, seed_independent=result.seed_independent)
        run.end_state = end_state(sim)
        if why:
            # the other teams' game is unfinished: nobody has won yet
            run.winners, run.losers, run.ended_by, run.decided = [], sorted(sim.eliminated), "decided", why
            run.reason = next((e.get("reason", "") for e in reversed(result.trace) if e["event"] == "lose"), why)
        return run
    except Exception as exc:  # the run fails, the pipeline goes on and reports it
        return SimRun(seed=job.seed, policy=job.policy, ok=False, error=f"{type(exc).__name__}: {exc}",
                      wall_s=time.perf_counter() - t0)


def end_state(sim) -> dict[str, Any]:
    """Per team: its living units at the end, the centre of its mobile ones (where its army ended) and its metal
    (a side that never spent, or could not, shows it)."""
    w = sim.world
    out: dict[str, Any] = {}
    for team in sorted(sim.teams):
        ids = w.select(team=team)
        mobile = ids[w.speed[ids] > 0]
        out[str(team)] = {"units": int(ids.size), "mobile_at": [round(float(w.x[mobile].mean()), 1),
                                                               round(float(w.y[mobile].mean()), 1)] if mobile.size else None,
                          "metal": round(float(sim.teams[team].metal))}
    return out


START_LOG_S, START_LOG_RULES, START_LOG_FIELDS = 1.0, 3, 3


def start_text(run: SimRun) -> str:
    """What the rules logged as the game began (a seed's draws: the layout, the site, the first side), one log a
    rule: "at the start: layout logged layout (name=you at nw, index=2)" ('' when none logged)."""
    seen: dict[str, str] = {}
    for e in run.events:
        if e.get("t", 0) > START_LOG_S or len(seen) >= START_LOG_RULES:
            break
        if e.get("event") != "rule_log" or e.get("rule") in seen:
            continue
        fields = [f"{k}={v}" for k, v in (e.get("fields") or {}).items()
                  if isinstance(v, (str, int, float)) and not isinstance(v, bool) and len(str(v)) <= 40]
        seen[e.get("rule", "?")] = f"{e.get('rule')} logged {e.get('name')}" + (
            f" ({', '.join(fields[:START_LOG_FIELDS])})" if fields else "")
    return "at the start: " + "; ".join(seen.values()) if seen else ""


def end_text(run: SimRun) -> str:
    """"at the end: team 0 has 5 units, its army around (30.2, 41.0); team 1 has 3 units" ('' without a record),
    after what the rules drew at the start when they logged it."""
    if not run.end_state:
        return ""
    parts = [f"team {t} has {s['units']} unit{'s' if s['units'] != 1 else ''}"
             + (f", its army around ({s['mobile_at'][0]:g}, {s['mobile_at'][1]:g})" if s.get("mobile_at") else "")
             + (f", {s['metal']:g} metal" if "metal" in s else "")
             for t, s in run.end_state.items()]
    return "; ".join(filter(None, [start_text(run), "at the end: " + "; ".join(parts)]))


LEFT_SPAWN_TILES = 8.0  # a unit that never got this far from its spawn stayed put (or was trapped)
MOBILE = {CATEGORIES.index(c) for c in ("commander", "bot", "vehicle", "air")}


class MobilityTracker:
    """Per team, the fraction of initially present mobile units that ever got LEFT_SPAWN_TILES from their
    spawn, among those that either did or lived to the last sample: a unit killed while it held its ground
    was not trapped."""

    def __init__(self, snap):
        mobile = np.isin(snap.category, list(MOBILE))
        self.start = {int(i): (float(x), float(y), int(t))
                      for i, x, y, t in zip(snap.ids[mobile], snap.x[mobile], snap.y[mobile], snap.team[mobile])}
        self.far: dict[int, float] = dict.fromkeys(self.start, 0.0)
        self.alive: set[int] = set(self.start)

    def update(self, snap) -> None:
        present = set()
        for i, x, y in zip(snap.ids.tolist(), snap.x.tolist(), snap.y.tolist()):
            if i in self.start:
                present.add(i)
                sx, sy, _ = self.start[i]
                self.far[i] = max(self.far[i], ((x - sx) ** 2 + (y - sy) ** 2) ** 0.5)
        self.alive &= present

    def fractions(self) -> dict[str, float]:
        by_team: dict[str, list[bool]] = {}
        for uid, (_, _, team) in self.start.items():
            left = self.far[uid] >= LEFT_SPAWN_TILES
            if left or uid in self.alive:
                by_team.setdefault(str(team), []).append(left)
        return {t: sum(v) / len(v) if v else 1.0 for t, v in by_team.items()}


def _prefix_hash(sim) -> str:
    """The trace so far plus where every living unit stands and its hp: a divergence that has not
    reached the trace yet still shows."""
    import hashlib

    h = hashlib.sha256()
    for line in sim.trace.lines():
        h.update(line.encode("utf-8") + b"\n")
    w = sim.world
    idx = w.alive_idx
    for values in (idx, np.round(w.x[idx], 4), np.round(w.y[idx], 4), np.round(w.hp[idx], 4)):
        h.update(np.ascontiguousarray(values).tobytes())
    return h.hexdigest()


def _write_media(job: SimJob, replay: Replay) -> list[str]:
    """replay.json, frames (with their index) and the GIF the job asks for; the frame paths."""
    from engine.replay_media import write_frames, write_gif
    from genesis.fileio import atomic_write_text

    if job.replay_path:
        atomic_write_text(Path(job.replay_path), replay.model_dump_json(exclude_none=True))
    if job.gif_path:
        write_gif(replay, job.gif_path)
    if not job.frames_dir:
        return []
    return [str(Path(job.frames_dir) / f["file"]) for f in write_frames(replay, job.frames_dir)]


def process_budget() -> int:
    """Processes the machine can keep busy at once: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:          # not Linux
        return max(1, os.cpu_count() or 1)


def generation_processes(concurrent_generations: int = 1) -> int:
    """Simulation processes one generation runs at once when `concurrent_generations` generations
    (batch workers) share the machine: together they stay within the process budget."""
    return max(1, process_budget() // max(1, concurrent_generations))


# Opens the processes behind a SimPool: None, a forked multiprocessing pool; a process that must not
# fork (a Ray worker, whose forked children can deadlock on locks its threads held) sets another
# with use_pool_factory. The factory takes the worker count and returns an object with
# multiprocessing.Pool's apply_async(fn, args, callback=), terminate() and join().
_pool_factory = None


def use_pool_factory(factory) -> None:
    """Every SimPool this process opens from now on runs its jobs through `factory(workers)`
    (None: a forked multiprocessing pool)."""
    global _pool_factory
    _pool_factory = factory


class SimPool:
    """Worker processes shared by the simulation jobs of one generation: jobs of several stages (the
    validation runs, then the certificate's games queued behind them) keep `workers` processes busy
    without a barrier between stages and without exceeding the process budget. A job that overruns
    its timeout is killed with the whole pool: results still pending from it are lost, which
    `epoch` tells their owners (a new pool starts on the next submit). Workers live as long as the
    pool, one generation: replacing them every few jobs cost a fork of the large parent each time.
    Inside a Ray worker the jobs are Ray tasks instead (see use_pool_factory)."""

    def __init__(self, workers: int):
        self.workers = max(1, workers)
        self.epoch = 0
        self._pool = None

    def submit(self, fn, item, callback=None, reopen: bool = True):
        """Queues `fn(item)`; a closed pool is started again unless `reopen` is False (then ValueError)."""
        if self._pool is None:
            if not reopen:
                raise ValueError("the simulation pool is closed")
            self._pool = _pool_factory(self.workers) if _pool_factory else mp.get_context("fork").Pool(
                processes=self.workers, initializer=die_with_parent, initargs=(os.getpid(),))
            self.epoch += 1
        return self._pool.apply_async(fn, (item,), callback=callback)

    def alive(self, epoch: int) -> bool:
        """Whether jobs submitted during `epoch` can still come back."""
        return self._pool is not None and self.epoch == epoch

    def gather(self, items: list, pending: list, *, timeout_s: float, on_timeout=None) -> list:
        """The results of `pending` (submitted for `items`), each waited for at most `timeout_s`."""
        out, overran = [], False
        for item, res in zip(items, pending):
            try:
                out.append(res.get(timeout=timeout_s))
            except mp.TimeoutError:
                overran = True
                out.append(on_timeout(item) if on_timeout else None)
        if overran:
            self.close()
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def __enter__(self) -> SimPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def run_parallel(fn, items: list, *, workers: int = 2, timeout_s: float = DEFAULT_TIMEOUT_S, on_timeout=None,
                 pool: SimPool | None = None) -> list:
    """Maps `fn` over `items` in worker processes (those of `pool`, else a pool of its own); an item
    that overruns `timeout_s` is killed and replaced by `on_timeout(item)`."""
    if not items:
        return []
    if pool is not None:
        return pool.gather(items, [pool.submit(fn, item) for item in items], timeout_s=timeout_s, on_timeout=on_timeout)
    with SimPool(min(workers, len(items))) as own:
        return run_parallel(fn, items, timeout_s=timeout_s, on_timeout=on_timeout, pool=own)


def killed_run(job: SimJob, timeout_s: float) -> SimRun:
    return SimRun(seed=job.seed, policy=job.policy, ok=False,
                  error=f"simulation killed after {timeout_s:.0f} s wall clock", wall_s=timeout_s)


def run_many(jobs: list[SimJob], *, workers: int = 2, timeout_s: float = DEFAULT_TIMEOUT_S,
             pool: SimPool | None = None) -> list[SimRun]:
    """Runs simulation jobs in worker processes; a job that overruns is killed and reported."""
    return run_parallel(run_job, jobs, workers=workers, timeout_s=timeout_s, pool=pool,
                        on_timeout=lambda job: killed_run(job, timeout_s))


def run_rule_tests_job(rule_dir: str) -> list[dict]:
    """Runs in the worker process: one rule folder's tests."""
    from engine.ruletest import run_rule_tests

    try:
        return [r.to_dict() for r in run_rule_tests(Path(rule_dir))]
    except Exception as exc:
        return [{"name": "(all)", "passed": False, "details": [], "error": f"{type(exc).__name__}: {exc}"}]
