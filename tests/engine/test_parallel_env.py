"""The PettingZoo ParallelEnv over multi-team levels passes PettingZoo's parallel API test."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from engine.agent.parallel_env import RTSParallelEnv

LEVELS = Path(__file__).resolve().parents[2] / "kb" / "levels"


@pytest.mark.parametrize("game", ["FS-F", "FS-T"])
def test_parallel_api_test_passes(game):
    env = RTSParallelEnv(LEVELS / game / "level.json", decision_interval=5.0, max_game_seconds=60.0)
    parallel_api_test(env, num_cycles=20)


def test_every_team_is_an_agent_and_episodes_end_for_all():
    env = RTSParallelEnv(LEVELS / "FS-F" / "level.json", decision_interval=10.0)
    obs, infos = env.reset(seed=3)
    assert env.agents == ["team_0", "team_1", "team_2", "team_3"]
    assert all(env.observation_space(a).contains(obs[a]) for a in env.agents)
    rng = np.random.default_rng(0)
    steps, total = 0, {a: 0.0 for a in env.possible_agents}
    while env.agents:
        acts = {a: env.action_space(a).sample() for a in env.agents}
        acts = {a: np.array([rng.integers(4), 1, rng.integers(16), rng.integers(16), 0]) for a in acts}
        obs, rewards, terms, truncs, infos = env.step(acts)
        for a, r in rewards.items():
            total[a] += r
        steps += 1
    assert env.sim.done and steps <= 18                       # 180 s limit at 10 s a step
    # ranked at the end: the first gets +1, every other side -1
    winners = env.sim.result.winners
    assert len(winners) == 1 and infos[f"team_{winners[0]}"]["winners"] == winners
    assert rewards[f"team_{winners[0]}"] > 0 > min(rewards.values())


def test_a_subset_of_teams_keeps_the_others_on_their_built_in_ai():
    env = RTSParallelEnv(LEVELS / "FS-T" / "level.json", teams=[0, 2])
    env.reset(seed=0)
    assert env.possible_agents == ["team_0", "team_2"] and env.sim.behaviours[1] is not None
    with pytest.raises(ValueError):
        RTSParallelEnv(LEVELS / "FS-T" / "level.json", teams=[0])
