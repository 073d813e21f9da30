"""Trace hashes of the games an engine change must leave as they are, to compare two engines.

Run once per tree and compare:

    cd TREE && PYTHONPATH=$PWD python tests/engine/trace_hashes.py [LEVEL.json ...] > A.json
    python tests/engine/trace_hashes.py --compare A.json B.json      # exit 1 when any game differs

Games: every `kb/levels/*/level.json` (plus the levels given) under the reference, idle and random
policies at seeds 0 and 1, the engine bench's skirmish at 40 / 200 / 1000 units for 30 / 30 / 8
game seconds, and the 100 v 100 melee to its end. Each entry is the trace hash and a hash of the
final unit state (positions, hp, alive, orders, targets, cooldowns), so a change that moves a unit
without a traced event still shows.
"""
from __future__ import annotations

import glob
import hashlib
import json
import sys
import tempfile
from pathlib import Path


def _state_hash(sim) -> str:
    w = sim.world
    n = w.count
    h = hashlib.sha256()
    for a in (w.pos[:n], w.hp[:n], w.alive[:n], w.order[:n], w.target[:n], w.cooldown[:n]):
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def collect(extra_levels: list[str]) -> dict[str, list]:
    from engine import Simulation, load_level
    from engine.agent.policies import make_policy
    from engine.bench import RULE, bench_level, melee_level

    out: dict[str, list] = {}
    for path in sorted(glob.glob("kb/levels/*/level.json")) + extra_levels:
        level = load_level(path)
        seats = [t.id for t in level.config.teams if getattr(t.controller, "type", None) == "agent"]
        for policy in ("reference", "idle", "random"):
            for seed in (0, 1):
                sim = Simulation(level, seed=seed, policies={s: make_policy(policy, team=s, seed=seed) for s in seats})
                r = sim.run()
                out[f"{path}|{policy}|{seed}"] = [r.trace_hash[:16], _state_hash(sim), r.ended_by, r.duration]
    for per_side, seconds in ((20, 30), (100, 30), (500, 8)):
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "counter.lua").write_text(RULE, encoding="utf-8")
            level = load_level(bench_level(per_side), base_dir=tmp)
        sim = Simulation(level, seed=0)
        sim.step(int(seconds * 30))
        out[f"bench{2 * per_side}"] = [sim.trace.hash()[:16], _state_hash(sim)]
    sim = Simulation(load_level(melee_level(100)), seed=0)
    r = sim.run()
    out["melee"] = [r.trace_hash[:16], _state_hash(sim), r.duration]
    return out


def compare(a_path: str, b_path: str) -> int:
    a, b = (json.loads(Path(p).read_text(encoding="utf-8")) for p in (a_path, b_path))
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    for k in differ:
        print(f"{k}: {a.get(k)} != {b.get(k)}")
    print(f"{len(a)} games, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--compare"] and len(sys.argv) == 4:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    json.dump(collect(sys.argv[1:]), sys.stdout, indent=1)
    print()
