"""The retrospective turns a recurring, real failure into a rubric update with its rationale.

Levels are generated on a map whose base sits in a cliff-walled pocket: the offline designer's
naive placement traps the army, the reference policy cannot defend, the PM rolls back with
"units are trapped" guidance, and the second design succeeds. After the same failure recurs in a
second generation, the retrospective adds the pathability criterion (the paper's own example of a learned criterion).
"""
import json

from engine.schema.mapdata import MapData
from genesis import rubric_store
from genesis.offline import gdd_writer
from genesis.pipeline.runner import start
from tests.genesis.pipeline_fixtures import seed_dirs  # noqa: F401 (fixture)


def pocket_map(path):
    size, c, r = 48, 24, 6
    rows = []
    for y in range(size):
        row = ""
        for x in range(size):
            ring = max(abs(x - c), abs(y - c)) == r
            row += "#" if ring else "."
        rows.append(row)
    spawns = [{"name": "base", "x": c + 0.5, "y": c + 0.5}, {"name": "east", "x": 44.5, "y": 24.5},
              {"name": "west", "x": 3.5, "y": 24.5}, {"name": "north", "x": 24.5, "y": 3.5},
              {"name": "south", "x": 24.5, "y": 44.5}]
    m = MapData(name="pocket", width=size, height=size, rows=rows, spawns=spawns)
    path.write_text(m.model_dump_json())
    return path


def test_recurring_trapped_units_add_the_pathability_criterion(tmp_path, seed_dirs, monkeypatch):
    kb, rubrics = seed_dirs
    # a level reads its map file from its own folder only, so each run's folder gets a copy
    maps = []
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        maps.append(pocket_map(tmp_path / run / "pocket.json"))
    monkeypatch.setattr(gdd_writer, "_map_for", lambda c: {"file": str(maps[0])})
    kinds = lambda: {c.kind for c in rubric_store.load("level", root=rubrics).criteria}
    assert "check:pathability" not in kinds()

    first = start("defend two fronts with staggered waves", out=tmp_path / "one", kb_root=kb, rubrics_root=rubrics)
    assert first.status == "playable", first.validation.get("reason")
    decisions = first.validation["decisions"]
    assert any(d["decision"] == "rollback" and "trapped" in " ".join(d["guidance"]) for d in decisions)
    assert first.validation["evolution"]["rubric_updates"] == []  # seen once: not yet a pattern

    maps.pop(0)
    second = start("defend two fronts with staggered waves for 4 minutes", out=tmp_path / "two", kb_root=kb,
                   rubrics_root=rubrics)
    assert second.status == "playable", second.validation.get("reason")
    updates = second.validation["evolution"]["rubric_updates"]
    assert updates and updates[0]["stage"] == "level" and updates[0]["version"] == 2
    level = rubric_store.load("level", root=rubrics)
    added = next(c for c in level.criteria if c.kind == "check:pathability")
    assert added.origin == "evolved" and "2 occurrences" in added.history[-1].rationale
    assert [v.version for v in rubric_store.history("level", root=rubrics)] == [1, 2]
    log = [json.loads(l) for l in (rubrics / "feedback_log.jsonl").read_text().splitlines()]
    assert sum("immobile_units" in e["signatures"] for e in log) == 2
