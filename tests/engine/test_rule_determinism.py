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
