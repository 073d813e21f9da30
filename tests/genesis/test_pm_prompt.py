"""The PM's gate prompt carries what a concrete decision needs: every reviewer problem, the
requirement evidence with its observed numbers, the runs' outcomes, and what each stage can change."""
from __future__ import annotations

from types import SimpleNamespace

from genesis.agents.base import PROMPTS
from genesis.agents.pm import STAGE_SCOPE, evidence_digest
from genesis.llm import render
from genesis.models import CriterionResult, Verdict
from genesis.prompt_facts import FACTS

PROBLEMS = [f"visual reviewer (VLM x): problem {i}: the army leaves the zone at 1:{10 + i}" for i in range(7)]
EVIDENCE = [{"id": "hold", "text": "hold the zone", "testable": True, "on": "reference", "status": "failed",
             "passed": False, "detail": "seed 0: rule_log events with name=zone_held: count >= 1: observed 0 "
                                        "(zone_captured at 31.0 s, zone_lost at 44.5 s)",
             "per_run": [{"seed": 0, "passed": False}, {"seed": 1, "passed": False}]}]
RUNS = [{"policy": "reference", "seed": 0, "winners": [1], "ended_by": "rule", "duration": 212.4, "error": None,
         "units_lost": {"0": 7, "1": 12}}]


def _prompt() -> str:
    verdict = Verdict(stage="level", passed=False, feedback=PROBLEMS,
                      criteria=[CriterionResult(id="requirement_evidence", passed=False, reason="hold: failed")])
    return render(PROMPTS / "pm_meta_feedback.j2", stage="level", verdict=verdict.model_dump(mode="json"), history=[],
                  signatures=[], evidence=evidence_digest(EVIDENCE), runs=RUNS, scope=STAGE_SCOPE, attempts=1,
                  budget=3, total_iterations=5, total_budget=8, facts=FACTS, query="hold the hill for 2 minutes",
                  summary="the player holds a hill zone")


def test_the_pm_sees_every_visual_problem_and_the_evidence_numbers():
    prompt = _prompt()
    assert all(p in prompt for p in PROBLEMS)
    assert "observed 0" in prompt and "zone_lost at 44.5 s" in prompt
    assert 'reference/0: winners [1], rule at 212.4 s, units lost per team {"0": 7, "1": 12}' in prompt


def test_the_pm_is_told_what_each_stage_can_change():
    prompt = _prompt()
    assert '"hold the hill for 2 minutes"' in prompt and "the player holds a hill zone" in prompt
    for stage, scope in STAGE_SCOPE.items():
        assert f"- {stage}: {scope}" in prompt
    assert "army composition" in STAGE_SCOPE["gdd"] and "unit placement" in STAGE_SCOPE["level"]


def test_evidence_digest_caps_each_detail():
    long = [{**EVIDENCE[0], "detail": "x" * 5000}]
    assert len(evidence_digest(long)[0]["detail"]) < 1000


def test_the_visual_reviewer_judges_the_levels_own_description(tmp_path):
    from genesis.models import VisualVerdict
    from genesis.offline.brief_writer import write_brief
    from genesis.offline.concepts import read
    from genesis.offline.gdd_writer import design
    from genesis.pipeline.nodes import Nodes

    seen = {}

    def visual_review(query, description, frames, context=None):
        seen["description"] = description
        return VisualVerdict(playable=True, aligned=True, observations=[])

    config = SimpleNamespace(for_role=lambda role: SimpleNamespace(model="openai/vlm"))
    ctx = SimpleNamespace(client=SimpleNamespace(config=config, backend_name=lambda r: "openai/vlm"), analyst=SimpleNamespace(visual_review=visual_review),
                          out_dir=tmp_path)
    gdd = design(write_brief("defend two fronts", read("defend two fronts"), []))
    state = {"query": "q", "level": {"description": "the level after a retry changed the design"}}
    Nodes(ctx)._visual(state, gdd, None)
    assert seen["description"] == "the level after a retry changed the design" != gdd.agent_description


def test_the_visual_reviewer_is_told_the_map_geometry_and_that_outcomes_are_not_its_call():
    from genesis.visual import ReviewFrame, review_context

    replay = SimpleNamespace(width=96, height=64, end=SimpleNamespace(reason="r", ended_by="rule", duration=40.0,
                                                                       winners=[1], losers=[0]), teams=[])
    frames = [ReviewFrame("f.png", 0.0, "", ["regular"], (0, 30, 640, 457))]
    context = review_context(frames, replay)
    prompt = render(PROMPTS / "analyst_visual_review.j2", query="q", description="d", n_frames=1, **context)
    assert "[0, 30, 640, 457]" in prompt and "96x64 tiles" in prompt
    assert "no reason for playable=false" in prompt


def test_on_a_passed_verdict_only_unverified_requirements_keep_their_numbers():
    verified = {**EVIDENCE[0], "id": "waves", "status": "verified", "detail": "observed 3 waves"}
    digest = evidence_digest([verified, EVIDENCE[0]], passed=True)
    assert "detail" not in digest[0] and digest[0]["seeds"] == {"0": False, "1": False}
    assert "observed 0" in digest[1]["detail"]
    assert "detail" in evidence_digest([verified])[0]   # a failed verdict: every number, for the decision


def test_a_long_account_of_how_a_run_ended_never_crowds_out_the_failing_expectation():
    ended = "the run ended at 300 s: time_limit; at the end: " + "; ".join(
        f"team {t} has 12 units, its army around ({t}0.5, 41.0)" for t in range(12))
    entry = {"id": "r", "status": "failed", "detail": "", "per_run": [
        {"seed": 2, "passed": False, "ended": ended, "failures": ["event death (team=1) >= 3: saw 0"]}]}
    detail = evidence_digest([entry])[0]["detail"]
    assert detail.startswith("seed 2: event death (team=1) >= 3: saw 0 (the run ended at 300 s")


def test_the_pm_is_told_the_designs_summary_once_a_design_stands():
    from types import SimpleNamespace

    from genesis.pipeline.nodes import _summary_at
    state = {"brief": SimpleNamespace(summary="knights against priests"),
             "gdd": SimpleNamespace(summary="light tanks against unarmed priest vehicles")}
    assert _summary_at(state, "gdd") == "knights against priests"
    assert _summary_at(state, "level") == _summary_at(state, "rules") == "light tanks against unarmed priest vehicles"
    assert _summary_at({"brief": state["brief"]}, "level") == "knights against priests"
