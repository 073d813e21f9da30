"""The self-evolution experiment: independent validator, query stream, E2E regeneration, orchestration."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from genesis import workspace
from genesis.experiment import e2e
from genesis.experiment.configs import CONFIGS, Task
from genesis.experiment.queries import QueryFileError, load_stream, take
from genesis.experiment.report import write_outputs
from genesis.experiment.runner import run_experiment
from genesis.experiment.validator import validate
from genesis.workspace import copy_seed

MFD = workspace.seed_kb() / "levels" / "MFD" / "level.json"
WAVES_LUA = workspace.seed_kb() / "rules" / "staggered_waves" / "rule.lua"


def _tree_hash(root: Path) -> str:
    """Sources only: the chroma index under kb/chroma is derived and may be rebuilt by anyone."""
    digest = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if p.is_file() and rel.parts[0] != "chroma" and not any(part.startswith(".") for part in rel.parts):
            digest.update(str(rel).encode() + hashlib.sha256(p.read_bytes()).digest())
    return digest.hexdigest()


def _mfd_variant(tmp_path: Path, edit) -> Path:
    level = json.loads(MFD.read_text())
    (tmp_path / "rules").mkdir(exist_ok=True)
    (tmp_path / "rules" / "staggered_waves.lua").write_text(WAVES_LUA.read_text())
    level["rules"][0]["script"] = "rules/staggered_waves.lua"
    edit(level)
    (tmp_path / "level.json").write_text(json.dumps(level))
    return tmp_path


def _criteria(verdict) -> dict[str, bool]:
    return {c.id: c.passed for c in verdict.criteria}


# ---- the independent validator -------------------------------------------------------------------
def test_validator_judges_a_reference_game_playable():
    v = validate(MFD.parent)
    assert v.playable, v.failed()
    assert _criteria(v) == dict.fromkeys(["launches", "completes", "decides", "winnable", "losable"], True)
    assert {(r.policy, r.seed) for r in v.runs} == {("reference", 101), ("reference", 202), ("reference", 303),
                                                     ("idle", 101), ("idle", 202)}


def test_validator_rejects_a_game_that_nothing_can_end(tmp_path):
    def no_end(level):
        level["rules"], level["conditions"] = [], []
        level["switches"]["time_limit"] = 40

    v = validate(_mfd_variant(tmp_path, no_end))
    assert not v.playable
    c = _criteria(v)
    assert c["completes"] and not c["decides"] and not c["winnable"]


def test_validator_rejects_a_game_the_idle_player_wins(tmp_path):
    def no_enemy(level):
        level["rules"] = []
        level["conditions"][1]["time"] = 30
        level["switches"]["time_limit"] = 40

    v = validate(_mfd_variant(tmp_path, no_enemy))
    c = _criteria(v)
    assert not v.playable and c["winnable"] and not c["losable"]


def test_validator_rejects_a_rule_that_errors(tmp_path):
    def broken(level):
        (tmp_path / "rules" / "boom.lua").write_text('function on_start() every(1, function() error("boom") end) end\n')
        level["rules"].append({"id": "boom", "script": "rules/boom.lua", "params": {}})

    v = validate(_mfd_variant(tmp_path, broken))
    assert not v.playable and not _criteria(v)["completes"]
    assert any("boom" in (r.error or "") for r in v.runs)


def test_validator_without_a_level(tmp_path):
    v = validate(tmp_path)
    assert not v.playable and v.criteria[0].id == "launches" and "no level.json" in v.criteria[0].detail


# ---- the query stream -------------------------------------------------------------------------------
def test_default_stream_has_five_themed_batches_of_five():
    stream = load_stream()
    assert len(stream) == 5 and all(len(b.queries) == 5 for b in stream)
    assert len({q for b in stream for q in b.queries}) == 25
    assert [len(b.queries) for b in take(stream, 2, 3)] == [3, 3]


def test_query_file_errors(tmp_path):
    bad = tmp_path / "q.txt"
    bad.write_text("a query before any header\n")
    with pytest.raises(QueryFileError, match="before the first"):
        load_stream(bad)
    bad.write_text("## batch: one\nonly one query\n")
    with pytest.raises(QueryFileError, match="fewer than 2"):
        take(load_stream(bad), 1, 2)
    with pytest.raises(QueryFileError, match="has 1"):
        take(load_stream(bad), 2, 1)


# ---- E2E regeneration -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def seed_kb(tmp_path_factory):

    kb, _ = copy_seed(tmp_path_factory.mktemp("seed"))
    return kb


def test_e2e_verify_regenerates_with_the_failures_as_guidance(tmp_path, monkeypatch, seed_kb):
    verdicts = iter([["outcome_discrimination: idle scores 1.00", "an idle player does not lose: make the enemy stronger"], []])
    monkeypatch.setattr(e2e, "verify", lambda out_dir, gdd: next(verdicts))
    o = e2e.generate("defend two fronts with staggered waves", tmp_path / "s", seed_kb, verify_budget=3)
    assert o.status == "verified" and len(o.attempts) == 2
    first, second = o.attempts
    assert first.verified is False and second.verified is True
    assert "make the enemy stronger" in " ".join(second.guidance)
    assert first.level_sha256 != second.level_sha256          # the guidance changed the design
    assert o.usage["calls"] >= 8                                # both passes went through the model client
    assert (tmp_path / "s" / "transcript.jsonl").exists() and (tmp_path / "s" / "e2e.json").exists()


def test_plain_e2e_is_one_pass_without_verification(tmp_path, seed_kb):
    o = e2e.generate("free-for-all between four teams with fixed forces", tmp_path / "s", seed_kb)
    assert o.status == "done" and len(o.attempts) == 1 and o.attempts[0].verified is None
    for name in ("brief.json", "gdd.json", "level.json"):
        assert (tmp_path / "s" / name).exists()


# ---- orchestration ----------------------------------------------------------------------------------
def _recording_task(calls: list):
    """A stand-in generation (workers=0: same process) that records what each task was handed, and
    'commits' to its KB like Agent w/ SE does, so the test sees whether copies are shared."""
    def task_fn(task: Task) -> dict:
        kb = Path(task.kb_root)
        seen = sorted(p.name for p in (kb / "gdds").glob("*.json")) if (kb / "gdds").exists() else []
        calls.append((task.config, task.batch, task.index, task.kb_root, task.rubrics_root, seen))
        (kb / "gdds").mkdir(exist_ok=True)
        (kb / "gdds" / f"{task.config}-b{task.batch}-q{task.index}.json").write_text("{}")
        return {"config": task.config, "batch": task.batch, "index": task.index, "query": task.query,
                "out_dir": task.out_dir, "status": "playable", "claimed_playable": True,
                "generation_time_s": 1.0 + task.batch, "elapsed_s": 1.0 + task.batch, "calls": 3,
                "prompt_tokens": 10, "completion_tokens": 5, "fast_tracked": task.batch > 0, "iterations": 1,
                "rubric_versions": None, "error": None, "playable": task.index == 0, "validator": None,
                "task_wall_s": 0.0, "generation_cpu_s": 2.0, "validation_cpu_s": 1.0}
    return task_fn


def test_experiment_gives_every_configuration_its_own_fresh_copy(tmp_path):
    before = (_tree_hash(workspace.seed_kb()), _tree_hash(workspace.seed_rubrics()))
    calls: list = []
    stream = take(load_stream(), 2, 2)
    record = run_experiment(tmp_path / "exp", stream, workers=0, task_fn=_recording_task(calls))
    assert (_tree_hash(workspace.seed_kb()), _tree_hash(workspace.seed_rubrics())) == before
    roots = {c: {(k, r) for cc, _, _, k, r, _ in calls if cc == c} for c in CONFIGS}
    assert all(len(v) == 1 for v in roots.values())                     # one copy per configuration...
    assert len({next(iter(v)) for v in roots.values()}) == 4            # ...and no copy shared
    first = {c: next(seen for cc, b, i, _, _, seen in calls if cc == c) for c in CONFIGS}
    assert all(seen == [] for seen in first.values())                   # each starts from the seed KB (no GDDs)
    se = [(b, seen) for c, b, _, _, _, seen in calls if c == "agent_se"]
    assert [b for b, _ in se] == [0, 0, 1, 1]                           # SE batches in order
    assert len(se[2][1]) == 2                                           # batch 2 sees batch 1's commits
    assert set(record["configs"]) == set(CONFIGS)
    for c in record["configs"].values():
        assert [b["batch"] for b in c["batches"]] == [1, 2]
        for b in c["batches"]:
            assert b["n"] == 2 and b["playability"] == 0.5 and b["calls"] == 6
            assert {"mean_generation_time_s", "mean_elapsed_s", "tokens", "fast_track_rate", "rubric_versions",
                    "kb_designs"} <= set(b)
    assert record["configs"]["agent_se"]["batches"][0]["rubric_versions"] == {"gdd": 1, "rules": 1, "level": 1}
    assert record["configs"]["e2e"]["batches"][0]["rubric_versions"] is None
    assert len(record["results"]) == 16 and record["cpu_s"] == 48.0
    json_path, html_path = write_outputs(record, tmp_path / "exp")
    assert json.loads(json_path.read_text())["configs"]["agent_se"]["overall"]["n"] == 4
    html = html_path.read_text()
    assert html.count("<svg") == 6 and "Agent w/o SE" in html and "E2E w/ verify" in html
    table = (tmp_path / "exp" / "experiment.md").read_text()
    assert "| B2 raids & production | Agent w/ SE | 1/2 |" in table and "| all | E2E | 2/4 |" in table


@pytest.mark.slow
def test_tiny_real_experiment(tmp_path):
    """2 batches x 1 query, real pipeline and E2E, real validator (several minutes on 2 shared cores)."""
    before = (_tree_hash(workspace.seed_kb()), _tree_hash(workspace.seed_rubrics()))
    out = tmp_path / "exp"
    record = run_experiment(out, take(load_stream(), 2, 1), workers=2)
    write_outputs(record, out)
    assert (_tree_hash(workspace.seed_kb()), _tree_hash(workspace.seed_rubrics())) == before
    saved = json.loads((out / "experiment.json").read_text())
    assert set(saved["configs"]) == set(CONFIGS) and len(saved["results"]) == 8
    for r in saved["results"]:
        assert r["validator"]["criteria"][0]["id"] == "launches"     # every one judged by the validator
        assert r["calls"] > 0 and r["elapsed_s"] > 0
    se, no_se = saved["configs"]["agent_se"], saved["configs"]["agent_no_se"]
    assert no_se["batches"][-1]["kb_designs"] == 0                    # frozen: nothing committed
    committed = sum(r["claimed_playable"] for r in saved["results"] if r["config"] == "agent_se")
    assert se["batches"][-1]["kb_designs"] == committed
    assert (out / "experiment.html").read_text().count("<svg") == 6


def test_cli_rejects_a_bad_query_file(tmp_path):
    from typer.testing import CliRunner

    from genesis.cli import app

    bad = tmp_path / "q.txt"
    bad.write_text("no header\n")
    res = CliRunner().invoke(app, ["experiment", "self-evolution", "--queries", str(bad), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and not (tmp_path / "o").exists()
