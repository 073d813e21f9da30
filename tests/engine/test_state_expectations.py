"""State expectations: a rule test can assert what really happened in the engine (resources, unit
counts by team/type/tag, positions) at given times, not only the rule's own log entries."""
import shutil

import yaml

from engine.ruletest import run_rule_tests

LEVEL = {"name": "state test", "description": "supplies", "map": {"name": "open_field"},
         "switches": {"fog_of_war": False, "production": False, "time_limit": 60},
         "teams": [{"id": 0, "name": "player", "units": [{"type": "metal_storage", "at": "center", "tag": "depot"}]},
                   {"id": 1, "name": "enemy", "controller": {"type": "ai", "behaviour": "idle"},
                    "units": [{"type": "light_bot", "at": "ne", "count": 2}]}]}


def _run(tmp_path, expect):
    rule = tmp_path / "resource_income"
    shutil.copytree("kb/rules/resource_income", rule)
    case = {"name": "state", "level": LEVEL, "params": {"metal": 100, "interval": 10, "first_at": 5}, "until": 40,
            "expect": expect}
    (rule / "test.yaml").write_text(yaml.safe_dump({"tests": [case]}))
    [result] = run_rule_tests(rule)
    return result


def test_state_expectations_read_resources_and_units_at_the_given_time(tmp_path):
    result = _run(tmp_path, [
        {"state": {"at": 4, "team": 0, "metal_max": 0}},
        {"state": {"at": 26, "team": 0, "metal_min": 300, "metal_max": 300}},
        {"state": {"at": 20, "team": 1, "type": "light_bot", "units_min": 2, "units_max": 2}},
        {"state": {"at": 20, "tag": "depot", "team": 0, "units_min": 1,
                   "within": {"x": 24.5, "y": 24.5, "radius": 6}}},
    ])
    assert result.passed, result.details


def test_a_state_expectation_that_does_not_hold_fails_with_the_observed_value(tmp_path):
    result = _run(tmp_path, [{"state": {"at": 26, "team": 0, "metal_min": 1000}}])
    assert not result.passed
    assert any("metal is 300, needed >= 1000" in d for d in result.details), result.details


def test_a_failed_test_says_where_every_side_stood_at_its_end_and_how_many_expectations_held(tmp_path):
    from genesis.checks.context import CheckContext
    from genesis.checks.rule_checks import rule_tests_pass
    result = _run(tmp_path, [{"state": {"at": 26, "team": 0, "metal_min": 1000}},
                             {"state": {"at": 20, "team": 1, "type": "light_bot", "units_min": 2}}])
    end = next(d for d in result.details if d.startswith("END "))
    assert "team 0: 1 unit, metal_storage (" in end and "team 1: 2 units, light_bot (" in end
    ok, why = rule_tests_pass(CheckContext(rules=["resource_income"],
                                           rule_test_results={"resource_income": [result.to_dict()]}))
    assert not ok and "1 of 2 expectations held" in why and "END at 40 s" in why


def test_a_state_expectation_counts_only_units_within_the_hp_bounds(tmp_path):
    result = _run(tmp_path, [
        {"state": {"at": 10, "tag": "depot", "hp_share_min": 1.0, "units_min": 1}},
        {"state": {"at": 10, "team": 1, "hp_min": 160, "hp_max": 160, "units_min": 2, "units_max": 2}},
    ])
    assert result.passed, result.details
    result = _run(tmp_path / "again", [{"state": {"at": 10, "team": 1, "hp_share_max": 0.5, "units_min": 1}}])
    assert not result.passed
    assert any("0 matching units" in d and "share of max hp" in d for d in result.details), result.details
