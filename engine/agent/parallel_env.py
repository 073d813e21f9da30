"""A PettingZoo ParallelEnv over a multi-team level (free-for-all, 2v2, ...): every team is an agent.

    from engine.agent.parallel_env import RTSParallelEnv
    env = RTSParallelEnv("kb/levels/FS-F/level.json")
    obs, infos = env.reset(seed=0)
    obs, rewards, terminations, truncations, infos = env.step({a: env.action_space(a).sample() for a in env.agents})

Agents are "team_<id>" for every team of the level (`teams=` picks a subset; the others keep their
built-in AI). Each agent's observation, action space and reward are those of the Gymnasium env
(`engine.agent.gym_env.RTSEnv`) for its team, all seated in one simulation: each step applies every
agent's action, then the game advances `decision_interval` seconds (the squads' FSM runs meanwhile).
An agent whose team lost (eliminated before the end) terminates and leaves `agents`; when the game
ends every remaining agent terminates. `max_game_seconds` truncates the episode.
"""
from __future__ import annotations

from pathlib import Path

from pettingzoo import ParallelEnv

from engine.agent.gym_env import RTSEnv
from engine.agent.interface import FsmSeat
from engine.agent.interface import AgentInterface
from engine.level import load_level
from engine.sim import Simulation


class RTSParallelEnv(ParallelEnv):
    metadata = {"name": "genesis_rts_parallel_v0", "render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, level_path: str | Path, teams: list[int] | None = None, decision_interval: float = 1.0,
                 max_units: int = 64, n_groups: int = 4, grid: int = 16, shaping: float = 0.1,
                 max_game_seconds: float | None = None, render_mode: str | None = None):
        self.level = load_level(level_path)
        ids = [t.id for t in self.level.config.teams]
        teams = ids if teams is None else list(teams)
        unknown = [t for t in teams if t not in ids]
        if unknown or len(teams) < 2:
            raise ValueError(f"teams must be at least two of the level's teams {ids}, got {teams}")
        self.render_mode = render_mode
        self.max_game_seconds = max_game_seconds
        self.seats = {f"team_{t}": RTSEnv(level_path, team=t, decision_interval=decision_interval, max_units=max_units,
                                          n_groups=n_groups, grid=grid, shaping=shaping, render_mode=render_mode)
                      for t in teams}
        self.possible_agents = list(self.seats)
        self.agents: list[str] = []
        self.sim: Simulation | None = None
        self._seed: int | None = None

    def observation_space(self, agent: str):
        return self.seats[agent].observation_space

    def action_space(self, agent: str):
        return self.seats[agent].action_space

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._seed = seed
        sim_seed = self._seed if self._seed is not None else 0
        ifaces = {a: AgentInterface(s.team) for a, s in self.seats.items()}
        self.sim = Simulation(self.level, seed=sim_seed, policies={s.team: FsmSeat(ifaces[a]) for a, s in self.seats.items()})
        for agent, seat in self.seats.items():
            seat.bind(self.sim, ifaces[agent])
        self.agents = list(self.possible_agents)
        return ({a: self.seats[a]._observe() for a in self.agents},
                {a: self.seats[a]._info([]) for a in self.agents})

    def step(self, actions: dict):
        if self.sim is None:
            raise RuntimeError("call reset() before step()")
        results = {a: self.seats[a].act(actions[a]) for a in self.agents if a in actions}
        self.sim.step(self.seats[self.agents[0]].ticks_per_step)
        done = self.sim.done
        truncate = not done and self.max_game_seconds is not None and self.sim.time >= self.max_game_seconds - 1e-9
        obs, rewards, terms, truncs, infos = {}, {}, {}, {}, {}
        for a in self.agents:
            seat = self.seats[a]
            obs[a] = seat._observe()
            rewards[a] = seat.reward()
            terms[a] = done or seat.team in self.sim.eliminated
            truncs[a] = truncate
            infos[a] = seat._info(results.get(a, []))
        self.agents = [a for a in self.agents if not (terms[a] or truncs[a])]
        return obs, rewards, terms, truncs, infos

    def render(self):
        return self.seats[self.possible_agents[0]].render() if self.render_mode == "rgb_array" else None

    def close(self) -> None:
        self.sim = None
