"""One game at a time for an MCP client: scenarios by id, reset, observe, act, step, metrics.

The agent's seat runs the squad FSM every FSM_PERIOD while the game advances (`step`), so squads
fight between the agent's calls exactly as in `genesis play`. Every input is bounded: scenario ids
come from the listing (no arbitrary paths), seeds and steps have ranges, actions go through the
engine's action layer (malformed ones get error codes, never exceptions).
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from engine import Simulation, load_level
from engine.agent import AgentInterface, knowledge_text
from engine.agent.interface import FsmSeat
from engine.errors import EngineError
from engine.level import Level
from genesis.play.episode import Episode
from genesis.play.metrics import episode_metrics
from genesis.play.runner import default_team, is_free_for_all

MAX_STEP_S = 600.0
MAX_ACTIONS = 64
MAX_SEED = 2**31 - 1


class ArenaError(ValueError):
    """A bad request (unknown scenario, no game running, out-of-range value): told to the client."""



def discover(roots: list[Path]) -> dict[str, Path]:
    """Scenario id -> level.json for every folder under `roots` that holds a level.json."""
    found: dict[str, Path] = {}
    for root in roots:
        for level_path in sorted(Path(root).glob("*/level.json")):
            found.setdefault(level_path.parent.name, level_path)
    return found


class Arena:
    def __init__(self, roots: list[Path]):
        self.roots = [Path(r) for r in roots]
        self.sim: Simulation | None = None
        self.level: Level | None = None
        self.iface: AgentInterface | None = None
        self.scenario = ""
        self.seed = 0
        self.decisions = 0

    def scenarios(self) -> list[dict[str, Any]]:
        out = []
        for sid, path in discover(self.roots).items():
            try:
                cfg = load_level(path).config
            except EngineError as exc:
                out.append({"id": sid, "error": str(exc)[:200]})
                continue
            out.append({"id": sid, "name": cfg.name, "description": cfg.description, "teams": len(cfg.teams),
                        "time_limit_s": cfg.switches.time_limit})
        return out

    def reset(self, scenario: str, seed: int = 0, team: int | None = None) -> str:
        levels = discover(self.roots)
        if scenario not in levels:
            raise ArenaError(f"unknown scenario {scenario!r}; list_scenarios gives the ids")
        if not 0 <= seed <= MAX_SEED:
            raise ArenaError(f"seed must be in 0..{MAX_SEED}")
        level = load_level(levels[scenario])
        teams = [t.id for t in level.config.teams]
        team = default_team(level) if team is None else team
        if team not in teams:
            raise ArenaError(f"team {team} is not in the level (teams: {teams})")
        self.level, self.scenario, self.seed, self.decisions = level, scenario, seed, 0
        self.iface = AgentInterface(team)
        self.sim = Simulation(level, seed=seed, policies={team: FsmSeat(self.iface)})
        return knowledge_text(level, team)

    def _game(self) -> tuple[Simulation, AgentInterface]:
        if self.sim is None or self.iface is None:
            raise ArenaError("no game running: call reset first")
        return self.sim, self.iface

    def observe(self) -> dict:
        sim, iface = self._game()
        return iface.observe(sim)

    def observe_text(self) -> str:
        sim, iface = self._game()
        return iface.text(sim)

    def images(self) -> dict[str, Any]:
        """{"minimap": image, "camera <name>": image, ...} (PIL images)."""
        sim, iface = self._game()
        shots = iface.images(sim, minimap_size=384, camera_size=256)
        return {"minimap": shots["minimap"], **{f"camera {n}": img for n, img in shots["cameras"].items()}}

    def act(self, actions: list[Any]) -> list[dict]:
        sim, iface = self._game()
        if not isinstance(actions, list):
            raise ArenaError("actions must be a list of action objects")
        if len(actions) > MAX_ACTIONS:
            raise ArenaError(f"at most {MAX_ACTIONS} actions per call")
        if sim.done:
            raise ArenaError("the game is over: call reset to play again")
        self.decisions += 1
        return iface.act(sim, actions)

    def step(self, seconds: float) -> dict:
        sim, _ = self._game()
        if not 0 < seconds <= MAX_STEP_S:
            raise ArenaError(f"seconds must be in (0, {MAX_STEP_S:g}]")
        target = sim.time + seconds
        while not sim.done and sim.time < target - 1e-9:
            sim.step()
        return {"time": round(sim.time, 2), "done": sim.done,
                **({"winners": sim.result.winners, "reason": sim.result.reason} if sim.done else {})}

    def metrics(self) -> dict:
        """The episode's metrics once the game is over (`genesis play`'s definitions), else the clock."""
        sim, iface = self._game()
        counts = iface.actions.counts()
        if not sim.done:
            return {"scenario": self.scenario, "seed": self.seed, "time": round(sim.time, 2), "done": False,
                    "actions_valid": counts["valid"], "actions_invalid": counts["invalid"]}
        episode = Episode(seed=self.seed, team=iface.team, result=sim.result, steps=[None] * self.decisions,
                          counts=dict(counts, invalid_by_code=dict(Counter(counts["invalid_by_code"]))), wall_s=0.0)
        row = episode_metrics(episode, len(self.level.config.teams), is_free_for_all(self.level))
        return {"scenario": self.scenario, "done": True, **json.loads(row.model_dump_json())}
