"""The feedback log holds every verdict of every run and how each run ended (infrastructure
failures tagged apart), as typed lines that parallel writers never interleave."""
import multiprocessing as mp
from contextlib import nullcontext

import pytest

from genesis.checks import registry
from genesis.llm.client import ModelUnavailableError
from genesis.models import CriterionResult, Verdict
from genesis.pipeline import feedback, runner
from genesis.pipeline.feedback import FeedbackRecord, detail_class, outcome_record, verdict_record
from genesis.pipeline.runner import start
from tests.genesis.pipeline_fixtures import seed_dirs  # noqa: F401 (fixture)

QUERY = "defend two fronts with staggered waves"


def _verdict(passed, *failed):
    crits = [CriterionResult(id=cid, passed=False, kind=f"check:{cid}", reason=why) for cid, why in failed]
    return Verdict(stage="level", passed=passed, criteria=crits)


def test_a_failed_verdict_carries_its_signatures_and_run_hints():
    state = {"run_id": "r1", "query": "q", "runs": [
        {"policy": "reference", "ok": True, "mobility": {"0": 0.2}, "ended_by": "condition"}]}
    rec = verdict_record(state, "level", _verdict(False, ("reference_wins", "reference policy won 2/3 seeds; seed 2")),
                         iteration=4)
    keys = [s.key for s in rec.signatures]
    assert rec.outcome == "failed" and rec.iteration == 4 and not rec.infra
    assert keys == ["level:reference_wins:reference_lost", "level:(runs):immobile_units"]
    assert rec.hints == ["immobile_units"]
    ok = verdict_record(state, "level", _verdict(True), iteration=5)
    assert ok.outcome == "passed" and ok.signatures == [] and ok.hints == []
    assert detail_class("unit 3 at (4, 5) can reach only 9 of 900 tiles") == "trapped_units"
    assert detail_class("something new") == "failed"


def _append_many(root, worker):
    for i in range(40):
        feedback.append(root, [outcome_record(f"w{worker}-{i}", "q" * 2000, "playable")])


def test_parallel_writers_never_interleave_lines(tmp_path):
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_append_many, args=(tmp_path, w)) for w in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    lines = (tmp_path / feedback.FEEDBACK_LOG).read_text().splitlines()
    assert len(lines) == 80
    assert {FeedbackRecord.model_validate_json(line).run_id for line in lines} == {f"w{w}-{i}" for w in range(2)
                                                                                     for i in range(40)}


class _Raising:
    def __init__(self, exc):
        self.exc = exc

    def invoke(self, payload, config):
        raise self.exc


@pytest.mark.parametrize("exc, outcome, infra", [
    (KeyboardInterrupt(), "interrupted", False),
    (ModelUnavailableError("pm", "pm.meta_feedback", "openai/x", "429", 3), "infra_error", True),
    (RuntimeError("boom"), "error", False)])
def test_interrupted_infra_and_crashed_runs_reach_the_log(tmp_path, seed_dirs, monkeypatch, exc, outcome, infra):
    kb, rubrics = seed_dirs
    monkeypatch.setattr(runner, "build", lambda ctx, saver: _Raising(exc))
    with pytest.raises((KeyboardInterrupt, runner.PipelineError)) if outcome != "infra_error" else nullcontext():
        start(QUERY, out=tmp_path / "o", kb_root=kb, rubrics_root=rubrics, register=False)
    (rec,) = feedback.read(rubrics)
    assert (rec.kind, rec.outcome, rec.infra, rec.query) == ("outcome", outcome, infra, QUERY)


def test_a_stopped_run_logs_every_failed_verdict_and_its_end(tmp_path, seed_dirs, monkeypatch):
    kb, rubrics = seed_dirs
    monkeypatch.setitem(registry.CHECKS["gdd"], "win_loss_defined", lambda ctx: (False, "no loss path at all"))
    out = start(QUERY, out=tmp_path / "o", kb_root=kb, rubrics_root=rubrics, register=False)
    assert out.status == "failed"
    log = feedback.read(rubrics)
    verdicts = [r for r in log if r.kind == "verdict"]
    assert verdicts and all(r.outcome == "failed" and r.stage == "gdd" for r in verdicts)
    assert all("gdd:win_loss_defined:failed" in [s.key for s in r.signatures] for r in verdicts)
    assert all(r.artifact and feedback.load_artifacts(rubrics, r.artifact)["gdd"] for r in verdicts)
    assert [r.iteration for r in verdicts] == list(range(1, len(verdicts) + 1))
    assert log[-1].kind == "outcome" and log[-1].outcome == "stopped"


def test_damaged_lines_of_the_log_are_skipped_not_fatal(tmp_path):
    """Bytes that are not UTF-8 (a hand edit, another tool, a torn write) must not fail the run that
    reads the log at its very end: the good lines are read, the damaged ones skipped."""
    good = [outcome_record(f"r{i}", "q", "playable") for i in range(3)]
    feedback.append(tmp_path, good[:1])
    with feedback.log_path(tmp_path).open("ab") as log:
        log.write(b'{"run_id": "\xff\xfe broken"}\n\xc3\x28\n{"torn": \n')
    feedback.append(tmp_path, good[1:])
    assert [r.run_id for r in feedback.read(tmp_path)] == ["r0", "r1", "r2"]


@pytest.mark.slow
def test_a_run_with_a_damaged_log_still_ends_in_its_verdict(tmp_path, seed_dirs):
    kb, rubrics = seed_dirs
    with feedback.log_path(rubrics).open("ab") as log:
        log.write(b"\xff\xfe not utf-8\n")
    outcome = start(QUERY, out=tmp_path / "s", kb_root=kb, rubrics_root=rubrics)
    assert outcome.status == "playable", outcome.validation.get("reason")
