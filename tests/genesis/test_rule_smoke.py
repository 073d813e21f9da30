"""Stage 3 runs every new rule in a smoke test besides its own tests: a callback that breaks on a dead
unit passes tests that kill nothing, and fails the smoke run."""
from types import SimpleNamespace

import yaml

from genesis.models import RuleArtifact
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design
from genesis.pipeline.nodes import Nodes
from genesis.pipeline.smoke import SMOKE_TEST_NAME
from genesis.simulate import SimPool
from genesis.validation_cache import ValidationCache

# Reads a field of a unit that is already dead: unit(u.id) is nil in on_unit_destroyed.
NIL_FIELD_BUG = """
function on_start() log("armed", {}) end
function on_unit_destroyed(u)
  local dead = unit(u.id)
  log("lost", {x = dead.x})
end
"""
OWN_TEST = {"name": "logs once armed", "params": {}, "until": 5, "expect": [{"event": "rule_log", "where": {"name": "armed"}}],
            "level": {"name": "t", "description": "t", "map": {"name": "open_field"},
                      "switches": {"fog_of_war": False, "production": False, "time_limit": 30},
                      "teams": [{"id": 0, "name": "p", "units": [{"type": "light_bot", "at": "west"}]},
                                {"id": 1, "name": "e", "controller": {"type": "ai", "behaviour": "idle"},
                                 "units": [{"type": "light_bot", "at": "east"}]}]}}


def test_a_nil_field_bug_its_own_tests_miss_fails_the_smoke_run(tmp_path):
    query = "defend two fronts against three waves"
    gdd = design(write_brief(query, read(query), []))
    rule = RuleArtifact(id="casualty_log", source=NIL_FIELD_BUG, params={}, tests=[OWN_TEST],
                        meta={"title": "casualty log", "description": "logs deaths", "params": {}})
    with SimPool(2) as pool:
        ctx = SimpleNamespace(out_dir=tmp_path, rubrics_root=None, say=lambda *a: None, sim_pool=lambda workers: pool,
                              validation_cache=ValidationCache(tmp_path / "cache"))
        update = Nodes(ctx).test_rules({"gdd": gdd, "rules": [rule]})
    results = {r["name"]: r for r in update["rule_tests"]["casualty_log"]}
    assert results["logs once armed"]["passed"]
    smoke = results[SMOKE_TEST_NAME]
    assert not smoke["passed"] and "casualty_log" in (smoke["error"] or "")
    verdict = update["verdicts"]["rules"]
    assert not verdict.passed and any("smoke" in c.reason for c in verdict.criteria if not c.passed)
    smoke_case = yaml.safe_load((tmp_path / "rule_tests" / "casualty_log.smoke" / "test.yaml").read_text())["tests"][0]
    assert smoke_case["policies"] == {0: "reference"} and smoke_case["until"] >= 180
