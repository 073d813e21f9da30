"""A seeded, bounded level fuzzer: mutations of the hostile host level (wrong types, extreme numbers,
missing and unknown keys, duplicated entries) either load and simulate a few ticks, or are refused
with a LevelError of one short line — never another exception, never a hang."""
from __future__ import annotations

import copy
import json
import random
import shutil
import time
from pathlib import Path

from engine.errors import EngineError, LevelError
from engine.level import load_level
from engine.sim import Simulation
from tests.hostile.test_corpus import HOST

CASES = 600
SEED = 30
TICKS = 20
VALUES = [None, True, False, 0, -1, 1, 3.5, -1e308, 1e308, 2**63, -(2**63), "", "x" * 600, "NaN", "light_bot",
          "../../etc/passwd", "\x00", [], {}, [[[[[[[[1]]]]]]]], {"type": "light_bot", "x": 1.5, "y": 1.5},
          {"id": 2, "name": "c", "units": []}, {"kind": "survive", "team": 0, "until": 5}]


def nodes(value, path=()):
    """Every (path, value) of a JSON tree."""
    yield path, value
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        yield from nodes(child, (*path, key))


def mutate(level: dict, rng: random.Random) -> dict:
    level = copy.deepcopy(level)
    for _ in range(rng.randint(1, 3)):
        paths = [p for p, _ in nodes(level) if p]
        path = rng.choice(paths)
        parent = level
        for key in path[:-1]:
            parent = parent[key]
        key, op = path[-1], rng.random()
        if op < 0.6:
            parent[key] = copy.deepcopy(rng.choice(VALUES))
        elif op < 0.75 and isinstance(parent, dict):
            del parent[key]
        elif op < 0.85 and isinstance(parent, dict):
            parent[rng.choice(["extra", "x", "units", "teams", "rules"])] = copy.deepcopy(rng.choice(VALUES))
        elif isinstance(parent, list):
            parent.extend(copy.deepcopy([parent[key]] * rng.randint(1, 40)))
        else:
            parent[key] = copy.deepcopy(rng.choice(VALUES))
    return level


def test_fuzzed_levels_load_and_run_or_are_refused_in_one_line(tmp_path):
    base = json.loads((HOST / "level.json").read_text())
    base["rules"] = [{"id": "ok", "script": "ok.lua"}]
    base_map = json.loads((HOST / "map.json").read_text())
    shutil.copy(HOST / "ok.lua", tmp_path / "ok.lua")
    rng = random.Random(SEED)
    started, loaded, refused = time.monotonic(), 0, 0
    for case in range(CASES):
        level = mutate(base, rng)
        # a third of the cases also break the map file the level names
        (tmp_path / "map.json").write_text(json.dumps(mutate(base_map, rng) if case % 3 == 0 else base_map))
        try:
            lv = load_level(level, base_dir=tmp_path)
        except LevelError as err:
            text = str(err)
            assert text and "Traceback" not in text and len(text) < 4000, (case, text[:300])
            refused += 1
            continue
        sim = Simulation(lv, seed=case)
        try:
            sim.step(TICKS)
        except EngineError as err:      # a level that loads must run; only a rule may end it with an error
            raise AssertionError(f"case {case}: {err}") from err
        loaded += 1
    assert loaded >= 20 and refused >= 100     # the mutations reach both sides of the loader
    assert time.monotonic() - started < 20
