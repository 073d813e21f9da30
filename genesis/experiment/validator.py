"""The independent Playability validator that judges every configuration of the experiment alike.

It looks only at a scenario folder's `level.json` and the engine; it shares no code with the
pipeline's rubric checks (genesis/checks), so no configuration is graded by its own tests.
Playability (DESIGN §1): the game launches, runs to completion without engine errors, and
satisfies its win/loss condition as intended. Concretely, all five criteria below must hold:

- `launches`   the level loads with the engine (schema, map, unit types, rule scripts) and a
               simulation starts; at least one team is agent-controlled (the player).
- `completes`  every validation run finishes within its wall-clock budget and the engine reports
               no error (no Lua error, no engine exception, no kill).
- `decides`    every run ends with a decided outcome: the engine names winners (win/loss
               conditions, a rule's win/lose call, or the level's ranking at the time limit),
               not a bare time-out, and no earlier than MIN_DURATION_S (a game decided before
               anyone can act is not played).
- `winnable`   the scripted reference policy (the strategy in the level's metadata) wins in
               every reference seed: the objective can be achieved.
- `losable`    the idle policy never wins: doing nothing does not achieve the objective.

The seeds differ from the pipeline's own validation seeds (0-2), so a configuration cannot pass
by having already replayed exactly these runs.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from genesis.simulate import run_parallel

REFERENCE_SEEDS = (101, 202, 303)
IDLE_SEEDS = (101, 202)
MIN_DURATION_S = 5.0
RUN_TIMEOUT_S = 120.0
CRITERIA = {  # what each criterion means, for the reports
    "launches": "the level loads with the engine and a simulation starts; one team is agent-controlled",
    "completes": "every run finishes within its wall-clock budget without an engine or Lua error",
    "decides": f"every run ends with winners (conditions, rules or a ranking), after at least {MIN_DURATION_S:g} s",
    "winnable": f"the reference policy wins in every seed {list(REFERENCE_SEEDS)}",
    "losable": f"the idle policy wins in no seed {list(IDLE_SEEDS)}",
}


@dataclass
class PlayRun:
    policy: str
    seed: int
    ended_by: str = ""
    winners: list[int] = field(default_factory=list)
    losers: list[int] = field(default_factory=list)
    reason: str = ""
    duration: float = 0.0
    error: str | None = None
    wall_s: float = 0.0


@dataclass
class Criterion:
    id: str
    passed: bool
    detail: str


@dataclass
class PlayabilityVerdict:
    playable: bool
    criteria: list[Criterion]
    runs: list[PlayRun] = field(default_factory=list)
    player: int | None = None
    wall_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def failed(self) -> list[str]:
        return [f"{c.id}: {c.detail}" for c in self.criteria if not c.passed]


def _play(job: tuple[str, str, int]) -> PlayRun:
    """Runs in a worker process: one full game of `policy` for every agent-controlled team."""
    from engine import Simulation, load_level
    from engine.agent.policies import make_policy

    level_path, policy, seed = job
    t0 = time.perf_counter()
    try:
        level = load_level(level_path)
        agents = [t.id for t in level.config.teams if t.controller.type == "agent"]
        sim = Simulation(level, seed=seed, policies={t: make_policy(policy, team=t, seed=seed) for t in agents})
        r = sim.run()
        return PlayRun(policy, seed, ended_by=str(r.ended_by), winners=list(r.winners or []),
                       losers=list(r.losers or []), reason=str(r.reason), duration=float(r.duration),
                       error=r.error, wall_s=time.perf_counter() - t0)
    except Exception as exc:  # an engine crash is a verdict about the level, not a validator failure
        return PlayRun(policy, seed, ended_by="error", error=f"{type(exc).__name__}: {exc}",
                       wall_s=time.perf_counter() - t0)


def _launch(level_path: Path) -> tuple[Criterion, int | None]:
    from engine import Simulation, load_level

    if not level_path.exists():
        return Criterion("launches", False, "no level.json was produced"), None
    try:
        level = load_level(level_path)
        Simulation(level, seed=0, policies={})
    except Exception as exc:
        return Criterion("launches", False, f"{type(exc).__name__}: {exc}"[:400]), None
    agents = sorted(t.id for t in level.config.teams if t.controller.type == "agent")
    if not agents:
        return Criterion("launches", False, "no team is agent-controlled: nobody can play it"), None
    return Criterion("launches", True, f"loads and starts; player team {agents[0]}"), agents[0]


def _judge(runs: list[PlayRun], player: int) -> list[Criterion]:
    broken = [r for r in runs if r.ended_by == "error" or r.error]
    completes = Criterion("completes", not broken, (f"{len(broken)} run(s) failed, e.g. {broken[0].policy} seed "
                                                    f"{broken[0].seed}: {broken[0].error}"[:400]) if broken else
                          f"{len(runs)} runs finished without engine errors")
    undecided = [r for r in runs if not r.error and not r.winners]
    early = [r for r in runs if not r.error and r.winners and r.duration < MIN_DURATION_S]
    detail = []
    if undecided:
        detail.append(f"{len(undecided)} run(s) ended with no winner ({undecided[0].reason or undecided[0].ended_by})")
    if early:
        detail.append(f"{len(early)} run(s) were decided after {early[0].duration:.1f} s ({early[0].reason})")
    decides = Criterion("decides", not detail and not broken,
                        "; ".join(detail) or ("see completes" if broken else "every run ends with a decided outcome"))
    ref = [r for r in runs if r.policy == "reference"]
    idle = [r for r in runs if r.policy == "idle"]
    ref_wins = sum(player in r.winners for r in ref)
    idle_wins = sum(player in r.winners for r in idle)
    winnable = Criterion("winnable", bool(ref) and ref_wins == len(ref),
                         f"reference policy won {ref_wins}/{len(ref)} seeds"
                         + "".join(f"; seed {r.seed}: {r.reason or r.error}" for r in ref if player not in r.winners)[:300])
    losable = Criterion("losable", bool(idle) and idle_wins == 0,
                        f"idle policy won {idle_wins}/{len(idle)} seeds"
                        + "".join(f"; seed {r.seed}: {r.reason}" for r in idle if player in r.winners)[:300])
    return [completes, decides, winnable, losable]


def validate(folder: str | Path, *, workers: int = 2, timeout_s: float = RUN_TIMEOUT_S) -> PlayabilityVerdict:
    """Judges the Playability of the level in `folder` (or of the level file itself)."""
    t0 = time.perf_counter()
    path = Path(folder)
    level_path = path if path.suffix == ".json" else path / "level.json"
    launch, player = _launch(level_path)
    if player is None:
        return PlayabilityVerdict(False, [launch], wall_s=time.perf_counter() - t0)
    jobs = [(str(level_path), "reference", s) for s in REFERENCE_SEEDS] + [(str(level_path), "idle", s) for s in IDLE_SEEDS]
    runs = run_parallel(_play, jobs, workers=workers, timeout_s=timeout_s,
                        on_timeout=lambda j: PlayRun(j[1], j[2], ended_by="error",
                                                     error=f"killed after {timeout_s:.0f} s wall clock", wall_s=timeout_s))
    criteria = [launch, *_judge(runs, player)]
    return PlayabilityVerdict(all(c.passed for c in criteria), criteria, runs, player, time.perf_counter() - t0)
