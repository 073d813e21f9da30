"""The scenario's records describe the design that shipped: after a GDD is replaced, gdd.md, validation.json
and the report name the last design; where the level departs from its GDD, the records say so."""
from __future__ import annotations

import json

import pytest

from genesis.llm.offline_provider import set_offline_brain
from genesis.offline.brain import OfflineBrain
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design
from genesis.pipeline import runner
from genesis.pipeline.docs import gdd_markdown
from genesis.pipeline.finalize import shipped_design
from genesis.pipeline.runner import start
from genesis.pipeline.shipped import design_assumptions, level_changes
from genesis.level_assembly import assemble_level
from tests.genesis.pipeline_fixtures import seed_dirs  # noqa: F401 (fixture)

QUERY = "defend two fronts against three waves"
FIRST_ASSUMPTION = "the battle is on open_field and lasts 5:00"
SECOND_ASSUMPTION = "the battle is on two_front_corridor and lasts 5:30, so the third wave arrives"


class ReplacingDesigner(OfflineBrain):
    """The offline backend, but its first GDD sits on another map with another time limit and fails the GDD
    gate (it maps no requirement); the retry writes the offline design, restating the assumptions."""

    def __init__(self):
        self.gdds = 0

    def respond(self, skill, inputs, schema):
        out = super().respond(skill, inputs, schema)
        if skill == "designer.clarify":
            out["assumptions"] = [FIRST_ASSUMPTION, *out["assumptions"]]
        if skill == "designer.write_gdd":
            self.gdds += 1
            if self.gdds == 1:
                return {**out, "map": {"name": "open_field"}, "time_limit": 300.0, "requirements": [],
                        "assumptions": [FIRST_ASSUMPTION]}
            return {**out, "assumptions": [SECOND_ASSUMPTION]}
        return out


@pytest.mark.slow
def test_a_replaced_gdd_leaves_records_of_the_second_design(tmp_path, seed_dirs, monkeypatch):
    kb, rubrics = seed_dirs
    monkeypatch.setenv("GENESIS_CERTIFICATE", "off")
    monkeypatch.setattr(runner, "install_embedded_brain", lambda: set_offline_brain(ReplacingDesigner()))
    out = start(QUERY, out=tmp_path / "run", kb_root=kb, rubrics_root=rubrics)
    v = out.validation
    assert [d["decision"] for d in v["decisions"] if d["stage"] == "gdd"][:1] == ["retry"], v["decisions"]
    assert out.status == "playable", v["reason"]
    # validation.json: the assumptions and the design of the second GDD, as its level plays it
    assert v["assumptions"] == [SECOND_ASSUMPTION]
    assert "two_front_corridor" in v["design"]["map"] and v["design"]["time_limit"] == 330
    gdd = json.loads((out.out_dir / "gdd.json").read_text())
    assert gdd["map"]["name"] == "two_front_corridor" and gdd["time_limit"] == 330
    md = (out.out_dir / "gdd.md").read_text()
    assert "two_front_corridor" in md and "time limit: 330 s" in md and SECOND_ASSUMPTION in md
    report = (out.out_dir / "report.html").read_text()
    assert "built-in map `two_front_corridor`" in report and "330 s (5:30)" in report
    assert SECOND_ASSUMPTION in report
    # the brief keeps its stage-1 reading; no record of the shipped scenario repeats the first design
    for text in (json.dumps(v["assumptions"]), json.dumps(v["design"]), md, report):
        assert "open_field" not in text and FIRST_ASSUMPTION not in text


def _design():
    return design(write_brief(QUERY, read(QUERY), []))


def test_where_the_level_departs_from_its_gdd_the_records_say_so():
    gdd = _design()
    level = assemble_level(gdd, [{"id": c.id, "params": c.params} for c in gdd.rule_components])
    assert level_changes(gdd, level) == []
    level["switches"]["time_limit"] = 420.0
    level["teams"][1]["units"].append({"type": "light_turret", "x": 80.5, "y": 8.5, "count": 3})
    changes = level_changes(gdd, level)
    assert changes[0] == "time limit: 330 s in the GDD, 420 s in the level"
    assert changes[1] == "team 1 start units: the level adds 3x light_turret at (80.5, 8.5)"
    md = gdd_markdown(gdd, changes)
    assert "## As shipped" in md and "420 s in the level" in md
    record = shipped_design({"gdd": gdd, "level": level})
    assert record["time_limit"] == 420.0 and record["level_changes"] == changes
    assert "3x light_turret" in record["forces"][f"team 1 {gdd.teams[1].name}"]
    level["teams"][1]["units"].pop(0)
    assert level_changes(gdd, level)[1].startswith("team 1 start units: the level adds 3x light_turret at "
                                                   "(80.5, 8.5); the level drops 1x heavy_turret at")


def test_a_team_colour_the_design_names_is_the_levels():
    gdd = _design()
    gdd.teams[0].color = "#ff3030"
    level = assemble_level(gdd, [{"id": c.id, "params": c.params} for c in gdd.rule_components])
    assert level["teams"][0]["color"] == "#ff3030" and "color" not in level["teams"][1]


def test_the_assumptions_on_record_are_the_gdds_own_else_the_briefs():
    brief = write_brief(QUERY, read(QUERY), [])
    gdd = design(brief)
    assert design_assumptions(brief, gdd) == brief.assumptions        # the offline design restates none
    restated = gdd.model_copy(update={"assumptions": ["lasts 5:30"]})
    assert design_assumptions(brief, restated) == ["lasts 5:30"]
    assert design_assumptions(None, None) == []
