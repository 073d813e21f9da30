"""The experiment's learning table says what the rubric configurations learned from certificate failures, or
plainly that they learned nothing."""
from __future__ import annotations

from genesis.experiment.report import learning_table


def _record(changes: list[dict], fails: tuple[int, int]) -> dict:
    batches = [{"n": 4, "playable": 4, "certified": 2 + b, "certified_rate": (2 + b) / 4, "failed_gdd": 0,
                "failed_level": f, "certificate_failures": f, "level_validations": 5, "fast_track_rate": 0.25 * b,
                "mean_iterations": 4.0, "rubric_versions": {"gdd": 1 + b, "level": 1}} for b, f in enumerate(fails)]
    return {"stream": [{"theme": "defence"}, {"theme": "raids"}],
            "configs": {"agent_se": {"label": "Agent w/ SE", "batches": batches, "rubric_changes": changes}}}


def test_a_rubric_update_from_certificate_failures_is_reported_with_the_certified_rate_per_batch():
    change = {"stage": "gdd", "version": 2, "changes": ["+variation_declared"], "rationale": "recurring "
              "blind_replay_wins failures", "evidence": ["3 runs"]}
    text = learning_table(_record([change], (3, 1)))
    assert "| 2/4 |" in text and "| 3/4 |" in text
    assert "4 certificate failures (3, 1 per batch) led to 1 rubric update(s) (gdd v2)" in text
    assert "certified 50% → 75%" in text


def test_certificate_failures_without_an_update_say_it_learned_nothing():
    text = learning_table(_record([], (2, 2)))
    assert "it learned nothing from certificate failures" in text


def test_no_certificate_failure_says_there_was_nothing_to_learn():
    assert "nothing to learn from" in learning_table(_record([], (0, 0)))
