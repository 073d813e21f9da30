"""Experiments and benchmarks start from the pristine seed: whatever a developer's runs wrote into
a checkout's kb/ and rubrics/, or into the live workspace, never reaches a configuration."""
import json
import shutil

import pytest

from genesis import workspace
from genesis.experiment.queries import Batch
from genesis.experiment.runner import run_experiment
from genesis.experiment.seed import pristine_seed
from genesis.pipeline.runner import start

QUERY = "defend two fronts with staggered waves"


def _dirty_seed(tmp_path, monkeypatch):
    """A copy of the shipped seed that runs have written into, installed as the package's seed."""
    seed = tmp_path / "seed"
    shutil.copytree(workspace.seed_kb(), seed / "kb", ignore=workspace.KB_COPY_IGNORE)
    shutil.copytree(workspace.seed_rubrics(), seed / "rubrics")
    monkeypatch.setattr(workspace, "SEED", seed)
    return seed


def test_a_pristine_copy_drops_what_runs_wrote_into_the_seed(tmp_path, monkeypatch):
    shipped = {p.relative_to(workspace.seed_kb()) for p in workspace.seed_kb().rglob("*") if p.is_file()
               and "chroma" not in p.parts and not p.name.endswith(".lock")}
    seed = _dirty_seed(tmp_path, monkeypatch)
    kb = seed / "kb"
    (kb / "gdds").mkdir(exist_ok=True)
    (kb / "gdds" / "defend-two-fronts.json").write_text(json.dumps({"id": "defend-two-fronts", "provenance": {
        "run_id": "defend-two-fronts-20260101", "query": QUERY}}))
    shutil.copytree(kb / "rules" / "air_raid", kb / "rules" / "defend-two-fronts-waves")
    meta = kb / "rules" / "defend-two-fronts-waves" / "meta.yaml"
    meta.write_text(meta.read_text() + "provenance: {run_id: defend-two-fronts-20260101}\n")
    (seed / "rubrics" / "feedback_log.jsonl").write_text("{}\n")
    (seed / "rubrics" / "history").mkdir(exist_ok=True)
    (seed / "rubrics" / "feedback_artifacts").mkdir()

    kb_copy, rubrics_copy = pristine_seed(tmp_path / "copy")
    copied = {p.relative_to(kb_copy) for p in kb_copy.rglob("*") if p.is_file()}
    assert copied == shipped
    assert sorted(p.name for p in rubrics_copy.iterdir()) == ["gdd.yaml", "level.yaml", "rules.yaml"]


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_dirty_live_kb_does_not_change_batch_1(tmp_path, monkeypatch):
    """A generation committed to the live workspace (which, in a checkout, may be the seed folder
    itself) would fast-track batch 1's first query; from the pristine seed it is generated afresh."""
    seed = _dirty_seed(tmp_path, monkeypatch)
    live = start(QUERY, out=tmp_path / "live", kb_root=seed / "kb", rubrics_root=seed / "rubrics", register=False)
    assert live.status == "playable" and list((seed / "kb" / "gdds").glob("*.json"))
    monkeypatch.setenv("GENESIS_WORKSPACE", str(tmp_path / "ws"))
    workspace.ensure()   # the live workspace is seeded from the dirty seed: it holds the design too
    assert list((tmp_path / "ws" / "kb" / "gdds").glob("*.json"))

    record = run_experiment(tmp_path / "exp", [Batch("b", [QUERY])], configs=["agent_se", "agent_no_se"], workers=0)
    rows = {r["config"]: r for r in record["results"]}
    assert not rows["agent_se"]["fast_tracked"] and not rows["agent_no_se"]["fast_tracked"]
    assert rows["agent_se"]["status"] == rows["agent_no_se"]["status"] == "playable"
    batch1 = {c: record["configs"][c]["batches"][0] for c in rows}
    assert batch1["agent_se"]["kb_designs"] == 1 and batch1["agent_no_se"]["kb_designs"] == 0
    assert batch1["agent_se"]["rubric_versions"] == batch1["agent_no_se"]["rubric_versions"] == \
        {"gdd": 1, "rules": 1, "level": 1}
    levels = [json.loads((tmp_path / "exp" / c / "b1-q1" / "level.json").read_text()) for c in rows]
    live_level = json.loads((tmp_path / "live" / "level.json").read_text())
    for level in [*levels, live_level]:
        level["metadata"].pop("generator")
    assert levels[0] == levels[1] == live_level   # the same level as a clean first generation
