"""The retrospective learns from a tiny stream of recorded failures: a signature recurring in
enough runs yields a catalog proposal, the replay gate adopts it only when it fails every targeted
failure and passes every accepted KB scenario, and a model-backed PM goes through the same gate."""
import json
from types import SimpleNamespace

import pytest
from llm_fakes import ScriptedLiteLLM

from engine.schema.mapdata import MapData
from genesis import rubric_store
from genesis.agents.pm import PM
from genesis.kb.store import KnowledgeBase
from genesis.llm import LLMClient, Transcript, load_config
from genesis.models import Brief
from genesis.offline import gdd_writer
from genesis.offline.brain import SKILLS
from genesis.offline.pm_brain import retrospective as offline_retrospective
from genesis.pipeline import feedback
from genesis.pipeline.evolution import evolve
from genesis.pipeline.feedback import FailureSignature, FeedbackRecord
from genesis.pipeline.proposals import recurring
from tests.genesis.pipeline_fixtures import seed_dirs  # noqa: F401 (fixture)

TRAPPED = "level:(runs):immobile_units"
VISUAL = "level:visual:failed"


def pocket_map(path, walled=True):
    rows = ["".join("#" if walled and max(abs(x - 24), abs(y - 24)) == 6 else "." for x in range(48)) for y in range(48)]
    spawns = [{"name": n, "x": x, "y": y} for n, x, y in (("base", 24.5, 24.5), ("east", 44.5, 24.5),
                                                           ("west", 3.5, 24.5), ("north", 24.5, 3.5),
                                                           ("south", 24.5, 44.5))]
    path.write_text(MapData(name="pocket", width=48, height=48, rows=rows, spawns=spawns).model_dump_json())
    return path


def _design(tmp_path, monkeypatch, walled):
    path = pocket_map(tmp_path / ("walled.json" if walled else "open.json"), walled)
    monkeypatch.setattr(gdd_writer, "_map_for", lambda c: {"file": str(path)})
    brief = Brief.model_validate(SKILLS["designer.clarify"]({"query": "defend two fronts with staggered waves",
                                                            "clarifications": []}))
    return brief, gdd_writer.design(brief, [])


def _record(run_id, keys, artifact=None, infra=False):
    sigs = [FailureSignature(stage=k.split(":")[0], criterion=k.split(":")[1], check="check:x",
                             detail_class=k.split(":")[2]) for k in keys]
    return FeedbackRecord(run_id=run_id, time="t", kind="verdict", stage="level", outcome="failed", iteration=1,
                          signatures=sigs, artifact=artifact, infra=infra)


def _history(tmp_path, monkeypatch, rubrics, kb, *, accepted_walled=False):
    """Two runs whose level failed with trapped units (and a visual problem), each recording the
    trapped design; the KB holds one accepted design (walled or not)."""
    brief, trapped = _design(tmp_path, monkeypatch, walled=True)
    digest = feedback.save_artifacts(rubrics, {"brief": brief, "gdd": trapped}, "gdd", None)
    feedback.append(rubrics, [_record("r1", [TRAPPED, VISUAL], digest), _record("r2", [TRAPPED, VISUAL], digest)])
    _, accepted = _design(tmp_path, monkeypatch, walled=accepted_walled)
    record = {"id": "accepted", "title": "a", "summary": "", "text": "defend", "concepts": ["defense"],
              "rule_ids": [], "level_id": None, "provenance": {"run_id": "r0"}, "gdd": accepted.model_dump(mode="json")}
    (kb / "gdds").mkdir(exist_ok=True)
    (kb / "gdds" / "accepted.json").write_text(json.dumps(record))


class OfflinePM:
    def retrospective(self, records, rubrics, recurring_keys, min_occurrences):
        return offline_retrospective({"recurring": recurring_keys, "failures": [],
                                      "rubrics": {s: [c.model_dump() for c in r.criteria] for s, r in rubrics.items()}})


def _ctx(kb, rubrics, pm):
    return SimpleNamespace(rubrics_root=rubrics, kb=KnowledgeBase(kb), pm=pm, analyst=None)


def test_recurrence_counts_runs_not_lines_and_ignores_infrastructure_failures():
    log = [_record("r1", [TRAPPED]), _record("r1", [TRAPPED]), _record("r2", [TRAPPED], infra=True)]
    assert recurring(log) == {}
    log.append(_record("r3", [TRAPPED]))
    assert recurring(log) == {TRAPPED: 2}
    assert recurring(log, 3) == {}
    proposals = offline_retrospective({"recurring": {TRAPPED: 2}, "rubrics": {}}).proposals
    assert [(p.action, p.stage, p.check) for p in proposals] == [("enable_check", "gdd", "start_pathability")]
    # when that check runs already, the catalog tightens it instead
    running = {"gdd": [{"id": "start_pathability", "kind": "check:start_pathability", "params": {}}],
               "level": [{"id": "pathability", "kind": "check:pathability", "params": {}}]}
    (p,) = offline_retrospective({"recurring": {TRAPPED: 2}, "rubrics": running}).proposals
    assert (p.action, p.check, p.param, p.value) == ("tighten_param", "start_pathability", "min_region_share", 0.6)


def test_a_replay_validated_update_keeps_its_rationale_and_evidence(tmp_path, seed_dirs, monkeypatch):
    kb, rubrics = seed_dirs
    _history(tmp_path, monkeypatch, rubrics, kb)
    out = evolve(_ctx(kb, rubrics, OfflinePM()), {"fast_tracked": True, "options": {}})
    (update,) = [u for u in out["rubric_updates"] if "version" in u]
    assert (update["stage"], update["criterion"], update["version"]) == ("gdd", "start_pathability", 2)
    added = rubric_store.load("gdd", root=rubrics).criterion("start_pathability")
    assert added.kind == "check:start_pathability" and added.origin == "evolved"
    assert "2 runs failed with level:(runs):immobile_units" in added.history[-1].rationale
    assert any("fails recorded failure r1" in e for e in added.history[-1].evidence)
    assert "passes 1 accepted KB scenario(s)" in rubric_store.history("gdd", root=rubrics)[-1].evidence
    assert "+  kind: check:start_pathability" in rubric_store.diff("gdd", 1, 2, root=rubrics)
    assert rubric_store.rollback("gdd", 1, root=rubrics).criterion("start_pathability") is None


def test_a_change_that_would_reject_an_accepted_scenario_is_refused(tmp_path, seed_dirs, monkeypatch):
    kb, rubrics = seed_dirs
    _history(tmp_path, monkeypatch, rubrics, kb, accepted_walled=True)
    out = evolve(_ctx(kb, rubrics, OfflinePM()), {"fast_tracked": True, "options": {}})
    (rejected,) = out["rubric_updates"]
    assert rejected["error"].startswith("rejected by replay: it fails accepted KB scenarios")
    assert rejected["conflicts"] and rejected["conflicts"][0].startswith("gdds/accepted")
    assert rubric_store.load("gdd", root=rubrics).version == 1


def test_apply_update_refuses_criteria_that_can_never_fail(seed_dirs):
    _, rubrics = seed_dirs
    bad = [rubric_store.Change(op="add", id="unit_variety", text="t", kind="check:unit_variety", rationale="r"),
           rubric_store.Change(op="add", id="fun", text="Is it fun?", kind="judged", rationale="r"),
           rubric_store.Change(op="modify", id="placement", params={"tolerance": 2}, rationale="r")]
    messages = []
    for change in bad:
        with pytest.raises(rubric_store.RubricError) as err:
            rubric_store.apply_update("level", [change], root=rubrics)
        messages.append(str(err.value))
    assert "not registered" in messages[0] and "never be judged" in messages[1] and "no parameter" in messages[2]
    assert rubric_store.load("level", root=rubrics).version == 1
    judged = rubric_store.apply_update("gdd", [bad[1]], root=rubrics)     # Stage 2 has an analyst: allowed
    assert judged.criterion("fun").kind == "judged"


def test_a_model_pm_with_two_recurring_failures_yields_exactly_one_validated_update(tmp_path, seed_dirs, monkeypatch):
    kb, rubrics = seed_dirs
    _history(tmp_path, monkeypatch, rubrics, kb)
    answer = {"summary": "units trapped twice; visual problems twice", "proposals": [
        {"action": "enable_check", "stage": "gdd", "criterion_id": "spawn_exits", "check": "start_pathability",
         "text": "Every mobile start unit can leave its spawn.", "targets": [TRAPPED],
         "rationale": "2 runs: units trapped at spawn"},
        {"action": "add_judged", "stage": "level", "criterion_id": "looks_right", "text": "The frames look right.",
         "targets": [VISUAL], "rationale": "2 runs: visual problems"},
        {"action": "enable_check", "stage": "level", "criterion_id": "unit_variety", "check": "unit_variety",
         "targets": [VISUAL], "rationale": "2 runs"}]}
    script = ScriptedLiteLLM([json.dumps(answer)]).install(monkeypatch)
    config = load_config({"model": "openai/test", "api_base": "http://127.0.0.1:9/v1", "max_retries": 1},
                         env={}, cwd=tmp_path)
    pm = PM(LLMClient(config, Transcript(tmp_path / "transcript.jsonl")))
    out = evolve(_ctx(kb, rubrics, pm), {"fast_tracked": True, "options": {}})
    adopted = [u for u in out["rubric_updates"] if "version" in u]
    errors = [u["error"] for u in out["rubric_updates"] if "error" in u]
    assert [(u["stage"], u["criterion"], u["version"]) for u in adopted] == [("gdd", "spawn_exits", 2)]
    assert "never be judged" in errors[0] and "no check named 'unit_variety'" in errors[1]
    assert [r.version for r in rubric_store.load_all(rubrics).values()] == [2, 1, 1]
    prompt = json.dumps(script.calls[0]["messages"])
    assert TRAPPED in prompt and "judged_criteria_allowed" in prompt and "tighten_param" in prompt


def test_the_recurrence_threshold_comes_from_the_run_then_genesis_yaml(tmp_path, monkeypatch):
    from genesis.pipeline.evolution import min_recurrence

    monkeypatch.setenv("GENESIS_WORKSPACE", str(tmp_path))
    assert min_recurrence({}) == 2
    (tmp_path / "genesis.yaml").write_text("min_recurrence: 3\n")
    assert min_recurrence({}) == 3 and min_recurrence({"min_recurrence": 4}) == 4
    assert load_config({}, env={}, cwd=tmp_path).roles["pm"].model   # a key genesis.yaml accepts


def test_a_judged_criterion_no_accepted_scenario_can_be_judged_on_is_not_adopted(tmp_path, seed_dirs, monkeypatch):
    from genesis.pipeline.replay import replay

    kb, rubrics = seed_dirs
    _history(tmp_path, monkeypatch, rubrics, kb)
    criterion = rubric_store.Criterion(id="rush_loses_by_design", text="a rush cannot win", kind="judged")

    def judge(crit, brief, gdd):
        if brief is None:     # stored KB designs keep no brief: the analyst has nothing to judge them by
            raise LookupError("no brief recorded for the analyst")
        return False          # it fails the recorded failures it targets
    report = replay("gdd", criterion, [TRAPPED], feedback.read(rubrics), rubrics, KnowledgeBase(kb), judge=judge)
    assert report.caught and not report.passed and not report.conflicts
    assert not report.accepted and "could be replayed" in report.why_rejected()
    # with a judge that can read the stored designs, the same criterion is proven and adopted
    report = replay("gdd", criterion, [TRAPPED], feedback.read(rubrics), rubrics, KnowledgeBase(kb),
                    judge=lambda crit, brief, gdd: brief is None)
    assert report.accepted and report.passed
