"""A level retry shows the developer its previous level, compactly, with the errors and the feedback:
the fields a retry changes stay, what the pipeline wrote and what the prompt already lists do not."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path
from types import SimpleNamespace

from genesis.agents.base import PROMPTS
from genesis.level_assembly import assemble_level
from genesis.llm import render
from genesis.models import CriterionResult, MetaFeedback, RuleArtifact, Verdict
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design
from genesis.pipeline.nodes import Nodes
from genesis.pipeline.previous import SAME_PARAMS, level_as_written
from genesis.prompt_facts import FACTS

QUERY = "a 3v3 team battle"      # its layout rule's params run to tens of thousands of characters


def _setup():
    gdd = design(write_brief(QUERY, read(QUERY), []))
    rules = [RuleArtifact(id=c.id, source="-- lua", params=c.params, tests=[]) for c in gdd.rule_components]
    level = assemble_level(gdd, [{"id": r.id, "params": r.params} for r in rules])
    level["metadata"]["variation"] = gdd.variation.model_dump(mode="json")
    level["metadata"]["generator"] = {"query": QUERY, "run_id": "r", "backend": "offline"}
    level["switches"]["time_limit"] = 480.0
    return gdd, rules, level


class RetryPM:
    def gate(self, *args, **kwargs):
        return MetaFeedback(decision="retry", target_stage="level", guidance=["give the player 2 more tanks"],
                            reason="fix the level")


def test_a_level_retry_shows_the_previous_level_compactly_with_the_errors_and_feedback():
    gdd, rules, level = _setup()
    failed = Verdict(stage="level", passed=False, feedback=["visual reviewer: the blue army stands in the river"],
                     criteria=[CriterionResult(id="reference_wins", passed=False, reason="reference lost seed 2")])
    ctx = SimpleNamespace(pm=RetryPM(), say=lambda *a: None, out_dir=None, rubrics_root=Path(tempfile.mkdtemp()),
                          drop_certificate_games=lambda: None)
    update = Nodes(ctx).gate("level")({"run_id": "r", "query": QUERY, "verdicts": {"level": failed},
                                       "attempts": {"level": 1}, "iterations": 4, "gdd": gdd, "rules": rules,
                                       "level": level})
    assert update["route"] == "assemble_level"
    retry = update["retry"]["level"]
    previous = json.loads(retry.previous)
    raw = json.dumps(level)
    assert len(retry.previous) < len(raw) / 5, (len(retry.previous), len(raw))
    # what the developer wrote and a retry changes is all there
    assert previous["switches"]["time_limit"] == 480.0 and previous["map"] == level["map"]
    assert previous["description"] == level["description"]
    assert [t["id"] for t in previous["teams"]] == [t["id"] for t in level["teams"]]
    assert previous["metadata"] == {"reference": level["metadata"]["reference"]}     # not what the pipeline wrote
    # long params the prompt lists already are referred to, not repeated
    assert {r["params"] for r in previous["rules"] if isinstance(r["params"], str)} == {SAME_PARAMS}
    prompt = render(PROMPTS / "developer_assemble_level.j2", gdd=gdd.model_dump(mode="json"),
                    rules=[{"id": r.id, "params": r.params} for r in rules], guidance=["give the player 2 more tanks"],
                    retry=retry.model_dump(), criteria=[], facts=FACTS)
    for text in ("THIS IS A RETRY", '"time_limit":480.0', "reference_wins: reference lost seed 2",
                 "the blue army stands in the river", "give the player 2 more tanks"):
        assert text in prompt, text


def test_the_previous_level_keeps_what_differs_from_the_defaults_and_from_the_listed_params():
    _, rules, level = _setup()
    team = level["teams"][1]
    team["units"] = [{"type": "light_tank", "x": 10.5, "y": 12.5, "count": 1, "spread": 2.0},
                     {"type": "light_bot", "x": 14.5, "y": 12.5, "count": 4, "spread": 3.0, "tag": "guard"}]
    team["resources"] = {"metal": 0.0, "energy": 0.0}
    changed = {**rules[0].params, "extra": 1}
    level["rules"][0]["params"] = changed
    shown = level_as_written(level, {r.id: r.params for r in rules})
    assert shown["teams"][1]["units"] == [{"type": "light_tank", "x": 10.5, "y": 12.5},
                                          {"type": "light_bot", "x": 14.5, "y": 12.5, "count": 4, "spread": 3.0,
                                           "tag": "guard"}]
    assert "resources" not in shown["teams"][1]
    assert shown["rules"][0]["params"] == changed            # the developer changed them: shown in full
    assert "metadata" in level and "variation" in level["metadata"]     # the state's level is left as it is


def test_a_rejected_design_comes_back_without_its_default_nulls_but_with_the_values_its_writer_chose():
    import json

    from genesis.pipeline.previous import without_defaults_null

    gdd = {"title": "t", "map": {"name": "open_field", "file": None, "generate": None},
           "rule_components": [{"id": "w", "library_rule": None, "params": {"target": None, "times": []}}],
           "requirements": [{"id": "r", "expect": [{"event": "death", "where": {"killer_team": None}, "min": 1,
                                                    "max": None, "after": None}]}]}
    shown = without_defaults_null(gdd)
    assert shown["map"] == {"name": "open_field"} and "library_rule" not in shown["rule_components"][0]
    assert shown["rule_components"][0]["params"] == {"target": None, "times": []}      # a param's null stays
    assert shown["requirements"][0]["expect"] == [{"event": "death", "where": {"killer_team": None}, "min": 1}]
    assert len(json.dumps(shown)) < len(json.dumps(gdd))
