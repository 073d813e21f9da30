"""Interactive Stage 1: answers the designer cannot use are asked once more, then listed as not
honoured; a run written anywhere with --out is resumed by its id."""
from __future__ import annotations

import json

import pytest

from genesis.pipeline.runner import find_run, resume, start
from tests.genesis.pipeline_fixtures import seed_dirs  # noqa: F401 (fixture)


def _answer(questions: list[str], by_topic: dict[str, str]) -> list[str]:
    return [next(a for topic, a in by_topic.items() if topic in q.lower()) for q in questions]


def test_multi_turn_clarification_with_out_elsewhere_resumed_by_id(tmp_path, seed_dirs, monkeypatch):
    kb, rubrics = seed_dirs
    folder = tmp_path / "somewhere" / "else"
    first = start("defend the base", out=folder, interactive=True, kb_root=kb, rubrics_root=rubrics)
    assert first.status == "waiting" and len(first.questions) == 3

    monkeypatch.chdir(tmp_path)  # resumed from another folder, by id only
    assert find_run(first.run_id) == folder.resolve()
    second = resume(first.run_id, answers=_answer(first.questions, {
        "directions": "two please", "how long": "whatever feels right", "fog": "no"}))
    assert second.status == "waiting" and len(second.questions) == 1
    assert "whatever feels right" in second.questions[0] and "minutes" in second.questions[0]

    third = resume(first.run_id, answers=["I really do not mind"])
    assert third.status != "waiting"  # asked twice: the designer goes on with the default
    brief = json.loads((folder / "brief.json").read_text())
    assert brief["concepts"]["fronts"] == 2 and brief["concepts"]["fog"] is False
    assert any("I really do not mind" in u and "could not be used" in u for u in brief["unsupported"])
    assert len(brief["clarifications"]) == 4


def test_resume_of_an_unknown_run_says_where_it_looked(tmp_path):
    with pytest.raises(FileNotFoundError, match="run index"):
        find_run("no-such-run-20260101-000000-abcdef")
