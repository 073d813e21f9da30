"""What the real-model run (SmolLM2-135M) taught, replayed from recorded replies in the default suite.

Garbage shapes seen: raw newlines inside JSON strings, a PM that "advances" a failing stage, prompts
larger than the model's context (and retries that grew past it), litellm's stacked error prefixes.
"""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from llm_fakes import FIXTURES, ScriptedLiteLLM, litellm, recorded_replies

from genesis import rubric_store
from genesis.checks import CheckContext, run_criteria
from genesis.llm import LLMClient, ModelCallError, Transcript, load_config
from genesis.llm.client import OutputParseError, parse_output
from genesis.models import Brief, CriterionResult, MetaFeedback, RuleArtifact, Verdict
from genesis.pipeline.evolution import evolve
from genesis.pipeline.proposals import ProposalSet, RubricProposal
from genesis.pipeline.pm_bounds import bound_decision, settled_decision
from genesis.pipeline.runner import start
from tests.genesis.pipeline_fixtures import seed_dirs, tree_hash  # noqa: F401 (fixture)

SMOL = json.loads((FIXTURES / "smollm2_replies.json").read_text(encoding="utf-8"))
REPLIES = recorded_replies()


def make_client(tmp_path, **cli):
    config = load_config({"model": "openai/smollm2", "api_base": "http://127.0.0.1:9/v1", "max_retries": 2, **cli},
                         env={}, cwd=tmp_path)
    return LLMClient(config, Transcript(tmp_path / "transcript.jsonl"))


def context_error(requested: int = 8334) -> Exception:
    return litellm.ContextWindowExceededError(message=SMOL["context_window_error"].replace("8334", str(requested)),
                                              model="openai/smollm2", llm_provider="openai")


# ---- parsing what the model wrote ------------------------------------------------------------------
def test_raw_newline_inside_a_json_string_is_accepted():
    brief = parse_output(SMOL["brief_raw_newline"], Brief)
    assert brief.title == "Defense with staggered waves" and "\nopponent_modelling" in brief.summary


def test_a_broken_reply_is_reported_as_broken_json_not_as_its_nested_fragment():
    # The outer object is cut off; its nested {"fronts": null} parses alone but must not be taken
    # for the answer, nor blamed for 10 missing fields.
    cut = SMOL["brief_raw_newline"][:-40]
    with pytest.raises(OutputParseError, match="not valid JSON") as info:
        parse_output(cut, Brief)
    assert "Field required" not in str(info.value)


def test_a_nested_empty_object_never_passes_for_an_all_default_model():
    truncated = '{"proposals": [], "summary": "cut'
    with pytest.raises(OutputParseError, match="not valid JSON"):
        parse_output(truncated, ProposalSet)


def test_a_rule_id_that_would_escape_the_scenario_folder_is_rejected():
    reply = json.dumps({"id": "../../outside", "source": "-- lua", "params": {}, "tests": []})
    with pytest.raises(OutputParseError, match="id: String should match pattern"):
        parse_output(reply, RuleArtifact)
    assert RuleArtifact.model_json_schema()["properties"]["id"]["pattern"]  # so grammar-constrained servers obey


def test_reply_cut_off_by_max_tokens_says_so(tmp_path, monkeypatch):
    fake = ScriptedLiteLLM([REPLIES["truncated"]] * 2)

    def cut_off(**kwargs):
        response = fake(**kwargs)
        response.choices[0].finish_reason = "length"
        return response

    monkeypatch.setattr(litellm, "completion", cut_off)
    client = make_client(tmp_path, max_retries=1, max_tokens=64)
    with pytest.raises(ModelCallError, match="cut off .*max_tokens=64"):
        client.complete("designer", "designer.clarify", "q", Brief, stage="brief", inputs={})
    assert [r["finish_reason"] for r in client.transcript.records] == ["length", "length"]


# ---- the conversation and the errors -----------------------------------------------------------------
def test_retries_carry_only_the_latest_rejected_reply(tmp_path, monkeypatch):
    # Appending every rejected reply made the third attempt overflow a 2k context in the real run.
    fake = ScriptedLiteLLM([REPLIES["garbage"], REPLIES["wrong_type"], SMOL["brief_minimal"]]).install(monkeypatch)
    client = make_client(tmp_path)
    client.complete("designer", "designer.clarify", "q", Brief, stage="brief", inputs={})
    first, second, third = (call["messages"] for call in fake.calls)
    assert len(second) == len(third) == len(first) + 2
    assert third[:len(first)] == first and third[-2] == {"role": "assistant", "content": REPLIES["wrong_type"]}
    assert REPLIES["garbage"] not in json.dumps(third)


def test_context_window_error_fails_at_once_with_a_readable_cause(tmp_path, monkeypatch):
    fake = ScriptedLiteLLM([context_error()]).install(monkeypatch)
    with pytest.raises(ModelCallError) as info:
        make_client(tmp_path).complete("designer", "designer.write_gdd", "q", Brief, stage="gdd", inputs={})
    assert len(fake.calls) == 1  # the same prompt cannot fit on a retry
    assert info.value.cause.startswith("ContextWindowExceededError: This model's maximum context length is 4096")
    assert "litellm." not in info.value.cause


# ---- the PM's decisions are bounded by the verdict and the budgets -----------------------------------
FAILED = Verdict(stage="gdd", passed=False, criteria=[CriterionResult(id="schema", passed=False, reason="no map")])
PASSED = Verdict(stage="rules", passed=True)


def pm(decision, target, guidance=("g",), reason="r"):
    return MetaFeedback(decision=decision, target_stage=target, guidance=list(guidance), reason=reason)


def bound(verdict, proposed, attempts=1, total=1):
    return bound_decision(verdict.stage, verdict, proposed, attempts=attempts, stage_budget=3, total=total,
                          total_budget=8)


def test_advance_on_a_failing_verdict_becomes_a_retry_with_the_failing_criteria():
    effective, why = bound(FAILED, MetaFeedback.model_validate_json(SMOL["pm_advance_on_failure"]))
    assert (effective.decision, effective.target_stage) == ("retry", "gdd")
    assert "schema: no map" in effective.guidance and "advance" in why


@pytest.mark.parametrize("proposed", [pm("rollback", "level"), pm("rollback", "gdd"), pm("retry", "brief")])
def test_rollbacks_forward_or_sideways_become_a_retry_of_the_stage(proposed):
    effective, why = bound(FAILED, proposed)
    assert (effective.decision, effective.target_stage) == ("retry", "gdd") and why


def test_a_rollback_to_an_earlier_stage_and_a_plain_retry_are_kept():
    for proposed in (pm("rollback", "brief"), pm("retry", "gdd")):
        assert bound(FAILED, proposed) == (proposed, None)


def test_an_unrecoverable_failure_stops_whatever_the_pm_proposes():
    verdict = FAILED.model_copy(update={"unrecoverable": "the prompt does not fit the model's context window"})
    for proposed in (pm("retry", "gdd"), pm("rollback", "brief"), MetaFeedback.model_validate_json(SMOL["pm_advance_on_failure"])):
        effective, why = bound(verdict, proposed)
        assert effective.decision == "stop" and effective.guidance == ["schema: no map"]
        assert "context window" in effective.reason and proposed.decision in why
    assert bound(verdict.model_copy(update={"passed": True, "criteria": []}), pm("advance", "rules"))[0].decision == "advance"


@pytest.mark.parametrize("proposed", [pm("retry", "gdd"), pm("rollback", "brief"), pm("advance", "rules")])
@pytest.mark.parametrize("attempts", [1, 3])
def test_the_spent_total_budget_stops_with_the_failing_criteria_as_the_verdict(attempts, proposed):
    effective, why = bound(FAILED, proposed, attempts=attempts, total=8)
    assert effective.decision == "stop" and effective.guidance == ["schema: no map"]
    assert "total 8/8" in effective.reason and why


def test_a_retry_or_rollback_the_pm_asks_for_is_honoured_while_the_total_budget_lasts():
    for proposed in (pm("retry", "gdd"), pm("rollback", "brief")):   # the stage spent 3/3 of this visit
        assert bound(FAILED, proposed, attempts=3, total=5) == (proposed, None)


def test_a_rollback_that_cannot_come_back_within_the_budget_left_is_a_retry_of_the_stage():
    level_failed = FAILED.model_copy(update={"stage": "level"})
    effective, why = bound(level_failed, pm("rollback", "gdd"), total=6)      # gdd, rules, level: 3 > 2 left
    assert (effective.decision, effective.target_stage) == ("retry", "level")
    assert "g" in effective.guidance and "schema: no map" in effective.guidance and "3 stage attempts" in why
    assert bound(level_failed, pm("rollback", "gdd"), total=5) == (pm("rollback", "gdd"), None)   # 3 left: honoured


def test_an_invalid_proposal_with_the_stage_budget_spent_stops():
    effective, why = bound(FAILED, pm("rollback", "level"), attempts=3, total=5)
    assert effective.decision == "stop" and "stage budget spent" in effective.reason and why


def test_the_total_is_a_hard_cap_even_for_a_passing_stage():
    effective, why = bound(PASSED, pm("advance", "level"), total=8)
    assert effective.decision == "stop" and "(8/8)" in effective.reason and why
    level_passed = PASSED.model_copy(update={"stage": "level"})
    assert bound(level_passed, pm("advance", "done"), total=8)[0].decision == "advance"   # nothing left to do


def test_a_passing_verdict_always_advances():
    effective, why = bound(PASSED, pm("stop", "rules"))
    assert (effective.decision, effective.target_stage) == ("advance", "level") and why
    assert bound(PASSED, pm("advance", "level")) == (pm("advance", "level"), None)



def test_a_gate_is_settled_without_the_pm_only_when_nothing_is_left_to_decide_or_pass_on():
    clean = Verdict(stage="gdd", passed=True, criteria=[CriterionResult(id="schema", passed=True)])
    settled = settled_decision("gdd", clean)
    assert settled is not None and (settled.decision, settled.target_stage) == ("advance", "rules")
    assert settled_decision("gdd", FAILED) is None
    advisory = CriterionResult(id="style", passed=False, mandatory=False, reason="terse agent text")
    assert settled_decision("gdd", clean.model_copy(update={"criteria": [*clean.criteria, advisory]})) is None
    assert settled_decision("gdd", clean.model_copy(update={"feedback": ["the map is cramped"]})) is None
    level = settled_decision("level", clean.model_copy(update={"stage": "level", "feedback": ["a remark"]}))
    assert level is not None and level.target_stage == "done"

# ---- the analyst and the retrospective ---------------------------------------------------------------
def test_a_judged_criterion_the_analyst_skipped_fails():
    crit = rubric_store.Criterion(id="competency_clear", text="t", kind="judged", mandatory=True, origin="human",
                                  version=1, history=[])
    other = {"something_else": CriterionResult(id="something_else", passed=True)}
    (result,) = run_criteria("gdd", [crit], CheckContext(), other)
    assert not result.passed and "no judgement" in result.reason
    # A stage with no analyst review at all (a judged criterion written there by hand) cannot pass it:
    # nobody judges it (apply_update refuses to add one there).
    (unreviewed,) = run_criteria("level", [crit], CheckContext())
    assert not unreviewed.passed and "no analyst review" in unreviewed.reason


class ScriptedPM:
    def __init__(self, outcome):
        self.outcome = outcome

    def retrospective(self, records, rubrics, recurring_keys, min_occurrences):
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


def two_failures(rubrics, key="level:terminates:timeout"):
    """Two runs failed the same way (`key`): the retrospective has a recurring signature to ask about."""
    from genesis.pipeline import feedback
    from genesis.pipeline.feedback import FailureSignature, FeedbackRecord

    stage, criterion, detail = key.split(":")
    sig = FailureSignature(stage=stage, criterion=criterion, check="check:x", detail_class=detail)
    feedback.append(rubrics, [FeedbackRecord(run_id=r, time="t", kind="verdict", stage=stage, outcome="failed",
                                             iteration=1, signatures=[sig]) for r in ("r1", "r2")])


def run_evolve(rubrics, outcome):
    ctx = SimpleNamespace(rubrics_root=rubrics, pm=ScriptedPM(outcome))
    return evolve(ctx, {"fast_tracked": True, "options": {}})


def test_with_no_recurring_failure_the_pm_is_not_asked(seed_dirs):
    _, rubrics = seed_dirs
    out = run_evolve(rubrics, ModelCallError("pm", "pm.retrospective", "m", "must not be called", 1))
    assert "nothing to propose (the PM was not asked)" in out["retrospective"] and out["rubric_updates"] == []


def test_a_failed_retrospective_keeps_the_run_and_the_rubrics(seed_dirs):
    _, rubrics = seed_dirs
    two_failures(rubrics)
    before = tree_hash(rubrics)
    out = run_evolve(rubrics, ModelCallError("pm", "pm.retrospective", "openai/smollm2", "Timeout: slow", 2))
    assert out["retrospective"].startswith("retrospective failed") and out["rubric_updates"] == []
    assert tree_hash(rubrics) == before


def test_proposals_outside_the_catalog_are_recorded_and_nothing_is_applied(seed_dirs):
    _, rubrics = seed_dirs
    answer = ProposalSet(proposals=[
        RubricProposal(action="enable_check", stage="level", criterion_id="ends_early", check="terminates",
                       targets=["level:terminates:timeout"], rationale="seen twice"),
        RubricProposal(action="enable_check", stage="level", criterion_id="pathability", check="pathability",
                       targets=["level:(runs):immobile_units"], rationale="seen twice")])
    two_failures(rubrics)
    out = run_evolve(rubrics, answer)
    errors = [u["error"] for u in out["rubric_updates"]]
    assert "already runs check:terminates" in errors[0] and "do not recur in the feedback log" in errors[1]
    assert rubric_store.load("level", root=rubrics).version == 1


# ---- the whole pipeline on the recorded replies ------------------------------------------------------
def test_pipeline_stops_at_once_when_the_gdd_prompt_exceeds_the_context(tmp_path, seed_dirs, monkeypatch):
    # The real run: a thin brief, a GDD prompt larger than the context, and a PM that says "advance"
    # on every failure. No retry can make the prompt fit: the pipeline stops after the first failure
    # and says what to change, instead of spending the iteration budget (minutes on a local model).
    kb, rubrics = seed_dirs
    # the recorded brief with the clause accounting Stage 1 now requires (the small model wrote none)
    query = "defend two fronts with staggered waves"
    brief = {**json.loads(SMOL["brief_minimal"]), "clauses": [
        {"text": query, "start": 0, "end": len(query), "status": "assumed", "why": "read as a whole"}]}
    script = [json.dumps(brief), context_error(), SMOL["pm_advance_on_failure"]]
    ScriptedLiteLLM(script).install(monkeypatch)
    out = start("defend two fronts with staggered waves", out=tmp_path / "o", kb_root=kb, rubrics_root=rubrics,
                model_cli={"model": "openai/smollm2", "api_base": "http://127.0.0.1:9/v1"})
    v = out.validation
    assert out.status == "failed" and v["playable"] is False
    assert v["reason"].startswith("stopped at stage gdd: no retry can pass: the prompt does not fit the model's "
                                  "context window")
    assert "maximum context length" in v["reason"] and "--n_ctx" in v["reason"]
    assert [d["decision"] for d in v["decisions"]] == ["stop"] and "advance" in v["decisions"][0]["override"]
    records = Transcript.load(tmp_path / "o" / "transcript.jsonl").records
    assert len(records) == v["usage"]["total"]["calls"] == len(script)
    assert v["backend"]["designer"] == "openai/smollm2"
