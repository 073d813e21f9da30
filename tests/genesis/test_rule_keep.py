"""A rules retry re-asks only the components that failed; after a rollback the developer sees the
verified scripts of the earlier visit and may keep them by reference."""
import json
from pathlib import Path
from types import SimpleNamespace

from genesis.agents.base import PROMPTS
from genesis.llm import render
from genesis.models import CriterionResult, RuleArtifact, RuleComponent, RuleDraft, Verdict
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design
from genesis.pipeline.nodes import Nodes
from genesis.pipeline.rule_keep import component_key
from genesis.prompt_facts import FACTS

REPO = Path(__file__).resolve().parents[2]
QUERY = "defend two fronts against three waves"
COMPONENTS = [RuleComponent(id="alpha", kind="spawn", purpose="Spawns a scout for team 1 at the start."),
              RuleComponent(id="beta", kind="economy", purpose="Gives team 0 ten metal every 30 seconds.")]
GDD_DOC = design(write_brief(QUERY, read(QUERY), [])).model_copy(update={"rule_components": COMPONENTS})
NEW_SOURCE = "function on_start() log('beta', {}) end"


class Developer:
    def __init__(self, keep=()):
        self.calls, self.keep = [], set(keep)

    def write_rule(self, comp, lib, guidance, example, retry, criteria, gdd, verified=None, kept=None):
        self.calls.append({"id": comp.id, "verified": verified, "kept": kept})
        if comp.id in self.keep:
            return RuleDraft(id=comp.id, keep=True, params={"n": 2})
        return RuleDraft(id=comp.id, source=NEW_SOURCE, params={}, meta={"title": "t", "description": "d"},
                         tests=[{"name": "x", "level": {"name": "n", "description": "d", "map": {"name": "open_field"},
                                                        "teams": [{"id": 0, "name": "p"}]},
                                 "expect": [{"event": "rule_log"}]}])


def _art(comp, source):
    return RuleArtifact(id=comp.id, source=source, params={}, tests=[], written_for=component_key(comp),
                        meta={"params": {"n": "how many"}})


def _run(tmp_path, developer, verdict, gdd=GDD_DOC, decisions=(), plan=4):
    ctx = SimpleNamespace(developer=developer, kb=SimpleNamespace(get=lambda *a: None), say=lambda *a: None,
                          out_dir=tmp_path, rubrics_root=REPO / "rubrics", client=SimpleNamespace(call_plan=plan))
    state = {"gdd": gdd, "verdicts": {"rules": verdict}, "decisions": list(decisions),
             "rules": [_art(COMPONENTS[0], "-- alpha v1"), _art(COMPONENTS[1], "-- beta v1")],
             "rule_tests": {"alpha": [{"name": "a", "passed": True}], "beta": [{"name": "b", "passed": False}]}}
    return Nodes(ctx).write_rules(state)


def test_a_rules_retry_asks_only_the_failing_component_and_keeps_the_passing_one(tmp_path):
    failed = Verdict(stage="rules", passed=False, criteria=[
        CriterionResult(id="rule_tests_pass", passed=False, reason="beta/b: FAIL rule_log events: 0")])
    dev = Developer()
    update = _run(tmp_path, dev, failed)
    assert [c["id"] for c in dev.calls] == ["beta"] and dev.calls[0]["kept"] == ["alpha"]
    alpha, beta = update["rules"]
    assert alpha.source == "-- alpha v1" and beta.source == NEW_SOURCE


def test_a_changed_component_is_asked_again_with_its_verified_script_shown_and_can_be_kept(tmp_path):
    passed = Verdict(stage="rules", passed=True, criteria=[])
    changed = [COMPONENTS[0].model_copy(update={"params": {"n": 2}}), COMPONENTS[1]]
    dev = Developer(keep={"alpha"})
    update = _run(tmp_path, dev, passed, GDD_DOC.model_copy(update={"rule_components": changed}))
    assert [c["id"] for c in dev.calls] == ["alpha", "beta"]
    assert dev.calls[0]["verified"].source == "-- alpha v1" and dev.calls[1]["verified"] is None  # beta had failed
    alpha = update["rules"][0]
    assert alpha.source == "-- alpha v1" and alpha.params == {"n": 2}
    assert alpha.written_for == component_key(changed[0])


def _sent_back(to):
    return [{"stage": "level", "decision": "rollback", "target_stage": to},
            {"stage": "gdd", "decision": "advance", "target_stage": "rules"}][:1 if to == "rules" else 2]


def test_a_rollback_to_the_gdd_keeps_verified_rules_whose_component_it_left_unchanged(tmp_path):
    passed = Verdict(stage="rules", passed=True, criteria=[])
    changed = [COMPONENTS[0], COMPONENTS[1].model_copy(update={"params": {"n": 3}})]
    dev = Developer()
    update = _run(tmp_path, dev, passed, GDD_DOC.model_copy(update={"rule_components": changed}), _sent_back("gdd"))
    # alpha's component is unchanged and its tests passed: kept without a call; beta changed: asked again
    assert [c["id"] for c in dev.calls] == ["beta"] and dev.calls[0]["kept"] == ["alpha"]
    assert update["rules"][0].source == "-- alpha v1"


def test_a_rollback_to_the_gdd_keeps_a_verified_rule_whose_component_changed_only_params_it_declares(tmp_path):
    passed = Verdict(stage="rules", passed=True, criteria=[])

    def visit(changed, plan=4):
        dev = Developer()
        update = _run(tmp_path, dev, passed, GDD_DOC.model_copy(update={"rule_components": [changed, COMPONENTS[1]]}),
                      _sent_back("gdd"), plan=plan)
        return [c["id"] for c in dev.calls], update["rules"][0]

    asked, alpha = visit(COMPONENTS[0].model_copy(update={"params": {"n": 2}}))
    assert asked == ["beta"] and alpha.source == "-- alpha v1" and alpha.params == {"n": 2}
    # a param the rule does not read, another purpose, or a recording made before call plan 4: asked again
    assert visit(COMPONENTS[0].model_copy(update={"params": {"m": 2}}))[0] == ["alpha", "beta"]
    assert visit(COMPONENTS[0].model_copy(update={"purpose": "Spawns two scouts."}))[0] == ["alpha", "beta"]
    assert visit(COMPONENTS[0].model_copy(update={"params": {"n": 2}}), plan=3)[0] == ["alpha", "beta"]


def test_a_rollback_to_the_rules_asks_the_developer_for_every_rule_again(tmp_path):
    dev = Developer()
    _run(tmp_path, dev, Verdict(stage="rules", passed=True, criteria=[]), decisions=_sent_back("rules"))
    assert [c["id"] for c in dev.calls] == ["alpha", "beta"]


def test_keeping_a_rule_no_visit_verified_fails_the_stage(tmp_path):
    dev = Developer(keep={"beta"})
    update = _run(tmp_path, dev, Verdict(stage="rules", passed=True, criteria=[]))
    assert update["verdicts"]["rules"].passed is False
    assert "no" in update["verdicts"]["rules"].criteria[0].reason and "keep" in update["verdicts"]["rules"].criteria[0].reason


def test_the_developer_prompt_shows_the_verified_script_and_how_to_keep_it():
    shown = {"params": {}, "reused_from": None, "written_for": component_key(COMPONENTS[0]),
             "source": "-- alpha v1", "tests": []}
    prompt = render(PROMPTS / "developer_write_rule.j2", component=COMPONENTS[0].model_dump(mode="json"), library=None,
                    design=None, guidance=[], example=None, retry=None, criteria=[], verified=shown, kept=["beta"],
                    facts=FACTS)
    assert "-- alpha v1" in prompt and '"keep": true' in prompt
    assert "Kept unchanged from the previous attempt" in prompt and "beta" in prompt


def test_a_kept_rules_earlier_component_is_shown_as_what_changed_only():
    from genesis.agents.developer import _written_for

    comp = COMPONENTS[0]
    assert _written_for(component_key(comp), comp) == ""
    before = comp.model_copy(update={"params": {"interval": 30}})
    changed = json.loads(_written_for(component_key(before), comp))
    assert changed == {"params": {"interval": 30}}     # the earlier value of the one key that differs
