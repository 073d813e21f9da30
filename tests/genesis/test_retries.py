"""Retries that see: the next writer gets its rejected artifact, the raw errors, every judge's
feedback and the PM's guidance; stage budgets count per visit; the total budget is a hard cap."""
import tempfile
from pathlib import Path
from types import SimpleNamespace

from genesis.agents.base import PROMPTS
from genesis.llm import render
from genesis.models import CriterionResult, MetaFeedback, RetryContext, RuleArtifact, Verdict
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design
from genesis.pipeline.nodes import Nodes, TOTAL_BUDGET
from genesis.prompt_facts import FACTS


class ScriptedPM:
    def __init__(self, *decisions):
        self.decisions = list(decisions)
        self.seen = []

    def gate(self, stage, verdict, *args, **kwargs):
        self.seen.append(verdict)
        return self.decisions.pop(0)


def _nodes(pm):
    # every verdict goes to the feedback log in the rubrics folder
    ctx = SimpleNamespace(pm=pm, say=lambda *a: None, out_dir=None, rubrics_root=Path(tempfile.mkdtemp()))
    return Nodes(ctx)


FAILED_RULES = Verdict(stage="rules", passed=False, feedback=["the convoy rule never logs arrivals"],
                       criteria=[CriterionResult(id="rule_tests_pass", passed=False,
                                                 reason="escort/arrives: FAIL rule_log events (name=arrived): 0; needed >= 1")])


QUERY = "defend two fronts against three waves"
GDD_DOC = design(write_brief(QUERY, read(QUERY), []))


def _state(**extra):
    return {"run_id": "r", "query": "q", "verdicts": {"rules": FAILED_RULES},
            "attempts": {"gdd": 1, "rules": 3}, "iterations": 4, "gdd": GDD_DOC,
            "rules": [RuleArtifact(id="escort", source="function on_start() end", params={}, tests=[]),
                      RuleArtifact(id="waves", source="-- library source", params={"times": [30]}, tests=[],
                                   reused_from="staggered_waves")], **extra}


def test_a_rollback_the_pm_asks_for_after_the_stage_budget_is_spent_happens_and_starts_new_visits():
    pm = ScriptedPM(MetaFeedback(decision="rollback", target_stage="gdd", guidance=["log arrivals"], reason="design"))
    update = _nodes(pm).gate("rules")(_state())
    assert update["route"] == "write_gdd" and update["iterations"] == 5
    assert update["attempts"] == {"gdd": 0, "rules": 0, "level": 0}
    retry = update["retry"]["gdd"]
    assert f'"title":"{GDD_DOC.title}"' in retry.previous                       # the GDD it will rewrite
    assert any("needed >= 1" in e and "[stage rules]" in e for e in retry.errors)   # the raw check error
    assert retry.judge_feedback == ["the convoy rule never logs arrivals"]
    assert update["retry"]["rules"] is None and update["guidance"] == {"gdd": ["log arrivals"]}


def test_a_retry_shows_the_writer_its_own_previous_artifact():
    pm = ScriptedPM(MetaFeedback(decision="retry", target_stage="rules", reason="fix"))
    update = _nodes(pm).gate("rules")(_state(attempts={"rules": 1}))
    retry = update["retry"]["rules"]
    assert "function on_start() end" in retry.previous and update["attempts"] == {"rules": 2}
    assert '"reuse":"staggered_waves"' in retry.previous and "library source" not in retry.previous


def test_each_rule_writer_sees_only_its_own_rejected_rule_and_not_twice():
    pm = ScriptedPM(MetaFeedback(decision="retry", target_stage="rules", reason="fix"))
    nodes = _nodes(pm)
    state = _state(attempts={"rules": 1})
    state["retry"] = nodes.gate("rules")(state)["retry"]
    escort, waves = nodes._rule_retry(state, "escort", None), nodes._rule_retry(state, "waves", None)
    assert "function on_start() end" in escort.previous and "staggered_waves" not in escort.previous
    assert '"reuse":"staggered_waves"' in waves.previous and "on_start" not in waves.previous
    assert escort.errors == state["retry"]["rules"].errors                  # every failing check still shown
    # the verified rule shown beside it is the same script: its source is not sent a second time
    assert nodes._rule_retry(state, "escort", state["rules"][0]).previous == ""


def test_guidance_given_with_an_advance_reaches_the_next_stage():
    # a reviewer's word on a passing stage is passed on by the PM
    passed = Verdict(stage="gdd", passed=True, feedback=["the raids could reuse the library's rule"])
    pm = ScriptedPM(MetaFeedback(decision="advance", target_stage="rules", guidance=["reuse periodic_raids"]))
    update = _nodes(pm).gate("gdd")({"run_id": "r", "query": "q", "verdicts": {"gdd": passed},
                                      "attempts": {"gdd": 2}, "iterations": 2})
    assert update["guidance"] == {"rules": ["reuse periodic_raids"]} and update["attempts"] == {"gdd": 3, "rules": 0}
    # with nothing flagged the stage advances without asking the PM
    quiet = ScriptedPM()
    update = _nodes(quiet).gate("gdd")({"run_id": "r", "query": "q", "verdicts": {"gdd": Verdict(stage="gdd", passed=True)},
                                        "attempts": {"gdd": 2}, "iterations": 2})
    assert not quiet.seen and update["route"] == "write_rules" and "no PM call" in update["decisions"][0]["reason"]


def test_the_total_budget_stops_the_run_and_is_reported_within_its_cap():
    pm = ScriptedPM(MetaFeedback(decision="retry", target_stage="rules", reason="again"))
    update = _nodes(pm).gate("rules")(_state(iterations=TOTAL_BUDGET - 1, attempts={"rules": 1}))
    assert update["status"] == "failed" and f"total {TOTAL_BUDGET}/{TOTAL_BUDGET}" in update["stop_reason"]


def test_the_retry_prompt_carries_the_previous_artifact_errors_feedback_and_guidance():
    retry = RetryContext(previous='{"id": "escort", "source": "-- v1"}', errors=["rule_tests_pass: expected 4 trucks"],
                         judge_feedback=["visual reviewer: trucks and tanks look alike"])
    prompt = render(PROMPTS / "developer_write_rule.j2", component={"id": "escort"}, library=None, guidance=["use tags"],
                    design=None, example=None, retry=retry.model_dump(), criteria=[], verified=None, kept=[], facts=FACTS)
    for text in ('"source": "-- v1"', "rule_tests_pass: expected 4 trucks", "trucks and tanks look alike", "use tags",
                 "THIS IS A RETRY"):
        assert text in prompt


def test_the_gdd_judges_feedback_reaches_the_pm():
    from genesis.models import JudgedReview

    brief = write_brief(QUERY, read(QUERY), [])
    review = JudgedReview(results=[CriterionResult(id="competency_clear", passed=False, reason="vague")],
                          feedback=["say which competency the waves exercise"])
    ctx = SimpleNamespace(analyst=SimpleNamespace(judge_gdd=lambda *a: review), kb=SimpleNamespace(list=lambda c: [], root=None),
                          client=SimpleNamespace(backend_name=lambda r: "test"),
                          rubrics_root=None, say=lambda *a: None)
    update = Nodes(ctx).review_gdd({"brief": brief, "gdd": design(brief)})
    verdict = update["verdicts"]["gdd"]
    assert verdict.feedback == ["say which competency the waves exercise"] and not verdict.passed


def test_guidance_from_before_a_rollback_is_no_later_stages_latest():
    from genesis.pipeline.nodes import stage_guidance

    # an earlier rules visit was told to keep its scripts; the rules gate now rolls back to the design
    state = _state(guidance={"rules": ["keep both scripts as they are"]}, guidance_latest={"rules": 1},
                   attempts={"rules": 1})
    pm = ScriptedPM(MetaFeedback(decision="rollback", target_stage="gdd", guidance=["add a dust storm"], reason="r"))
    update = _nodes(pm).gate("rules")(state)
    assert update["guidance_latest"] == {"gdd": 1, "rules": 0, "level": 0}
    # the design passes and advances with nothing flagged: the rules writer sees the old word as earlier only
    state = {**state, "guidance": {**state["guidance"], **update["guidance"]},
             "guidance_latest": {**state["guidance_latest"], **update["guidance_latest"]}}
    update = _nodes(ScriptedPM()).gate("gdd")({**state, "verdicts": {"gdd": Verdict(stage="gdd", passed=True)},
                                               "attempts": {"gdd": 1}})
    merged = {**state["guidance_latest"], **update["guidance_latest"]}
    guidance = stage_guidance({**state, "guidance_latest": merged}, "rules")
    assert list(guidance) == ["keep both scripts as they are"] and guidance.latest == []
    text = render(PROMPTS / "_retry.j2", retry=None, guidance=guidance)
    assert "Earlier PM guidance" in text and "Guidance from the PM (apply it" not in text
