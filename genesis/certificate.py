"""Validity certificate of a scenario: evidence that it measures play, not luck or a fixed script.

The certificate plays the level on every seed of SEEDS with a ladder of agents, each in every
agent seat:
- reference: the scripted reference policy (it must win every seed);
- idle: gives no orders (it must lose every seed);
- the cheap rungs: random, rush (everything at the nearest enemy, `engine.agent.open_loop.RushPolicy`),
  turtle (every unit holds its start post, `TurtlePolicy`) and each exploit probe the design declares in
  the level's `metadata.variation.probes` (`engine.agent.scripted.Probe`, played blind by
  `ScriptedPolicy`, rung "probe:<name>"); none may win every seed;
- open_loop: the reference's seed-0 orders replayed by game time, blind to what happens
  (`OpenLoopPolicy`); it may win at most half the seeds.

A cheap rung plays its seeds in order, each submitted when the previous one is back, and stops at
its first loss: it can no longer win every seed. The blind replay plays the seeds after seed 0
first and stops once its check is decided. So the difficulty band and the per-rung records count
the games actually played. A deterministic agent's game that drew nothing from its seed is every
seed's game: its later seeds are copied, not played (`copied_seeds`, `games_copied`).

Checks: replay (determinism of the reference's seed-0 game), reference_wins, idle_loses,
seeds_matter (the reference plays a different game on at least 2 of the seeds after the first),
no_cheap_win, open_loop. A level whose request fixes every event declares the clause in
`metadata.variation.fixed_by`: seeds_matter and open_loop then pass as a "fixed drill". Flags:
trivial (random wins every seed, or the reference wins every seed in under 10% of the time limit
without losing a unit on the first seed) and impossible (no agent wins any seed). `valid` holds when
every check passes, no flag is raised and no game failed. `difficulty` is the band the ladder gives,
`levers` the generic fixes of what failed.

With GENESIS_CERTIFICATE=off the pipeline records that it skipped the certificate (the test suite
does, for speed). Reference and idle games the pipeline already played (`prior` run summaries) are
reused rather than played again. Generated levels are hostile, so every game runs in a worker
process of the generation's `SimPool`, killed when it hangs (`genesis.simulate`).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel

from engine.errors import EngineError
from engine.result import team_outcome
from genesis.checks.messages import shorten
from genesis.fileio import atomic_write_text
from genesis.quantities import clock
from genesis.simulate import DEFAULT_TIMEOUT_S, PROBE, SimPool, copy_followers, probe_policy, seed_leaders
from genesis.validation_cache import engine_version, level_fingerprint

SEEDS = (0, 1, 2, 3, 4)
CHEAP = ("random", "rush", "turtle")        # and the level's probes, as "probe:<name>"
LADDER = ("idle", "random", "rush", "turtle", "reference")
TRIVIAL_TIME_SHARE = 0.10
MIN_VARIED_SEEDS = 2            # seeds after the first on which the reference must play another game
CERTIFICATE_VERSION = 2         # part of the cache key: certificates of an older version are not reused
WAIT_SLICE_S = 0.5


@dataclass
class CertJob:
    level_path: str
    seed: int
    agent: str                                      # reference, idle, random, rush, turtle, open_loop or probe:<name>
    schedule: list[dict] = field(default_factory=list)
    keep_trace: bool = False
    probe: dict | None = None                       # the Probe a probe:<name> agent plays


@dataclass
class CertRun:
    seed: int
    agent: str
    ok: bool
    won: bool = False
    outcome: str = "undecided"           # team_outcome of the player: won, lost or undecided
    duration: float = 0.0
    units_lost: int = 0
    trace_hash: str = ""
    error: str | None = None
    schedule: list[dict] = field(default_factory=list)
    seed_independent: bool = False
    same_as_seed: int | None = None      # a copy of this seed's game, which drew nothing from its seed
    reason: str = ""
    ended_by: str = ""
    reused: bool = False                 # a validation game of the pipeline, not played by the certificate
    losses: str = ""                     # when and by whom the player's units died, for a lost game's account


def _agent_teams(level) -> list[int]:
    return [t.id for t in level.config.teams if t.controller.type == "agent"] or [level.config.teams[0].id]


def _policy(job: CertJob, team: int):
    from engine.agent.open_loop import OpenLoopPolicy
    from engine.agent.policies import make_policy
    if job.agent == "open_loop":
        return OpenLoopPolicy(team=team, seed=job.seed, schedule=[s for s in job.schedule if s["team"] == team])
    if job.agent.startswith(PROBE):
        return probe_policy(job.probe, team, job.seed)
    return make_policy(job.agent, team=team, seed=job.seed)


def run_cert_job(job: CertJob) -> CertRun:
    """Runs in the worker process: one seeded game with one agent in every agent seat."""
    from engine import Simulation, load_level

    try:
        level = load_level(job.level_path)
        teams = _agent_teams(level)
        result = Simulation(level, seed=job.seed, policies={t: _policy(job, t) for t in teams}).run()
        first = teams[0]
        schedule = schedule_of(result.trace, teams) if job.keep_trace else []
        return CertRun(seed=job.seed, agent=job.agent, ok=result.ended_by != "error", won=first in result.winners,
                       outcome=result.outcome(first),
                       duration=float(result.duration),
                       units_lost=int(result.team_stats.get(first, {}).get("units_lost", 0)),
                       trace_hash=result.trace_hash, error=result.error, schedule=schedule,
                       seed_independent=result.seed_independent, reason=str(result.reason),
                       ended_by=str(result.ended_by), losses=losses_of(result.trace, first))
    except Exception as exc:  # a broken level is a finding of the certificate, not a crash
        return CertRun(seed=job.seed, agent=job.agent, ok=False, error=f"{type(exc).__name__}: {exc}")


class Check(BaseModel):
    passed: bool
    detail: str


class Rung(BaseModel):
    """One agent of the ladder over the seeds it played (in play order; copied and reused games included)."""
    seeds_played: list[int]
    seeds_won: list[int]
    win_duration_s: float | None = None     # mean game time of its wins
    units_lost: float = 0.0                  # mean units the player lost per game
    stopped: str = ""                        # why it stopped before playing every seed


class Certificate(BaseModel):
    valid: bool
    seeds: list[int]
    replay_hash: str
    checks: dict[str, Check]
    ladder: dict[str, float]          # agent -> share of the seeds it played that it won
    trivial: bool
    impossible: bool
    flags: list[str]
    errors: list[str]
    # games not played because the same agent's game on another seed drew nothing from its seed
    copied_seeds: list[str] = []
    rungs: dict[str, Rung] = {}
    difficulty: str = ""              # easy | medium | hard | trivial | impossible
    levers: list[str] = []            # generic fixes for what failed
    fixed_by: str | None = None       # the request's clause that fixes every event (a fixed drill)
    games_played: int = 0             # games the certificate played itself
    games_copied: int = 0             # games copied from another seed's game that drew nothing from its seed
    games_reused: int = 0             # validation games of the pipeline reused
    wall_s: float = 0.0               # from the first game queued to the verdict


def losses_of(trace: list[dict], team: int, most: int = 6) -> str:
    """The player's deaths as runs of one unit type, in time order, each with who killed it: "2 light_tank
    1:10-1:40 (by team 1), 6 light_tank 3:50-4:21 (by team 2)". A lost game's account: what a fix must change
    shows in when the army went, and to whom."""
    runs: list[list] = []
    for e in trace:
        if e.get("event") != "death" or e.get("team") != team:
            continue
        killer = e.get("killer_team")
        if runs and runs[-1][0] == e.get("type") and runs[-1][3] == killer:
            runs[-1][1] += 1
            runs[-1][2][1] = e["t"]
        else:
            runs.append([e.get("type"), 1, [e["t"], e["t"]], killer])
    told = [f"{n} {kind} {clock(a)}" + (f"-{clock(b)}" if b > a else "")
            + (f" (by team {killer})" if killer is not None else "") for kind, n, (a, b), killer in runs[:most]]
    return ", ".join(told) + (f", and {len(runs) - most} more" if len(runs) > most else "")


def _wins(runs: list[CertRun]) -> str:
    return f"{sum(r.won for r in runs)}/{len(runs)} seeds"


def _from_prior(summary: dict, team: int) -> CertRun:
    return CertRun(seed=int(summary["seed"]), agent=str(summary["policy"]), ok=bool(summary.get("ok")),
                   won=team in (summary.get("winners") or []),
                   outcome=team_outcome(summary.get("winners") or [], summary.get("losers") or [], team), duration=float(summary.get("duration") or 0.0),
                   units_lost=int((summary.get("units_lost") or {}).get(str(team), 0)),
                   trace_hash=str(summary.get("trace_hash") or ""), error=summary.get("error"),
                   seed_independent=bool(summary.get("seed_independent")), same_as_seed=summary.get("same_as_seed"),
                   reason=str(summary.get("reason") or ""), ended_by=str(summary.get("ended_by") or ""), reused=True)


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


def _prior_runs(prior: list[dict] | None, seeds: tuple[int, ...], team: int) -> dict[tuple[str, int], CertRun]:
    known: dict[tuple[str, int], CertRun] = {}
    for summary in prior or []:
        if summary.get("policy") in ("reference", "idle") and summary.get("seed") in seeds:
            known.setdefault((summary["policy"], int(summary["seed"])), _from_prior(summary, team))
    return known


def prior_keys(prior: list[dict] | None, seeds: tuple[int, ...] = SEEDS) -> set[tuple[str, int]]:
    """The (agent, seed) games of `prior` the certificate reuses instead of playing them."""
    return set(_prior_runs(prior, seeds, 0))


def _variation(level) -> tuple[str | None, list[dict], list[str]]:
    """The level's fixed-drill clause, its valid probes (as dicts, unique names) and what is wrong
    with the others."""
    from engine.agent.scripted import Probe

    variation = (level.config.metadata or {}).get("variation") or {}
    if not isinstance(variation, dict):
        return None, [], [f"metadata.variation: expected an object, got {type(variation).__name__}"]
    fixed = variation.get("fixed_by")
    fixed = fixed.strip() if isinstance(fixed, str) and fixed.strip() else None
    probes, problems, names = [], [], set()
    raw = variation.get("probes") or []
    for i, spec in enumerate(raw if isinstance(raw, list) else [raw]):
        try:
            probe = Probe.model_validate(spec)
        except ValueError as exc:
            problems.append(f"probe #{i + 1}: not a valid probe ({shorten(str(exc), 300)})")
            continue
        name, n = probe.name, 2
        while name in names:
            name, n = f"{probe.name}_{n}", n + 1
        names.add(name)
        probes.append({**probe.model_dump(mode="json"), "name": name})
    return fixed, probes, problems


def _may_draw(level) -> bool:
    """Whether a game of the level may draw seeded numbers: expected draws, or a rule script that
    mentions random (the only way a script draws). Only then a seed's game may differ."""
    from engine.seeding import expected_seed_draws

    return bool(expected_seed_draws(level)) or any("random" in src for src in level.rule_sources.values())


def _first_loss(runs: list[CertRun], n: int) -> str:
    last = runs[-1]
    return "" if last.won else f"stopped at its first loss (seed {last.seed})"


def _decided(runs: list[CertRun], n: int) -> str:
    """The blind replay's check is decided once it won more than half the seeds, or lost enough that
    it cannot."""
    wins = sum(r.won for r in runs)
    allowed = n // 2
    if wins > allowed:
        return f"stopped once it had won more than {allowed} of the {n} seeds"
    if len(runs) - wins >= n - allowed:
        return f"stopped once it had lost {n - allowed} of the {n} seeds"
    return ""


def _never(runs: list[CertRun], n: int) -> str:
    return ""


@dataclass
class _Line:
    """Games of one agent played one after another: each job is submitted when the previous one is
    back, until `stop` says why not (a deterministic agent's game that drew nothing from its seed
    is copied to the next seed instead). A single game is a line of one."""
    name: str
    jobs: list[CertJob]
    stop: Callable[[list[CertRun], int], str] = _never
    runs: list[CertRun] = field(default_factory=list)
    pending: Any = None         # the pool's result for jobs[len(runs)]
    epoch: int = 0
    stopped: str = ""
    done: bool = False
    then: Callable[[CertRun], None] | None = None     # called with each run played (the taped game)


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

        self.started = time.perf_counter()
        self.level_path, self.pool, self.seeds, self.reused, self.timeout_s = Path(level_path), pool, seeds, set(reused), timeout_s
        level = load_level(self.level_path)
        self.fingerprint = level_fingerprint(self.level_path)
        self.limit = float(level.config.switches.time_limit)
        self.teams = _agent_teams(level)
        self.team = self.teams[0]
        self.fixed_by, self.probes, self.problems = _variation(level)
        path = str(self.level_path)
        self._lock = threading.RLock()
        self._last_done = time.perf_counter()
        # the reused games come first, never played here: a later seed of theirs may copy them
        self.prior = [CertJob(path, s, a) for a, s in sorted(self.reused)]
        # the reused seed-0 reference game is taped by its caller (`tape`); else this plays its own
        self.tapes_own = ("reference", seeds[0]) not in self.reused
        own = [CertJob(path, seeds[0], "reference", keep_trace=True), CertJob(path, seeds[0], "reference")] \
            if self.tapes_own else []
        own += [CertJob(path, s, a) for a in ("reference", "idle") for s in seeds
                if (a, s) not in self.reused and (a, s) != ("reference", seeds[0])]
        self.jobs = self.prior + own
        # a game may copy another seed's only when the level cannot draw: else it is played at once
        self.leaders = {} if _may_draw(level) else seed_leaders(self.jobs, _shared_key)
        self.epoch = pool.epoch                 # updated once the games are queued (a closed pool starts anew)
        self.singles: dict[int, _Line] = {}
        self.loop: _Line | None = None          # the blind replay, once the seed-0 orders are known
        self.taped_schedule: list[dict] | None = None
        for i in range(len(self.prior), len(self.jobs)):
            if i not in self.leaders:
                job = self.jobs[i]
                own_tape = self.tapes_own and i == len(self.prior)
                self.singles[i] = self._start(_Line(job.agent, [job], then=self._taped if own_tape else None))
        self.todo = list(self.singles)          # the jobs queued at once (the others may copy a leader's game)
        cheap = [(a, None) for a in CHEAP] + [(PROBE + p["name"], p) for p in self.probes]
        self.rungs = {name: self._start(_Line(name, [CertJob(path, s, name, probe=probe) for s in seeds], _first_loss))
                      for name, probe in cheap}
        self.epoch = pool.epoch

    # ---- the lines of games ---------------------------------------------------------------------
    def _start(self, line: _Line, reopen: bool = True) -> _Line:
        with self._lock:
            self._next(line, reopen)
        return line

    def _next(self, line: _Line, reopen: bool) -> None:
        """Submits the line's next game, copies it, or ends the line (with the lock held)."""
        n = len(line.jobs)
        while not line.done:
            why = line.stop(line.runs, n) if line.runs else ""
            if why or len(line.runs) == n:
                line.stopped = why if len(line.runs) < n else ""
                line.done, line.pending = True, None
                return
            job, last = line.jobs[len(line.runs)], line.runs[-1] if line.runs else None
            if last is not None and last.ok and last.seed_independent and _shared_key(job) is not None:
                origin = last.seed if last.same_as_seed is None else last.same_as_seed
                line.runs.append(dataclasses.replace(last, seed=job.seed, schedule=[], same_as_seed=origin, reused=False))
                continue
            k = len(line.runs)
            line.pending = None
            # from a result (reopen False) only into the pool its last game ran in: a pool closed or
            # started anew since (a killed game, a dropped level) gets the game from `finish`, if at all
            if not reopen and not self.pool.alive(line.epoch or self.epoch):
                return
            try:
                line.pending = self.pool.submit(run_cert_job, job, callback=lambda run, k=k: self._back(line, k, run),
                                                reopen=reopen)
                line.epoch = self.pool.epoch
            except Exception:           # the pool was closed meanwhile: `finish` submits it again
                line.pending = None
            return

    def _back(self, line: _Line, k: int, run: CertRun) -> None:
        """The game `k` of `line` is back (in the pool's result thread, or from `finish`): record it
        and go on. A result that is not the line's current game any more is ignored."""
        try:
            with self._lock:
                if line.done or len(line.runs) != k:
                    return
                line.runs.append(run)
                self._last_done = time.perf_counter()
                self._next(line, reopen=False)
            if line.then is not None:
                line.then(run)
        except Exception:       # an exception in the pool's result thread would stop every result after it
            import traceback

            traceback.print_exc()

    def _drive(self, line: _Line) -> None:
        """Waits until `line` is done: resubmits a game lost with a closed pool, and kills the pool when
        no game of the certificate came back for `timeout_s` while this one runs."""
        waiting_since, current = time.perf_counter(), -1
        while True:
            with self._lock:
                if line.done:
                    return
                if line.pending is None or not self.pool.alive(line.epoch):
                    self._next(line, reopen=True)
                    continue
                pending, k = line.pending, len(line.runs)
            if k != current:
                waiting_since, current = time.perf_counter(), k
            if pending.ready():
                try:
                    run = pending.get(0)
                except Exception as exc:    # the worker could not even return it
                    job = line.jobs[k]
                    run = CertRun(seed=job.seed, agent=job.agent, ok=False, error=f"{type(exc).__name__}: {exc}")
                self._back(line, k, run)        # a no-op when its callback recorded it
                continue
            if time.perf_counter() - max(waiting_since, self._last_done) > self.timeout_s:
                self._back(line, k, self._killed(line.jobs[k]))
                self.pool.close()               # the other games of the pool are submitted again
                continue
            pending.wait(WAIT_SLICE_S)

    # ---- the blind replay -----------------------------------------------------------------------
    def tape(self, trace: list[dict]) -> None:
        """The trace of the reused seed-0 reference game: its orders start the open-loop games."""
        if not self.tapes_own:
            self._start_open_loop(schedule_of(trace, self.teams), reopen=False)

    def _taped(self, run: CertRun) -> None:
        self._start_open_loop(run.schedule, reopen=False)

    def _start_open_loop(self, schedule: list[dict], reopen: bool) -> None:
        """The blind replay of `schedule`: the seeds after the first (whose game it reproduces) first."""
        with self._lock:
            if self.loop is not None:
                return
            self.taped_schedule = schedule
            order = [*self.seeds[1:], self.seeds[0]]
            self.loop = _Line("open_loop", [CertJob(str(self.level_path), s, "open_loop", schedule=schedule)
                                            for s in order], _decided)
            self._next(self.loop, reopen)

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
        return CertRun(seed=job.seed, agent=job.agent, ok=False,
                       error=f"killed after {self.timeout_s:.0f} s wall clock without a result")

    def _single(self, job: CertJob) -> CertRun:
        line = self._start(_Line(job.agent, [job]))
        self._drive(line)
        return line.runs[0]

    def finish(self, prior: list[dict] | None = None) -> Certificate:
        """Waits for the games and judges the level; `prior` must hold the games named by `reused`."""
        known = _prior_runs(prior, self.seeds, self.team)
        if set(known) != self.reused:
            raise ValueError("the prior runs are not those the certificate's games were planned with")
        runs: list[CertRun | None] = [known[(job.agent, job.seed)] for job in self.prior]
        runs += [None] * (len(self.jobs) - len(self.prior))
        for i, line in self.singles.items():
            self._drive(line)
            runs[i] = line.runs[0]
        later = copy_followers(runs, self.leaders, lambda run, i: dataclasses.replace(
            run, seed=self.jobs[i].seed, schedule=[], same_as_seed=run.seed, reused=False))
        followers = {i: self._start(_Line(self.jobs[i].agent, [self.jobs[i]])) for i in later}
        for i, line in followers.items():
            self._drive(line)
            runs[i] = line.runs[0]

        first = ("reference", self.seeds[0])
        if self.tapes_own:
            taped, replayed, replay = runs[len(self.prior)], runs[len(self.prior) + 1], None
            own = runs[len(self.prior) + 2:]
        else:
            summary = next((r for r in prior or [] if (r.get("policy"), r.get("seed")) == first), None)
            replay, replayed = _prefix_replay(summary), known[first]
            with self._lock:
                recorded = self.taped_schedule
            if recorded is None or replay is None:     # never taped, or not replayed: play the game here
                taped = self._single(CertJob(str(self.level_path), self.seeds[0], "reference", keep_trace=True))
                replay = None
            else:
                taped = dataclasses.replace(replayed, schedule=recorded)
            own = runs[len(self.prior):]
        self._start_open_loop(taped.schedule, reopen=True)
        self._drive(self.loop)
        for line in self.rungs.values():
            self._drive(line)
        if replay is None:
            replay = Check(passed=taped.ok and replayed.ok and taped.trace_hash == replayed.trace_hash,
                           detail=f"reference seed {self.seeds[0]} twice: {taped.trace_hash[:12]} / {replayed.trace_hash[:12]}")
        played = [*own, *[r for k, r in known.items() if k != first]]
        lines = {name: (line.runs, line.stopped) for name, line in self.rungs.items()}
        lines["open_loop"] = (self.loop.runs, self.loop.stopped)
        cert = _judge(self.seeds, self.limit, taped, replayed, replay, played, lines, fixed_by=self.fixed_by,
                      probes={PROBE + p["name"]: p for p in self.probes}, problems=self.problems)
        extra = [taped] if not self.tapes_own and taped is not replayed and not taped.reused else []
        every = [*runs[len(self.prior):], *extra, *[r for rs, _ in lines.values() for r in rs]]
        cert.games_played = sum(not r.reused and r.same_as_seed is None for r in every)
        cert.games_copied = sum(not r.reused and r.same_as_seed is not None for r in every)
        cert.games_reused = len(known)
        cert.wall_s = round(time.perf_counter() - self.started, 2)
        return cert


def certify(level_path: Path, *, seeds: tuple[int, ...] = SEEDS, prior: list[dict] | None = None,
            workers: int = 2, timeout_s: float = DEFAULT_TIMEOUT_S) -> Certificate:
    """Play the ladder, the replay and the blind replay on `level_path` and judge the level."""
    with SimPool(workers) as pool:
        return CertificateGames(level_path, pool, seeds=seeds, reused=prior_keys(prior, seeds),
                                timeout_s=timeout_s).finish(prior)


# ---- the verdict -----------------------------------------------------------------------------------
LEVERS = {
    "replay": "make the level deterministic: rule scripts may draw only through random()/random_int() and must not "
              "depend on the iteration order of tables (pairs) or on anything outside the game",
    "reference_wins": "weaken the enemy or strengthen the player (the balance knob), or give the reference strategy "
                      "the params it needs; the reference must not rely on knowing hidden spawn points or timings",
    "idle_loses": "make doing nothing lose: a deadline on the objective, attacks that reach and destroy an undefended "
                  "objective or base, a goal that needs the player to act",
    "seeds_matter": "declare a seeded variation: shuffle which front each wave hits (rule param), jitter wave times, "
                    "pick spawn/objective positions among candidates with random_int, switches.spawn_jitter, an AI's "
                    "choose_target",
    "open_loop": "vary what the reference has to react to: where and when enemies come or objectives appear, drawn "
                 "from the seed, so that one fixed sequence of orders cannot win most seeds",
    "rush": "make a blind rush lose: stronger defenders / more enemies at their base, objectives that need holding, "
            "waves that punish an empty base",
    "turtle": "make sitting at the start lose: an objective to take or reach before a deadline, waves that outgrow a "
              "static defence, a target out of reach of the start positions",
    "random": "make random play lose: a deadline, a defended or distant objective, a goal that needs a plan",
    "probe": "close the exploit of probe {name} ({exploit}): guard, move or vary per seed what it goes for, or make "
             "its blind timing fail",
    "trivial": "make the level harder: more or stronger enemies, a tighter deadline, objectives that need more than "
               "one move",
    "impossible": "make the level winnable: weaken the enemy, strengthen the player, loosen the deadline, and check "
                  "the reference strategy's params",
    "errors": "fix what made games fail (see errors): a rule script error, an invalid probe, a hanging script",
}


def _summary(run: CertRun) -> str:
    """A short account of one game, e.g. 'seed 2: won in 23 s, lost 1 unit (team 0 destroyed every target)'."""
    copy = f", the game of seed {run.same_as_seed}" if run.same_as_seed is not None else ""
    lost = f"lost {run.units_lost} unit{'s' * (run.units_lost != 1)}"
    why = f" ({run.reason})" if run.reason else ""
    verdict = "won" if run.won else "lost" if run.outcome == "lost" else "was undecided"
    deaths = f"; its losses: {run.losses}" if run.losses and not run.won else ""
    return f"seed {run.seed}{copy}: {verdict} in {run.duration:.0f} s, {lost}{why}{deaths}"


def _rung(runs: list[CertRun], stopped: str = "") -> Rung:
    wins = [r for r in runs if r.won]
    return Rung(seeds_played=[r.seed for r in runs], seeds_won=[r.seed for r in wins],
                win_duration_s=round(sum(r.duration for r in wins) / len(wins), 1) if wins else None,
                units_lost=round(sum(r.units_lost for r in runs) / len(runs), 2) if runs else 0.0, stopped=stopped)


def _judge(seeds: tuple[int, ...], limit: float, taped: CertRun, replayed: CertRun, replay: Check, runs: list[CertRun],
           lines: dict[str, tuple[list[CertRun], str]], *, fixed_by: str | None = None,
           probes: dict[str, dict] | None = None, problems: list[str] = ()) -> Certificate:
    """`runs`: the reference games of the seeds after the first and the idle games; `lines`: each
    cheap rung's and the blind replay's games, in play order, with why it stopped early."""
    probes = probes or {}
    n = len(seeds)
    ref = sorted([taped, *(r for r in runs if r.agent == "reference")], key=lambda r: r.seed)
    idle = sorted((r for r in runs if r.agent == "idle"), key=lambda r: r.seed)
    loop, loop_stopped = lines.get("open_loop", ([], ""))
    everything = [taped, replayed, *runs, *(r for rs, _ in lines.values() for r in rs)]
    errors = list(dict.fromkeys(f"{r.agent} seed {r.seed}: {r.error}" for r in everything if not r.ok))
    errors += list(problems)

    copies: dict[tuple[str, int], list[int]] = {}
    for r in sorted(everything, key=lambda r: (r.agent, r.seed)):
        if r.same_as_seed is not None and r.seed not in copies.get((r.agent, r.same_as_seed), []):
            copies.setdefault((r.agent, r.same_as_seed), []).append(r.seed)
    copied = [f"{agent} seed{'s' * (len(later) > 1)} {', '.join(map(str, later))}: the game of seed {first} "
              "(it drew nothing from its seed)" for (agent, first), later in sorted(copies.items())]
    drill = f"fixed drill: {fixed_by}" if fixed_by else ""

    # seeds_matter: the reference's games after the first that differ from the first's
    base = ref[0] if ref and ref[0].seed == seeds[0] else None
    varied = [r.seed for r in ref[1:] if base is not None and r.ok and base.ok and r.trace_hash != base.trace_hash]
    if drill:
        matter = Check(passed=True, detail=drill)
    elif len(varied) >= min(MIN_VARIED_SEEDS, n - 1):
        matter = Check(passed=True, detail=f"the reference played another game than on seed {seeds[0]} on seed"
                                           f"{'s' * (len(varied) > 1)} {', '.join(map(str, varied))}")
    else:
        matter = Check(passed=False, detail=(
            f"the level plays the same game on every seed: the reference played another game than on seed {seeds[0]} "
            f"on {len(varied)} of the {n - 1} later seeds (at least {MIN_VARIED_SEEDS} needed)"))

    # no_cheap_win: no cheap rung wins every seed
    cheap = {name: rl for name, rl in lines.items() if name != "open_loop"}
    sweepers = [name for name, (rs, _) in cheap.items() if len(rs) == n and all(r.won for r in rs)]
    if sweepers:
        parts = []
        for name in sweepers:
            rs = cheap[name][0]
            what = f" ({probes[name]['exploit']})" if name in probes else ""
            parts.append(f"{name}{what} won every seed, e.g. {_summary(next(r for r in rs if r.same_as_seed is None))}")
        no_cheap = Check(passed=False, detail="; ".join(parts))
    else:
        no_cheap = Check(passed=bool(cheap), detail="no cheap agent wins every seed: " + ", ".join(
            f"{name} {_wins(rs)}" for name, (rs, _) in cheap.items()) if cheap else "no cheap agent was played")

    # open_loop: the blind replay wins at most half the seeds
    allowed = n // 2
    loop_wins = sum(r.won for r in loop)
    unvaried = len(loop) > 1 and sum(r.same_as_seed is not None for r in loop) == len(loop) - 1
    won_seeds = ", ".join(str(r.seed) for r in loop if r.won)
    told = (f"the reference's seed-{seeds[0]} orders ({len(taped.schedule)}) replayed blind won {_wins(loop)}"
            + (f" (seed{'s' * (loop_wins > 1)} {won_seeds})" if loop_wins else "")
            + (f" ({loop_stopped})" if loop_stopped else "")
            + ("; the level plays the same game on every seed" if unvaried else ""))
    if drill:
        open_loop = Check(passed=True, detail=drill)
    else:
        open_loop = Check(passed=bool(loop) and loop_wins <= allowed, detail=f"{told}; at most {allowed} allowed")

    checks = {
        "replay": replay,
        "reference_wins": Check(passed=bool(ref) and all(r.won for r in ref), detail=f"reference won {_wins(ref)}" + "".join(
            f"; {_summary(r)}" for r in ref if not r.won)),
        "idle_loses": Check(passed=not any(r.won for r in idle), detail=f"idle won {_wins(idle)}" + "".join(
            f"; {_summary(r)}" for r in idle if r.won)),
        "seeds_matter": matter,
        "no_cheap_win": no_cheap,
        "open_loop": open_loop,
    }
    rungs = {"idle": _rung(idle), **{name: _rung(rs, why) for name, (rs, why) in cheap.items()},
             "open_loop": _rung(loop, loop_stopped), "reference": _rung(ref)}
    ladder = {name: round(len(r.seeds_won) / len(r.seeds_played), 3) if r.seeds_played else 0.0
              for name, r in rungs.items()}

    flags = []
    if "random" in sweepers:
        flags.append("trivial: the random agent wins every seed")
    quick = [r for r in ref if r.won and r.duration < TRIVIAL_TIME_SHARE * limit]
    if ref and len(quick) == len(ref) and taped.units_lost == 0:
        flags.append(f"trivial: the reference wins every seed in under {TRIVIAL_TIME_SHARE:.0%} of the "
                     f"{limit:g} s limit, without losing a unit")
    impossible = not any(ladder.values())
    if impossible:
        flags.append("impossible: no agent of the ladder wins any seed")
    trivial = any(f.startswith("trivial") for f in flags)

    cheap_won = [name for name in ("idle", *cheap) if rungs[name].seeds_won]
    if impossible:
        difficulty = "impossible"
    elif trivial:
        difficulty = "trivial"
    elif cheap_won:
        difficulty = "easy"
    elif any(s != seeds[0] for s in rungs["open_loop"].seeds_won):
        difficulty = "medium"
    else:
        difficulty = "hard"

    levers = []
    for name in ("replay", "reference_wins", "idle_loses", "seeds_matter", "open_loop"):
        if not checks[name].passed:
            levers.append(LEVERS[name])
    for name in sweepers:
        if name in probes:
            levers.append(LEVERS["probe"].format(name=name[len(PROBE):], exploit=probes[name]["exploit"]))
        else:
            levers.append(LEVERS[name])
    if trivial:
        levers.append(LEVERS["trivial"])
    if impossible:
        levers.append(LEVERS["impossible"])
    if errors:
        levers.append(LEVERS["errors"])
    levers = list(dict.fromkeys(levers))

    valid = all(c.passed for c in checks.values()) and not flags and not errors
    return Certificate(valid=valid, seeds=list(seeds), replay_hash=taped.trace_hash, checks=checks, ladder=ladder,
                       trivial=trivial, impossible=impossible, flags=flags, errors=errors, copied_seeds=copied,
                       rungs=rungs, difficulty=difficulty, levers=levers, fixed_by=fixed_by)


# ---- the pipeline's entry points ---------------------------------------------------------------------
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


def certify_cached(level_path: Path, cache_dir: Path | None, pool: SimPool,
                   timeout_s: float = DEFAULT_TIMEOUT_S) -> Certificate:
    """The certificate of `level_path` from the cache, else played from scratch in `pool` and cached."""
    known = cached_certificate(cache_dir, level_path)
    if known is not None:
        return known
    cert = CertificateGames(level_path, pool, timeout_s=timeout_s).finish(None)
    cached = _cache_path(cache_dir, level_path)
    if cached is not None and not cert.errors:
        atomic_write_text(cached, cert.model_dump_json())
    return cert


def _cache_path(cache_dir: Path | None, level_path: Path) -> Path | None:
    if cache_dir is None:
        return None
    try:
        fingerprint = level_fingerprint(level_path)
    except EngineError:
        return None
    key = hashlib.sha256(json.dumps({"engine": engine_version(), "level": fingerprint, "seeds": list(SEEDS),
                                     "certificate": CERTIFICATE_VERSION}, sort_keys=True).encode()).hexdigest()
    return Path(cache_dir) / "certificates" / f"{key}.json"
