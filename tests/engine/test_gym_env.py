"""The Gymnasium wrapper: spaces pass the checker, seeded runs repeat, actions reach the game."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from engine.agent.gym_env import ENV_ID, RTSEnv
from genesis.workspace import seed_kb

LEVELS = seed_kb() / "levels"
MFD = LEVELS / "MFD" / "level.json"      # no production, lost at ~38 s when the tanks stand still


def _noop(env: RTSEnv) -> np.ndarray:
    return np.zeros(len(env.action_space.nvec), dtype=np.int64)


def test_env_checker_passes():
    check_env(RTSEnv(MFD, decision_interval=2.0).unwrapped, skip_render_check=False)


def test_registered_id_makes_the_env():
    env = gym.make(ENV_ID, level_path=str(MFD), decision_interval=2.0)
    assert isinstance(env.unwrapped, RTSEnv)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    env.close()


def test_reset_and_step_are_deterministic_for_a_seed():
    def rollout(seed: int) -> tuple[list, list]:
        env = RTSEnv(LEVELS / "FS-F" / "level.json", decision_interval=2.0)
        obs, _ = env.reset(seed=seed)
        env.action_space.seed(seed)
        frames, rewards = [obs], []
        for _ in range(12):
            obs, reward, *_ = env.step(env.action_space.sample())
            frames.append(obs)
            rewards.append(reward)
        return frames, rewards

    (a, ra), (b, rb) = rollout(5), rollout(5)
    assert ra == rb
    for fa, fb in zip(a, b):
        for key in fa:
            np.testing.assert_array_equal(fa[key], fb[key])
    assert any(r != 0 for r in ra)       # the sides fight: the shaped term moves


def test_random_actions_run_an_episode_to_its_end():
    env = RTSEnv(MFD, seed=3, decision_interval=1.0)
    obs, info = env.reset()
    env.action_space.seed(3)
    for steps in range(1, 1000):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
        if terminated or truncated:
            break
    assert terminated and not truncated and "winners" in info
    assert info["valid"] + info["invalid"] > 0 and steps < 1000


def test_truncation_at_max_game_seconds():
    env = RTSEnv(LEVELS / "FS-F" / "level.json", decision_interval=2.0, max_game_seconds=10.0)
    env.reset(seed=0)
    flags = [env.step(_noop(env))[2:4] for _ in range(5)]
    assert flags[-1] == (False, True) and all(f == (False, False) for f in flags[:-1])


def test_reward_is_outcome_plus_shaped_damage():
    env = RTSEnv(MFD, decision_interval=1.0, shaping=0.1)
    env.reset(seed=0)
    total, terminated = 0.0, False
    while not terminated:
        _, reward, terminated, _, info = env.step(_noop(env))
        total += reward
    stats = env.sim.result.team_stats[0]
    assert info["winners"] == [1]                       # standing still loses a storage
    expected = -1.0 + 0.1 * (stats["damage_dealt"] - stats["damage_received"]) / (6 * 650 + 3 * 1500)
    assert total == pytest.approx(expected)


def test_observation_groups_and_actions_reach_the_game():
    env = RTSEnv(MFD, decision_interval=1.0, grid=16)
    obs, _ = env.reset(seed=0)
    assert obs["own"][:, 0].sum() == 9                  # 6 tanks + 3 storages
    assert sorted(len(s.units) for s in env.iface.squads.squads.values()) == [1, 1, 2, 2]
    assert obs["groups"][:, 0].tolist() == [1, 1, 1, 1]
    # group 0, squad_move, to the cell holding the north storage (48.5, 26.5) on a 96-tile map
    obs, _, _, _, info = env.step(np.array([0, 1, 8, 4, 0]))
    assert info["results"][0]["ok"]
    assert env.iface.squads.squads["g0"].goal == pytest.approx((51.0, 27.0))
    assert obs["groups"][0, 3] in (0.5, 1.0)           # moving (or already fighting)


def test_make_produces_at_a_factory():
    env = RTSEnv(LEVELS / "SP" / "level.json")
    env.reset(seed=0)
    k = env.make_types.index("artillery_vehicle") + 1
    _, _, _, _, info = env.step(np.array([0, 0, 0, 0, k]))
    assert info["results"] == [{"index": 0, "ok": True, "code": None, "message": ""}]
    for _ in range(60):
        env.step(_noop(env))
    made = [e for e in env.sim.trace.events if e["event"] == "spawn" and e["source"] == "production"]
    assert [e["type"] for e in made] == ["artillery_vehicle"]


def test_render_and_bad_team():
    env = RTSEnv(MFD, render_size=64)
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (64, 64, 3) and frame.dtype == np.uint8
    with pytest.raises(ValueError, match="team 9"):
        RTSEnv(MFD, team=9)


@pytest.mark.parametrize("imports", ["import gymnasium as gym, engine",
                                     "import engine, importlib.util; importlib.util.find_spec('gymnasium'); "
                                     "import gymnasium as gym"])
def test_registered_on_import_of_engine_in_either_order(imports):
    """`gymnasium.make("genesis/Scenario-v0")` needs `import engine` only, before or after gymnasium."""
    code = (f"{imports}\nenv = gym.make('genesis/Scenario-v0', level_path={str(MFD)!r})\n"
            "obs, _ = env.reset(seed=0)\nprint(type(env.unwrapped).__name__, sorted(obs))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "RTSEnv"
