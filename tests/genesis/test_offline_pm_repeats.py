"""The offline PM stops a path that a retry and a rollback did not change, instead of spending the budget."""
from __future__ import annotations

from genesis.offline import pm_brain
from genesis.offline.pm_brain import meta_feedback

FAIL = {"id": "variation_declared", "passed": False, "mandatory": True, "kind": "check:variation_declared",
        "reason": "variation.varies is empty"}


def _gate(history, attempts=1, total=5):
    return meta_feedback({"stage": "gdd", "verdict": {"passed": False, "criteria": [FAIL]}, "attempts": attempts,
                          "budget": 3, "total_iterations": total, "total_budget": 11, "history": history})


def _correction(decision):
    return {"stage": "gdd", "decision": decision, "guidance": ["variation_declared: variation.varies is empty"]}


def test_the_first_failure_is_retried_and_the_second_rolled_back():
    assert _gate([]).decision == "retry"
    assert _gate([_correction("retry")], attempts=2).decision == "rollback"


def test_the_same_failure_after_a_retry_and_a_rollback_stops_the_run():
    out = _gate([_correction("retry"), _correction("rollback")], attempts=1, total=5)
    assert out.decision == "stop" and "no change addresses them" in out.reason


def test_a_different_failure_after_them_is_still_corrected():
    other = {"stage": "gdd", "decision": "retry", "guidance": ["schema: no map"]}
    assert _gate([other, _correction("rollback")]).decision != "stop"


def test_a_design_whose_preview_the_reference_loses_is_retried_weaker_never_sent_back_to_the_brief():
    weak = {"id": "balance_preview", "passed": False, "mandatory": True, "kind": "check:balance_preview",
            "reason": "reference policy won 1/3 seeds of the designed level: the enemy is too strong for the "
                      "reference play: make the enemy weaker"}
    history = [{"stage": "gdd", "decision": "retry", "guidance": ["balance_preview: " + weak["reason"]]}]
    out = meta_feedback({"stage": "gdd", "verdict": {"passed": False, "criteria": [weak]}, "attempts": 2, "budget": 3,
                         "total_iterations": 3, "total_budget": 11, "history": history})
    assert (out.decision, out.target_stage) == ("retry", "gdd") and any("weaker" in g for g in out.guidance)
    spent = meta_feedback({"stage": "gdd", "verdict": {"passed": False, "criteria": [weak]}, "attempts": 3,
                           "budget": 3, "total_iterations": 4, "total_budget": 11, "history": history * 2})
    assert spent.decision == "stop"


REF_LOST = {"id": "reference_wins", "passed": False, "mandatory": True, "kind": "check:reference_wins",
            "reason": "reference policy won 2/3 seeds; seed 1: protect_objective_loss: objective metal_extractor "
                      "destroyed (1 lost, 3 left)"}


def _level(history, criteria=(REF_LOST,), evidence=()):
    return meta_feedback({"stage": "level", "verdict": {"passed": False, "criteria": list(criteria)}, "attempts": 1,
                          "budget": 3, "total_iterations": 6, "total_budget": 11, "history": history,
                          "evidence": list(evidence)})


def test_a_level_failing_word_for_word_as_before_its_correction_stops_and_names_what_is_not_honoured():
    first = _level([])
    assert first.decision == "rollback" and first.target_stage == "gdd"
    again = _level([{"stage": "level", "decision": first.decision, "guidance": first.guidance, "reason": first.reason}],
                   evidence=[{"id": "survive_win", "status": "failed"}, {"id": "interval", "status": "verified"}])
    assert again.decision == "stop" and "the requirements survive_win)" in again.reason
    assert "word for word" in again.reason and "not honoured: reference_wins" in again.reason
    assert any("1 lost, 3 left" in g for g in again.guidance)


def test_a_level_whose_games_changed_but_failed_alike_is_corrected_again():
    # a weaker enemy may fail on the same seed in the same words: its games differ, so the level changed
    games = [{"policy": "reference", "seed": s, "trace_hash": f"h{s}"} for s in range(3)]
    first = meta_feedback({"stage": "level", "verdict": {"passed": False, "criteria": [REF_LOST]}, "attempts": 1,
                           "budget": 3, "total_iterations": 6, "total_budget": 11, "history": [], "runs": games})
    history = [{"stage": "level", "decision": first.decision, "guidance": first.guidance, "reason": first.reason}]

    def again(runs):
        return meta_feedback({"stage": "level", "verdict": {"passed": False, "criteria": [REF_LOST]}, "attempts": 2,
                              "budget": 3, "total_iterations": 8, "total_budget": 11, "history": history, "runs": runs})

    assert again([{**g, "trace_hash": "k" + g["trace_hash"]} for g in games]).decision == "rollback"
    assert again(games).decision == "stop"


def test_a_level_whose_correction_changed_its_failures_is_corrected_again():
    first = _level([])
    moved = {**REF_LOST, "reason": REF_LOST["reason"].replace("2/3", "1/3")}
    assert _level([{"stage": "level", "decision": first.decision, "guidance": first.guidance, "reason": first.reason}],
                  criteria=(moved,)).decision == "rollback"


CERT = {"id": "certificate", "passed": False, "mandatory": True, "kind": "check:certificate",
        "reason": "not certified: no_cheap_win: rush won every seed, e.g. seed 0: won in 86 s, lost 0 units"}


def test_a_certificate_failing_word_for_word_after_its_correction_stops_too():
    first = _level([], criteria=(CERT,))
    assert first.decision == "rollback"
    again = _level([{"stage": "level", **first.model_dump(mode="json")}], criteria=(CERT,))
    assert again.decision == "stop" and "not honoured: certificate" in again.reason


def test_requirements_the_design_cannot_evidence_are_reported_by_the_brief_not_retried():
    from genesis.offline import brief_writer, gdd_writer
    from genesis.offline.concepts import read

    query = ("Produce eight assault bots by the six-minute mark while the enemy attacks from the east at 2:00 and "
             "then from the west at 3:30.")
    brief = brief_writer.write_brief(query, read(query))
    gdd = gdd_writer.design(brief)
    bare = [r.id for r in gdd.requirements if r.testable and not r.expect]
    assert bare     # a production race builds its timed attacks from one side only
    verdict = {"passed": False, "criteria": [{"id": "requirements_covered", "passed": False, "kind": "computed",
                                              "reason": f"testable requirements without evidence expectations: {bare}"}]}
    mf = pm_brain.meta_feedback({"stage": "gdd", "verdict": verdict, "attempts": 1, "history": []})
    assert (mf.decision, mf.target_stage) == ("rollback", "brief")
    assert pm_brain.unbuilt_requirements(mf.guidance) == set(bare)
    again = brief_writer.without_requirements(brief, pm_brain.unbuilt_requirements(mf.guidance))
    assert not {r.id for r in again.requirements} & set(bare)
    attacks = [c for c in again.clauses if "west" in c.text or "east" in c.text]
    assert attacks and all(c.status in ("partial", "not_honoured") and "not built" in c.why for c in attacks)
    assert all(any(c.why in u for u in again.unsupported) for c in attacks)
    # the design of the reported brief evidences every requirement it keeps
    assert not [r.id for r in gdd_writer.design(again).requirements if r.testable and not r.expect]
