"""Offline Stage 3 writes Lua: a recipe component with no library rule is composed by the offline
developer, passes the same Stage-3 checks as a model's rule (its tests and the smoke run), is committed
to the KB with its recipe signature, and is reused afterwards: by fast-tracking the stored design, and
by the developer finding it in the KB for a recipe of the same shape."""
import json

import pytest
import yaml

from genesis.models import RuleComponent
from genesis.offline import gdd_writer
from genesis.pipeline.runner import start
from genesis.pipeline.smoke import SMOKE_TEST_NAME
from genesis.rule_recipe import RuleRecipe
from tests.genesis.pipeline_fixtures import seed_dirs  # noqa: F401 (fixture)

QUERY = "defend two fronts with staggered waves"
RECIPE = RuleRecipe.model_validate({"steps": [{"when": {"on": "time", "at": [20]}, "then": [
    {"do": "message", "text": "Scouts report movement on both fronts", "team": 0},
    {"do": "mark", "text": "rally here", "at": "base"}]}]})
DESIGN = gdd_writer.design


def _with_recipe(monkeypatch, text: str) -> None:
    """The designer adds a recipe component (as the composed families do) to its usual design."""
    def patched(brief, guidance=None):
        gdd = DESIGN(brief, guidance)
        recipe = RECIPE.model_copy(deep=True)
        recipe.steps[0].then[0].text = text
        comp = RuleComponent(id="briefing", kind="setup", recipe=recipe,
                             purpose="tells the player at 20 s that both fronts are active and marks the rally point")
        return gdd.model_copy(update={"rule_components": [*gdd.rule_components, comp]})

    monkeypatch.setattr(gdd_writer, "design", patched)


def _record(out, rule_id: str) -> dict:
    return json.loads((out.out_dir / "rules" / f"{rule_id}.tests.json").read_text())


@pytest.mark.slow
def test_a_recipe_is_composed_verified_committed_and_reused(tmp_path, seed_dirs, monkeypatch):
    kb, rubrics = seed_dirs
    _with_recipe(monkeypatch, "Scouts report movement on both fronts")
    first = start(QUERY, out=tmp_path / "first", kb_root=kb, rubrics_root=rubrics)
    assert first.status == "playable", first.validation.get("reason")
    record = _record(first, "briefing")
    assert record["reused_from"] is None
    results = {t["name"]: t["result"]["passed"] for t in record["tests"]}
    assert results[SMOKE_TEST_NAME] and len(results) == 3 and all(results.values())
    lua = (first.out_dir / "rules" / "briefing.lua").read_text()
    assert "Scouts report" not in lua and 'param("disabled_steps")' in lua   # values are params, not source
    committed = [r for r in first.validation["evolution"]["committed"]["new_rules"] if r.endswith("briefing")]
    assert len(committed) == 1
    meta = yaml.safe_load((kb / "rules" / committed[0] / "meta.yaml").read_text())
    assert RECIPE.signature() in meta["concepts"]

    again = start(QUERY, out=tmp_path / "again", kb_root=kb, rubrics_root=rubrics)
    assert again.status == "playable" and again.validation["fast_tracked"]
    assert _record(again, "briefing")["reused_from"] == committed[0]

    # another text, same shape, no fast track: the developer reuses the composed rule with new params
    _with_recipe(monkeypatch, "The enemy is coming")
    other = start(QUERY, out=tmp_path / "other", kb_root=kb, rubrics_root=rubrics, options={"no_fast_track": True})
    assert other.status == "playable", other.validation.get("reason")
    assert _record(other, "briefing")["reused_from"] == committed[0]
    level = json.loads((other.out_dir / "level.json").read_text())
    [ref] = [r for r in level["rules"] if r["id"] == "briefing"]
    assert ref["params"]["s1_a1_text"] == "The enemy is coming"
    trace = [json.loads(line) for p in (other.out_dir / "runs").glob("*.jsonl") for line in p.read_text().splitlines()]
    assert any(e.get("event") == "message" and e.get("text") == "The enemy is coming" for e in trace)


@pytest.mark.slow
def test_an_example_query_composes_a_rule_into_the_kb_and_a_similar_request_reuses_it(tmp_path, seed_dirs):
    """The example "raiders ... from a random side" has no library rule that draws sides as asked: its
    raids are composed, verified and committed; another interval (no fast track) reuses that rule."""
    kb, rubrics = seed_dirs
    first = start("raiders strike your extractors every two minutes from a random side", out=tmp_path / "first",
                  kb_root=kb, rubrics_root=rubrics)
    assert first.status == "playable", first.validation.get("reason")
    assert _record(first, "composed_raids")["reused_from"] is None
    [committed] = [r for r in first.validation["evolution"]["committed"]["new_rules"] if r.endswith("composed_raids")]
    meta = yaml.safe_load((kb / "rules" / committed / "meta.yaml").read_text())
    assert any(c.startswith("recipe-") for c in meta["concepts"]) and "s1_a1_pick" in meta["params"]

    again = start("raiders hit your metal extractors every three minutes from a random side", out=tmp_path / "again",
                  kb_root=kb, rubrics_root=rubrics)
    assert again.status == "playable" and not again.validation["fast_tracked"]
    assert _record(again, "composed_raids")["reused_from"] == committed
    assert not [r for r in again.validation["evolution"]["committed"]["new_rules"] if r.endswith("composed_raids")]
