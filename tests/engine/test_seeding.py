"""Whether a run drew from its seed: a game that did not is the same game on every seed."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine import Simulation, load_level
from engine.agent import make_policy
from engine.seeding import SeededStreams, expected_seed_draws

QUIET_RULE = "-- never calls random()\nfunction on_start() end\n"
DRAWING_RULE = "function on_start()\n  spawn(1, 'light_bot', 30.5, 16.5, random_int(1, 6))\nend\n"


def _level(tmp_path: Path, rule: str = QUIET_RULE, jitter: float = 0.0, choose_target: bool = False) -> Path:
    (tmp_path / "rule.lua").write_text(rule)
    waves = {"type": "ai", "behaviour": "waves", "target": {"team": 0}, "interval": 10, "choose_target": choose_target}
    level = {"name": "t", "description": "seeds", "map": {"name": "open_field"},
             "teams": [{"id": 0, "name": "p", "controller": {"type": "agent"},
                        "units": [{"type": "light_bot", "x": 8.5, "y": 16.5, "count": 3}]},
                       {"id": 1, "name": "e", "controller": waves,
                        "units": [{"type": "light_bot", "x": 30.5, "y": 16.5, "count": 3}]}],
             "conditions": [{"kind": "last_survivor"}], "rules": [{"id": "r", "script": "rule.lua"}],
             "switches": {"fog_of_war": False, "time_limit": 60, "spawn_jitter": jitter}}
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    return path


def _run(path: Path, seed: int, policy: str = "idle"):
    return Simulation(load_level(path), seed=seed, policies={0: make_policy(policy, team=0, seed=seed)}).run()


def test_a_game_that_draws_nothing_is_the_same_on_every_seed(tmp_path):
    path = _level(tmp_path)
    assert expected_seed_draws(load_level(path)) == []
    runs = [_run(path, seed) for seed in (0, 1, 7)]
    assert all(r.seed_independent for r in runs)
    assert len({r.trace_hash for r in runs}) == 1


@pytest.mark.parametrize("why", ["rule", "jitter", "policy"])
def test_any_seeded_draw_makes_the_game_seed_dependent(tmp_path, why):
    path = _level(tmp_path, rule=DRAWING_RULE if why == "rule" else QUIET_RULE, jitter=2.0 if why == "jitter" else 0.0)
    policy = "random" if why == "policy" else "idle"
    runs = [_run(path, seed, policy) for seed in (0, 1, 2)]
    assert not any(r.seed_independent for r in runs)
    assert len({r.trace_hash for r in runs}) > 1          # and the seeds do play different games
    # only what draws in every game is expected before running: a rule's draws show when it runs
    assert bool(expected_seed_draws(load_level(path))) == (why == "jitter")


def test_waves_that_choose_their_target_are_expected_to_draw(tmp_path):
    assert expected_seed_draws(load_level(_level(tmp_path, choose_target=True)))


def test_streams_tell_a_draw_from_none_and_keep_the_seeded_values():
    streams = SeededStreams(5)
    a, b = streams.generator(1), streams.generator(2)
    assert not streams.drawn()
    assert b.random() == np.random.default_rng([5, 2]).random()
    assert streams.drawn() and a.bit_generator.state == np.random.default_rng([5, 1]).bit_generator.state
