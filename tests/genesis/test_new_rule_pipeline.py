"""A developer that writes a NEW rule (as a capable model does for a request the library cannot
serve) goes through the typed contract end to end: its tests and the smoke run pass in Stage 3, and
the KB commits the rule with tests that validate against the schema the model is given."""
import json

import pytest
import yaml

from genesis.models import RuleDraft, RuleTest
from genesis.offline import developer_brain
from genesis.pipeline.runner import start
from genesis.pipeline.smoke import SMOKE_TEST_NAME
from tests.genesis.pipeline_fixtures import seed_dirs  # noqa: F401 (fixture)

NEW = "protect_objective_loss"


@pytest.mark.slow
def test_a_new_rule_is_tested_smoke_run_and_committed_with_typed_tests(tmp_path, seed_dirs, monkeypatch):
    kb, rubrics = seed_dirs
    reuse = developer_brain.write_rule

    def write_rule(component, library, map_ref=None):
        if component.library_rule != NEW:
            return reuse(component, library, map_ref)
        # the library rule's text, sent back as a new rule written from scratch
        meta = {k: library["meta"][k] for k in ("title", "description", "params", "concepts")}
        return RuleDraft(id=component.id, source=library["source"], params=component.params, meta=meta,
                         tests=library["tests"])

    monkeypatch.setattr(developer_brain, "write_rule", write_rule)
    out = start("defend two fronts with staggered waves", out=tmp_path / "a", kb_root=kb, rubrics_root=rubrics)
    v = out.validation
    assert out.status == "playable", v.get("reason")
    records = json.loads((out.out_dir / "rules" / f"{NEW}.tests.json").read_text())
    smoke = [t for t in records["tests"] if t["name"] == SMOKE_TEST_NAME]
    assert smoke and smoke[0]["result"]["passed"] and records["reused_from"] is None
    [committed] = v["evolution"]["committed"]["new_rules"]
    tests = yaml.safe_load((kb / "rules" / committed / "test.yaml").read_text())["tests"]
    assert tests and all(RuleTest.model_validate(t) for t in tests)
    assert SMOKE_TEST_NAME not in {t["name"] for t in tests}   # the smoke run is a stage check, not a rule test
