"""The retrospective turns a recurring, real failure into a replay-validated rubric update.

Levels are generated on a map whose base sits in a cliff-walled pocket: the offline designer's
naive placement traps the army, the reference policy cannot defend, the PM rolls back with
"units are trapped" guidance, and the second design succeeds. After the same failure recurs in a
second generation, the retrospective proposes the checks that catch it at Stage 2 (units that
cannot leave their spawn, and a design its reference strategy loses), replays each on the
recorded failures and on the accepted designs in the KB, and adopts what the replay proves.
"""
import pytest

from genesis.pipeline import feedback

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


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_recurring_trapped_units_teach_the_gdd_rubric_what_to_catch(tmp_path, seed_dirs, monkeypatch):
    kb, rubrics = seed_dirs
    # a level reads its map file from its own folder only, so each run's folder gets a copy
    maps = []
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        maps.append(pocket_map(tmp_path / run / "pocket.json"))
    monkeypatch.setattr(gdd_writer, "_map_for", lambda c: {"file": str(maps[0])})

    first = start("defend two fronts with staggered waves", out=tmp_path / "one", kb_root=kb, rubrics_root=rubrics)
    assert first.status == "playable", first.validation.get("reason")
    decisions = first.validation["decisions"]
    assert any(d["decision"] == "rollback" and "trapped" in " ".join(d["guidance"]) for d in decisions)
    assert first.validation["evolution"]["rubric_updates"] == []  # seen once: not yet a pattern

    maps.pop(0)
    second = start("defend two fronts with staggered waves for 4 minutes", out=tmp_path / "two", kb_root=kb,
                   rubrics_root=rubrics)
    assert second.status == "playable", second.validation.get("reason")
    updates = {u["criterion"]: u for u in second.validation["evolution"]["rubric_updates"]}
    # the accepted design of the first run still has a few units in the pocket: the replay refuses
    # the start-pathability check it would reject, and adopts the balance preview
    assert updates["start_pathability"]["error"].startswith("rejected by replay: it fails accepted KB scenarios")
    assert updates["balance_preview"]["version"] == 2
    gdd = rubric_store.load("gdd", root=rubrics)
    added = gdd.criterion("balance_preview")
    assert added.origin == "evolved" and "2 runs failed with level:reference_wins:reference_lost" in added.history[-1].rationale
    # both accepted designs (this run's is committed before its retrospective) pass the preview
    assert "passes 2 accepted KB scenario(s)" in added.history[-1].evidence
    log = feedback.read(rubrics)
    trapped = {r.run_id for r in log for s in r.signatures if s.detail_class == "immobile_units"}
    assert len(trapped) == 2
    assert [r.outcome for r in log if r.kind == "outcome"] == ["playable", "playable"]
