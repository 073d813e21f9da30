"""Same (level, seed, orders) -> same trace hash; a different seed changes seeded rule output."""
from engine import Simulation, load_level

RULE = """
function on_start()
  every(3, function()
    local n = random_int(1, 3)
    spawn(1, "light_bot", 20 + random() * 6, 10 + random() * 10, n)
    log("wave", {n = n})
  end)
end
"""


class Scripted:
    """A policy that replays a fixed order at 2 s and reports nothing else."""

    decision_interval = 1.0

    def act(self, view):
        if 1.9 < view.time < 2.1:
            return [{"kind": "fight", "units": [u["id"] for u in view.my_units()], "x": 25, "y": 16}]
        return []


def run(arena, h, seed):
    (arena / "waves.lua").write_text(RULE)
    teams = [h.team(0, [{"type": "light_bot", "x": 5, "y": 16, "count": 6}, {"type": "artillery_bot", "x": 4, "y": 12, "count": 2}]),
             h.team(1, [{"type": "assault_bot", "x": 26, "y": 16, "count": 3}],
                    controller={"type": "ai", "behaviour": "waves", "target": {"x": 5, "y": 16}, "interval": 10})]
    lv = load_level(h.level_dict(teams, rules=[{"id": "waves", "script": "waves.lua"}],
                                 conditions=[{"kind": "last_survivor"}], switches={"time_limit": 40, "fog_of_war": True}),
                    base_dir=arena)
    return Simulation(lv, seed=seed, policies={0: Scripted()}).run()


def test_same_seed_same_hash(arena, h):
    a, b = run(arena, h, 5), run(arena, h, 5)
    assert a.trace_hash == b.trace_hash and len(a.trace) == len(b.trace)
    assert any(e["event"] == "order" for e in a.trace) and any(e["event"] == "death" for e in a.trace)


def test_different_seed_changes_trace(arena, h):
    assert run(arena, h, 5).trace_hash != run(arena, h, 6).trace_hash


def test_trace_file_matches_hash(arena, h, tmp_path):
    import hashlib

    res = run(arena, h, 1)
    path = res.write_trace(tmp_path / "trace.jsonl")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == res.trace_hash
    assert res.to_dict()["trace_path"] == str(path)
