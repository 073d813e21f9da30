"""End-to-end generation with the offline backend: success, fast-track, bad input, interruption."""
import json

import pytest

from genesis.llm.offline_provider import set_offline_brain
from genesis.pipeline import feedback, runner
from genesis.pipeline.runner import QueryError, resume, start
from tests.genesis.pipeline_fixtures import seed_dirs, tree_hash  # noqa: F401 (fixture)

QUERY = "defend two fronts with staggered waves"


def test_two_fronts_playable_with_evidence_then_similar_query_fast_tracks(tmp_path, seed_dirs):
    kb, rubrics = seed_dirs
    out = start(QUERY, out=tmp_path / "a", kb_root=kb, rubrics_root=rubrics)
    v = out.validation
    assert out.status == "playable" and v["playable"] is True, v.get("reason")
    assert v["backend"]["designer"] == "offline"
    for name in ("brief.json", "gdd.json", "gdd.md", "level.json", "validation.json", "replay.gif", "replay.json",
                 "frames/frames.json", "report.html", "transcript.jsonl"):
        assert (out.out_dir / name).exists(), name
    assert list((out.out_dir / "rules").glob("*.lua")) and list((out.out_dir / "frames").glob("*.png"))
    evidence = {e["id"]: e for e in v["requirements"]}
    assert evidence["fronts"]["passed"] and "2 distinct sectors" in evidence["fronts"]["detail"]
    assert evidence["staggered"]["passed"] and "2 time clusters" in evidence["staggered"]["detail"]
    policies = {r["policy"] for r in v["simulation_runs"]}
    assert policies == {"reference", "idle"}
    assert v["evolution"]["committed"]["gdd"] == "a"     # the scenario folder's name: `genesis kb show a`
    calls = [json.loads(l) for l in (out.out_dir / "transcript.jsonl").read_text().splitlines()]
    # the library rules the GDD names are reused and the level assembled from the GDD: no developer call
    assert {c["role"] for c in calls} == {"designer", "analyst"}
    # every stage passed clean: the PM's gates advanced it without a call, and say so
    assert [d["stage"] for d in v["decisions"]] == ["gdd", "rules", "level"]
    assert all("no PM call" in d["reason"] for d in v["decisions"])

    second = start("hold two fronts against staggered waves", out=tmp_path / "b", kb_root=kb, rubrics_root=rubrics)
    assert second.status == "playable", second.validation.get("reason")
    assert second.validation["fast_tracked"] is True
    assert second.validation["kb_match"]["id"] == v["evolution"]["committed"]["gdd"]
    assert "gdd" not in second.validation["stages"]  # stages 2 and 3 were skipped
    # the fast-tracked level simulates like the stored one, so its verified runs come from the cache
    # (a later seed of a game that drew nothing from its seed is a copy of that game, never simulated)
    assert not any(r["cached"] for r in v["simulation_runs"])
    assert all(r["cached"] or r.get("same_as_seed") == 0 for r in second.validation["simulation_runs"])
    assert [r["cached"] for r in second.validation["simulation_runs"] if r["seed"] == 0] == [True, True]
    assert list((second.out_dir / "frames").glob("*.png")) and (second.out_dir / "replay.gif").exists()
    assert (second.out_dir / "replay.json").exists() and (second.out_dir / "frames" / "frames.json").exists()


@pytest.mark.parametrize("query", ["", "   \n\t ", "x" * 20_000])
def test_empty_or_huge_query_is_rejected_before_anything_runs(tmp_path, query):
    with pytest.raises(QueryError):
        start(query, out=tmp_path / "q")
    assert not (tmp_path / "q").exists()


@pytest.mark.parametrize("query,why", [("bake a cake", "game words"), ("守住两条战线，敌人分批进攻", "English"),
                                       ("défendez deux fronts contre des vagues échelonnées", "English")])
def test_non_game_and_non_english_are_refused_and_nothing_changes(tmp_path, seed_dirs, query, why):
    kb, rubrics = seed_dirs
    rubric_files = lambda: {p.name: p.read_text() for p in rubrics.glob("*.yaml")}  # noqa: E731
    before = tree_hash(kb), rubric_files()
    out = start(query, out=tmp_path / "r", kb_root=kb, rubrics_root=rubrics)
    assert out.status == "refused" and why in out.validation["reason"]
    assert (tmp_path / "r" / "validation.json").exists() and (tmp_path / "r" / "report.html").exists()
    assert (tree_hash(kb), rubric_files()) == before
    # only the feedback log learns of it: the run's end, with no verdict to learn from
    assert [(r.kind, r.outcome) for r in feedback.read(rubrics)] == [("outcome", "failed")]


class GarbageBrain:
    def respond(self, skill, inputs, schema):
        return {"this is": "not the schema"}


def test_model_garbage_stops_with_a_clear_verdict(tmp_path, seed_dirs, monkeypatch):
    kb, rubrics = seed_dirs
    before = tree_hash(kb)
    monkeypatch.setattr(runner, "install_embedded_brain", lambda: set_offline_brain(GarbageBrain()))
    out = start(QUERY, out=tmp_path / "g", kb_root=kb, rubrics_root=rubrics)
    assert out.status == "failed" and "designer.clarify" in out.validation["reason"]
    attempts = [json.loads(l) for l in (tmp_path / "g" / "transcript.jsonl").read_text().splitlines()]
    assert len(attempts) >= 2 and not any(a["ok"] for a in attempts)  # retried, every attempt recorded
    assert tree_hash(kb) == before


def test_unreachable_model_stops_cleanly_as_an_infra_error(tmp_path, seed_dirs):
    kb, rubrics = seed_dirs
    out = start(QUERY, out=tmp_path / "u", kb_root=kb, rubrics_root=rubrics,
                model_cli={"model": "openai/none", "api_base": "http://127.0.0.1:9/v1", "timeout": 60, "max_retries": 0,
                           "infra_retries": 0})
    assert out.status == "infra_error" and "designer.clarify" in out.validation["reason"]
    assert out.validation["playable"] is False


def test_interrupt_keeps_kb_untouched_and_resume_finishes(tmp_path, seed_dirs):
    kb, rubrics = seed_dirs
    before = tree_hash(kb)

    def ctrl_c(stage, message):
        if stage == "level":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        start(QUERY, out=tmp_path / "i", kb_root=kb, rubrics_root=rubrics, progress=ctrl_c)
    assert tree_hash(kb) == before
    assert (tmp_path / "i" / "gdd.json").exists()
    run_id = json.loads((tmp_path / "i" / "run.json").read_text())["run_id"]
    done = resume(str(tmp_path / "i"))
    assert done.run_id == run_id and done.status == "playable", done.validation.get("reason")
    assert tree_hash(kb) != before  # the verified scenario was committed once it finished
