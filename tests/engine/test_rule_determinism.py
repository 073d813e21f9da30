"""Same level, same seed, same outcome in every process: Lua seeds its string hash per process,
so a rule iterating string keys with plain `pairs` spawned in a different order each run."""
import json
import subprocess
import sys
from pathlib import Path

RULE = """
function on_start()
  local groups = {}
  for i = 1, 12 do groups["g" .. i] = i end
  local order = {}
  for name, n in pairs(groups) do
    order[#order + 1] = name
    spawn(1, "light_bot", 4 + n, 20, 1, name)
  end
  log("order", {names = order, printed = tostring(groups)})
end
"""


def test_trace_hash_is_the_same_in_every_process(arena, h):
    (arena / "rule.lua").write_text(RULE)
    level = h.level_dict([h.team(0, [{"type": "light_bot", "x": 5, "y": 5}]), h.team(1, [])],
                         rules=[{"id": "r", "script": "rule.lua"}], switches={"time_limit": 2})
    (arena / "level.json").write_text(json.dumps(level))
    hashes = set()
    for _ in range(3):
        proc = subprocess.run([sys.executable, "-m", "engine", "run", str(arena / "level.json"), "--json"],
                              capture_output=True, text=True, timeout=120, cwd=Path(__file__).parents[2])
        assert proc.returncode == 0, proc.stderr
        hashes.add(json.loads(proc.stdout)["trace_hash"])
    assert len(hashes) == 1


# Everything a script could order by address or hash: raw next over many string keys, a table key
# next to string keys, a named table printed, log fields with number and string keys.
HOSTILE = """
function on_start()
  local t = {}
  for i = 1, 40 do t["k" .. i] = i end
  local seen, k = {}, next(t)
  while k ~= nil do seen[#seen + 1] = k; k = next(t, k) end
  local obj = setmetatable({}, {__name = "Obj"})
  local set, order = {[obj] = 1, x = 2, y = 3}, {}
  for key in pairs(set) do order[#order + 1] = tostring(key) end
  log("det", {seen = seen, named = tostring(obj), set = order, [1] = "one", mixed = {[2] = "a", b = "c"}})
end
"""


def test_trace_hash_ignores_addresses_and_hash_seeds(arena, h):
    import os

    (arena / "rule.lua").write_text(HOSTILE)
    level = h.level_dict([h.team(0, [{"type": "light_bot", "x": 5, "y": 5}]), h.team(1, [])],
                         rules=[{"id": "r", "script": "rule.lua"}], switches={"time_limit": 1})
    (arena / "level.json").write_text(json.dumps(level))
    hashes = set()
    for seed in ("1", "2", "3"):
        proc = subprocess.run([sys.executable, "-m", "engine", "run", str(arena / "level.json"), "--json"],
                              capture_output=True, text=True, timeout=120, cwd=Path(__file__).parents[2],
                              env={**os.environ, "PYTHONHASHSEED": seed})
        assert proc.returncode == 0, proc.stderr
        hashes.add(json.loads(proc.stdout)["trace_hash"])
    assert len(hashes) == 1
