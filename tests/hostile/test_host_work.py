"""Issue 30, item 3: host work a rule causes outside its own code — path planning and unit
bookkeeping of order() — is charged to its budgets, so a run ends cleanly near its usual cost
instead of stalling for minutes (`engine run`; the other entry points share the simulation)."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from engine.agent.gym_env import RTSEnv
from tests.hostile.test_corpus import engine_run

# 2000 units ordered to a fresh point every tick: before, a 20 s level on a 128x128 map took 80 s
FLOOD = """
function on_start()
  local ids = {}
  for i = 1, 10 do
    for _, id in ipairs(spawn(1, "light_bot", 8 + i, 8, 200)) do ids[#ids + 1] = id end
  end
  every(1/30, function()
    local w, h = map_size()
    order(ids, "move", 1 + random() * (w - 2), 1 + random() * (h - 2))
  end)
end
"""
# more destinations at once than the path cache holds: before, every field was recomputed every tick
SPREAD = """
function on_start()
  local ids = spawn(1, "light_bot", 20, 20, 100)
  for k, id in ipairs(ids) do
    at(k * 0.05, function() order(id, "move", 2 + (k % 10) * 12, 2 + (k // 10) * 12) end)
  end
end
"""


def level(tmp_path: Path, script: str, size: int = 128, time_limit: float = 20) -> Path:
    (tmp_path / "rule.lua").write_text(script)
    data = {"name": "host work", "description": "a rule that makes the host plan paths",
            "map": {"generate": {"width": size, "height": size, "seed": 1}},
            "teams": [{"id": 0, "name": "a", "units": [{"type": "light_bot", "x": 5.5, "y": 5.5}]},
                      {"id": 1, "name": "b", "controller": {"type": "none"},
                       "units": [{"type": "light_bot", "x": 20.5, "y": 20.5}]}],
            "rules": [{"id": "flood", "script": "rule.lua"}], "switches": {"time_limit": time_limit}}
    path = tmp_path / "level.json"
    path.write_text(json.dumps(data))
    return path


def test_order_flood_is_charged_and_ends_cleanly(tmp_path):
    started = time.monotonic()
    code, out, err = engine_run(level(tmp_path, FLOOD))
    assert code == 1 and err.startswith("error: flood:9: instruction budget per run") and err.count("\n") == 1
    assert time.monotonic() - started < 20      # the level's time limit; 80 s before


def test_order_flood_in_the_gym_env_is_bounded(tmp_path):
    started = time.monotonic()
    env = RTSEnv(level(tmp_path, FLOOD), decision_interval=1.0)
    env.reset(seed=0)
    done = env.sim.done
    while not done:
        _, _, terminated, truncated, _ = env.step(env.action_space.sample() * 0)
        done = terminated or truncated
    assert "instruction budget per run" in env.sim.result.error
    assert time.monotonic() - started < 20


def test_order_flood_in_ruletest_is_bounded(tmp_path):
    import yaml

    from tests.hostile.test_corpus import ruletest

    data = json.loads(level(tmp_path, FLOOD).read_text())
    del data["rules"]
    folder = tmp_path / "flood"
    folder.mkdir()
    (folder / "rule.lua").write_text(FLOOD)
    (folder / "test.yaml").write_text(yaml.safe_dump({"tests": [{"name": "flood", "level": data, "expect": []}]}))
    started = time.monotonic()
    code, report, _ = ruletest([str(folder)])
    (result,) = report[str(folder)]
    assert code == 1 and "instruction budget per run" in result["error"]
    assert time.monotonic() - started < 20


def test_order_flood_in_genesis_play_is_bounded(tmp_path):
    from genesis.play import play

    path = level(tmp_path, FLOOD)
    started = time.monotonic()
    (row,) = play(path.parent, "idle", 1, out=tmp_path / "out").rows
    assert row.outcome == "error" and "instruction budget per run" in row.error
    assert time.monotonic() - started < 20


def test_many_destinations_do_not_recompute_fields_every_tick(tmp_path):
    started = time.monotonic()
    code, out, err = engine_run(level(tmp_path, SPREAD))
    assert code == 0, err
    assert time.monotonic() - started < 20


@pytest.mark.slow
def test_order_flood_on_the_largest_map_is_bounded(tmp_path):
    started = time.monotonic()
    code, _, err = engine_run(level(tmp_path, FLOOD, size=512))
    assert code == 1 and "instruction budget" in err
    assert time.monotonic() - started < 60      # map generation included; over 220 s before


# 4000 references to one megabyte string handed to log(): before, 4 GB of copies in the host
SHARED_STRING = """
function on_start()
  local big, t = string.rep("x", 1000000), {}
  for i = 1, 4000 do t[i] = big end
  log("copies", {fields = t})
end
"""
# the run's own peak: VmHWM belongs to the exec'd image, while ru_maxrss keeps the forking parent's peak (pytest's)
PEAK = ("import re, sys; from engine.__main__ import main; code = main(['run', sys.argv[1]]); "
        "hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1); "
        "print('peak_kb', hwm, file=sys.stderr); sys.exit(code)")


def test_shared_string_copies_keep_the_host_under_512_mb(tmp_path):
    import subprocess
    import sys

    path = level(tmp_path, SHARED_STRING)
    proc = subprocess.run([sys.executable, "-c", PEAK, str(path)], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).parents[2])
    assert proc.returncode == 1 and "log: arguments hold more than 1048576 bytes of text" in proc.stderr
    peak_kb = int(proc.stderr.rsplit("peak_kb ", 1)[1])
    assert peak_kb < 512 * 1024, f"{peak_kb // 1024} MB"
