"""Prompts carry each fact once, static text first, and a reused library rule costs a short prompt."""
from __future__ import annotations

import json

import pytest

from genesis.agents.base import PROMPTS, Agent
from genesis.agents.designer import BriefShown
from genesis.agents.developer import Developer
from genesis.llm.prompts import compact_json, render, render_parts
from genesis.llm.schema_text import schema_text
from genesis.level_assembly import assemble_level
from genesis.models import GDD, LevelDraft, RuleDraft
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design
from genesis.prompt_facts import FACTS, recording_described


@pytest.fixture(scope="module")
def gdd() -> GDD:
    query = "defend two fronts with staggered waves"
    return design(write_brief(query, read(query), []))


def test_the_schema_text_keeps_every_key_type_bound_and_default():
    text = schema_text(RuleDraft.model_json_schema())
    assert "id: str (pattern ^[a-z][a-z0-9_]*$)" in text
    assert "keep?: bool = false" in text and "tests?: RuleTest[]" in text
    assert 'policies?: {str: "idle" | "random" | "reference"} | null' in text
    assert "time_limit?: float (>0, <=7200) = 600.0" in text
    assert len(text) < len(json.dumps(RuleDraft.model_json_schema())) / 2


def test_descriptions_the_prompt_already_states_are_left_out_of_its_schema():
    with recording_described() as described:
        FACTS.level_fields
    assert "LevelConfig" in described
    full, short = schema_text(RuleDraft.model_json_schema()), schema_text(RuleDraft.model_json_schema(), described)
    assert "// the task description shown to agents" in full and "// the task description" not in short
    assert "// short test name" in short  # RuleTest is not described by the facts: its descriptions stay


def test_a_template_splits_into_a_static_prefix_and_the_task(gdd):
    inputs = {"gdd": gdd.model_dump(mode="json"), "rules": [], "guidance": ["g"], "retry": None, "criteria": []}
    static, task = render_parts(PROMPTS / "developer_assemble_level.j2", **inputs, facts=FACTS)
    other = gdd.model_copy(update={"title": "another design"}).model_dump(mode="json")
    static2, task2 = render_parts(PROMPTS / "developer_assemble_level.j2", **{**inputs, "gdd": other}, facts=FACTS)
    assert static == static2 and task != task2     # the prefix does not depend on the call
    assert "another design" in task2 and FACTS.level_fields in static
    # the task gives the roster lines of the units the design starts with, and the roles its reference gives
    for t in {u.type for team in gdd.teams for u in team.units}:
        assert f"\n{t} | " in task
    roled = gdd.model_copy(update={"strategy_params": {**gdd.strategy_params, "roles": [
        {"role": "escort", "tag": "vip", "to": [10, 10]}]}}).model_dump(mode="json")
    task3 = render_parts(PROMPTS / "developer_assemble_level.j2", **{**inputs, "gdd": roled}, facts=FACTS)[1]
    assert "- role escort:" in task3 and "- role escort:" not in task and "- role scout:" not in task3
    # every param a rule declares is listed with its meaning, so a level retry can set the ones the design left out
    ruled = {**inputs, "rules": [{"id": "waves", "params": {"size": 3},
                                  "declared": {"size": "int = 3: units a wave", "gap": "float = 30: seconds between"}}]}
    task4 = render_parts(PROMPTS / "developer_assemble_level.j2", **ruled, facts=FACTS)[1]
    assert 'waves (script "rules/waves.lua", params {"size": 3}); declares: size (int = 3: units a wave); ' \
           'gap (float = 30: seconds between)' in task4
    assert render(PROMPTS / "developer_assemble_level.j2", **inputs, facts=FACTS).rstrip("\n") == (static + task).rstrip("\n")


def test_compact_json_drops_nulls_but_keeps_empty_values():
    assert json.loads(compact_json({"a": None, "b": [], "c": {"d": None, "e": 0}, "f": 1}, drop=("f",))) == \
        {"b": [], "c": {"e": 0}}
    assert compact_json({"a": [1, 2], "b": "x, y: z"}) == '{"a":[1,2],"b":"x, y: z"}'   # no space after a separator
    # a null an expectation matches on is said: deaths no team caused
    expect = {"event": "death", "where": {"team": 1, "killer_team": None}, "min": None}
    assert json.loads(compact_json({"expect": [expect]})) == {"expect": [{"event": "death", "where": {
        "team": 1, "killer_team": None}}]}


def test_the_brief_schema_shown_asks_for_no_expectations():
    text = schema_text(BriefShown.model_json_schema())
    assert "leave empty: the GDD adds the expectations" in text and "EventExpectation" not in text


class _Recorder:
    def __init__(self, answer):
        self.answer, self.calls = answer, []

    def complete(self, role, skill, prompt, output_model, **kw):
        self.calls.append({"skill": skill, "prompt": prompt, **kw})
        return output_model.model_validate(self.answer)


def test_a_library_rule_gets_the_short_reuse_prompt_and_a_declined_one_the_full_prompt(gdd):
    comp = gdd.rule_components[0]
    lib = {"id": comp.library_rule, "meta": {"description": "waves", "params": {"team": {"type": "int", "default": 1,
                                                                                         "description": "t"}}}}
    client = _Recorder({"id": comp.id, "reuse": comp.library_rule, "params": {}})
    Developer(client).write_rule(comp, lib, [], gdd=gdd)
    short = client.calls[0]
    assert short["skill"] == "developer.write_rule" and short["shown"].__name__ == "RuleReuseShown"
    assert "write_new" in short["prompt"][0]["content"] and FACTS.rule_api not in json.dumps(short["prompt"])
    client = _Recorder({"id": comp.id, "params": {}, "source": "x", "meta": {"title": "t", "description": "d"},
                        "tests": []})
    with pytest.raises(ValueError):
        Developer(client).write_rule(comp, None, [], gdd=gdd)   # a new rule needs tests: the full prompt asked
    assert FACTS.rule_api in client.calls[0]["prompt"][0]["content"]


def test_write_new_takes_only_the_id():
    assert RuleDraft.model_validate({"id": "r", "write_new": True}).write_new
    with pytest.raises(ValueError, match="write_new takes only id"):
        RuleDraft.model_validate({"id": "r", "write_new": True, "reuse": "x"})


def test_the_gdd_prompt_shows_the_terrain_of_the_briefs_map_only(gdd):
    query = "defend two fronts with staggered waves"
    brief = write_brief(query, read(query), [])
    assert "map: two_front_corridor" in brief.assumptions
    maps = FACTS.maps_for(brief.model_dump(mode="json"))
    assert "- two_front_corridor:" in maps and maps.count("terrain sketch") == 1
    assert all(f"- {name}:" in maps for name in ("crossroads", "open_field", "wilderness"))
    assert FACTS.maps_for({"query": "no map named"}) == FACTS.maps


def test_every_agent_prompt_with_a_static_part_sends_it_first_as_the_system_message():
    sent = []

    class Client:
        def complete(self, role, skill, prompt, output_model, **kw):
            sent.append(prompt)
            raise RuntimeError("stop")

    class Probe(Agent):
        role = "pm"

    with pytest.raises(RuntimeError):
        Probe(Client()).ask("pm.meta_feedback", RuleDraft, stage="gdd", inputs={
            "stage": "gdd", "query": "", "summary": "", "verdict": {"passed": True, "criteria": [], "feedback": [],
                                                                   "judged_by": "x", "unrecoverable": ""},
            "history": [], "signatures": [], "evidence": [], "runs": [], "scope": {"gdd": "the design"},
            "attempts": 1, "budget": 3, "total_iterations": 1, "total_budget": 8})
    system, user = sent[0]
    assert system["role"] == "system" and "project manager" in system["content"]
    assert user["role"] == "user" and "Gating the gdd stage" in user["content"]


def test_a_declined_library_rule_is_asked_again_as_a_new_rule(tmp_path):
    from pathlib import Path
    from types import SimpleNamespace

    from genesis.llm.transcript import CALL_PLAN
    from genesis.models import RuleComponent
    from genesis.pipeline.nodes import Nodes

    # a param the library rule does not declare: the developer is asked whether the rule can do it
    comp = RuleComponent(id="waves", kind="spawn", purpose="Spawns waves.", library_rule="staggered_waves",
                         params={"spiral": True})
    new = {"id": "waves", "params": {}, "source": "function on_start() log('w', {}) end",
           "meta": {"title": "t", "description": "d"},
           "tests": [{"name": "x", "level": {"name": "n", "description": "d", "map": {"name": "open_field"},
                                             "teams": [{"id": 0, "name": "p"}]}, "expect": [{"event": "rule_log"}]}]}
    calls = []

    class Dev:
        def write_rule(self, comp, lib, guidance, example, retry, criteria, gdd, verified=None, kept=None):
            calls.append((lib, list(guidance)))
            return RuleDraft.model_validate({"id": comp.id, "write_new": True} if lib else new)

    entry = SimpleNamespace(id="staggered_waves", data={"meta": {"description": "waves", "params": {}},
                                                        "lua": "-- lib", "tests": {"tests": []}})
    kb = SimpleNamespace(get=lambda kind, rid: entry, search=lambda *a, **k: [])
    ctx = SimpleNamespace(developer=Dev(), kb=kb, say=lambda *a: None, out_dir=tmp_path,
                          rubrics_root=Path(__file__).resolve().parents[2] / "rubrics",
                          client=SimpleNamespace(call_plan=CALL_PLAN))
    gdd = design(write_brief("defend two fronts against three waves", read("defend two fronts against three waves"),
                             [])).model_copy(update={"rule_components": [comp]})
    out = Nodes(ctx).write_rules({"gdd": gdd, "verdicts": {}, "rules": [], "rule_tests": {}})
    assert [lib is not None for lib, _ in calls] == [True, False]
    assert any("cannot do what this component needs" in g for g in calls[1][1])
    assert out["route"] == "test_rules" and out["rules"][0].source == new["source"]


def test_the_latest_pm_guidance_is_shown_as_current_and_earlier_guidance_as_superseded():
    from genesis.models import Guidance
    from genesis.pipeline.nodes import stage_guidance

    state = {"guidance": {"gdd": ["two solar collectors", "fix the target rule", "one solar collector"]},
             "guidance_latest": {"gdd": 1}}
    guidance = stage_guidance(state, "gdd")
    assert guidance == state["guidance"]["gdd"] and guidance.latest == ["one solar collector"]
    text = render(PROMPTS / "_retry.j2", retry=None, guidance=guidance)
    latest, earlier = text.split("Earlier PM guidance")
    assert "one solar collector" in latest and "where earlier guidance says otherwise it wins" in latest
    assert "two solar collectors" in earlier and "fix the target rule" in earlier and "superseded" in earlier
    # a state from before the count was kept, and a plain list: all of it is current, as before
    assert stage_guidance({"guidance": {"gdd": ["a"]}}, "gdd").earlier == 0
    assert "Earlier" not in render(PROMPTS / "_retry.j2", retry=None, guidance=["a"])
    assert Guidance(["a"], earlier=5).earlier == 1


def test_a_model_the_facts_list_whole_is_named_in_the_schema_text_not_repeated():
    with recording_described() as described:
        facts = FACTS.level_fields + FACTS.switches + FACTS.conditions
    text = schema_text(RuleDraft.model_json_schema(), described)
    listed = text.rsplit("not repeated here: ", 1)[1]
    assert "Switches" in listed and "DestroyTarget" in listed and "\nSwitches:" not in text
    # what the schema's line said the facts say: every key with its bounds, default and meaning, under its name
    assert "time_limit: float (>0, <=7200) = 600.0 — seconds" in facts
    assert "DestroyTarget {kind: 'destroy_target'" in facts and "deadline: float | null (>0) = None" in facts
    assert "\nRuleTest:" in text    # a model no fact lists keeps its line


def test_a_rule_prompt_shows_its_component_once_and_only_the_expectations_it_serves(gdd):
    from genesis.agents.developer import design_context

    comp = gdd.rule_components[0]
    design = design_context(gdd, comp)
    assert comp.id not in [c["id"] for c in design["rule_components"]]
    served = [r for r in design["requirements"] if "expect" in r]
    others = [r for r in design["requirements"] if "expect" not in r]
    assert served and {r["id"] for r in served} >= set(comp.requirement_ids)
    assert all(r["text"] for r in others)   # the rest of the level is still named by its requirements' text
    unlisted = comp.model_copy(update={"id": "unlisted", "requirement_ids": []})
    assert all("expect" in r for r in design_context(gdd, unlisted)["requirements"] if r.get("expect") is not None)
    client = _Recorder({"id": comp.id, "params": {}, "source": "x", "meta": {"title": "t", "description": "d"},
                        "tests": []})
    with pytest.raises(ValueError):
        Developer(client).write_rule(comp, None, [], gdd=gdd)
    task = client.calls[0]["prompt"][-1]["content"]
    assert task.count(f'"id":"{comp.id}"') == 1


def test_the_level_and_the_analyst_prompts_leave_out_what_they_do_not_act_on(gdd):
    from genesis.agents.analyst import Analyst

    client = _Recorder({"level": {}})
    with pytest.raises(ValueError):
        Developer(client).assemble_level(gdd, [], [])   # the answer is not a level: only the prompt is read
    task = client.calls[0]["prompt"][-1]["content"]
    assert gdd.agent_description in task and gdd.summary not in task and '"win_paths"' not in task
    client = _Recorder({"results": []})
    brief = write_brief("defend two fronts with staggered waves", read("defend two fronts with staggered waves"), [])
    Analyst(client).judge_gdd(brief, gdd, [{"id": "c", "text": "t", "kind": "judged", "mandatory": True}])
    task = client.calls[0]["prompt"][-1]["content"]
    assert '"expect"' not in task and all(r.text in task for r in gdd.requirements)


def test_the_gdd_prompt_lists_every_library_rule_in_one_line_and_the_closest_in_full():
    from types import SimpleNamespace

    from genesis.kb.library import library_summaries

    def entry(rule_id, description, params):
        return SimpleNamespace(id=rule_id, data={"lua": "", "meta": {"description": description, "params": params}})

    entries = [entry("near", "Spawns waves. Logs rule_log 'wave' per wave.", {"count": {"type": "int", "default": 3},
                                                                             "sides": {"type": "list", "default": [],
                                                                                       "description": "[{x, y}] spawns"}}),
               entry("far", "Gives metal. Logs rule_log 'paid'.", {"metal": {"type": "float", "default": 50}}),
               entry("mid", "Wins when `need` units (the VIP or convoy; default all) arrive. Logs 'arrived'.", {})]
    kb = SimpleNamespace(list=lambda c: entries, search=lambda c, text, k: [SimpleNamespace(id="near")])
    library = library_summaries(kb, "a wave scenario")
    assert [r["relevant"] for r in library] == [True, False, False] and library[1]["gist"] == "Gives metal."
    # a first sentence is never cut inside brackets
    assert library[2]["gist"] == "Wins when `need` units (the VIP or convoy; default all) arrive."
    query = "defend two fronts with staggered waves"
    static, task = render_parts(PROMPTS / "designer_write_gdd.j2", brief=write_brief(query, read(query), []).model_dump(mode="json"),
                                similar=[], guidance=[], library=library, retry=None, criteria=[], facts=FACTS)
    assert "- near: Spawns waves. (params: count, sides)" in static and "- far: Gives metal. (params: metal)" in static
    assert "count: int = 3" in task and "Logs rule_log 'wave' per wave." in task       # the closest one in full
    assert "sides: list = [] ([{x, y}] spawns)" in task                                 # with a list's entries
    assert "metal: float" not in static + task and "'paid'" not in static + task
    assert all(r["relevant"] for r in library_summaries(kb))                          # no brief: all in full


def test_guidance_the_pm_repeats_is_shown_once_as_the_latest():
    from genesis.models import Guidance

    text = render(PROMPTS / "_retry.j2", retry=None, guidance=Guidance(["keep the rule", "add a turret",
                                                                        "keep the rule"], 2))
    assert text.count("keep the rule") == 1 and "add a turret" in text.split("Earlier PM guidance")[1]


def test_the_designer_reads_the_brief_without_default_concepts_or_empty_expectations_and_nothing_is_lost():
    from genesis.agents.designer import brief_shown
    from genesis.models import Brief

    query = "Hold the bridge against three waves from the east; your commander must survive."
    brief = write_brief(query, read(query), [])
    shown = brief_shown(brief)
    assert "ground" not in shown["concepts"] and shown["concepts"]["protect_unit"] == "commander"
    assert all("expect" not in r for r in shown["requirements"])
    assert Brief.model_validate(shown) == brief
    assert len(compact_json(shown)) < len(compact_json(brief.model_dump(mode="json"))) - 500


def test_a_first_level_is_assembled_from_its_gdd_and_the_developer_asked_only_to_correct_one(tmp_path):
    from pathlib import Path
    from types import SimpleNamespace

    from genesis.models import RuleArtifact, SeedVariation
    from genesis.pipeline.nodes import Nodes

    q = "defend two fronts against three waves"
    gdd = design(write_brief(q, read(q), []))
    gdd = gdd.model_copy(update={"variation": gdd.variation.model_copy(update={"varies": [
        *gdd.variation.varies, SeedVariation(what="start spots", how="switches.spawn_jitter=2.5", observe="where")]})})
    arts = [RuleArtifact(id=c.id, source="function on_start() end", params=c.params, tests=[]) for c in gdd.rule_components]
    asked = []

    class Dev:
        def assemble_level(self, gdd, rules, guidance, retry, criteria):
            asked.append(list(guidance))
            return LevelDraft.model_validate({"level": {**assemble_level(gdd, [{"id": r.id, "params": r.params}
                                                                             for r in rules]), "name": "fixed"}}).level

    def level(plan, guidance=None):
        ctx = SimpleNamespace(developer=Dev(), say=lambda *a: None, client=SimpleNamespace(call_plan=plan,
                              backend_name=lambda role: "test"), out_dir=tmp_path,
                              rubrics_root=Path(__file__).resolve().parents[2] / "rubrics")
        nodes = Nodes(ctx)
        state = {"gdd": gdd, "rules": arts, "query": q, "run_id": "r", "verdicts": {},
                 **({"guidance": {"level": guidance}, "guidance_latest": {"level": len(guidance)}} if guidance else {})}
        return nodes.assemble_level(state)["level"]

    first = level(4)
    assert not asked and first["name"] == gdd.title and first["switches"]["spawn_jitter"] == 2.5
    assert [r["id"] for r in first["rules"]] == [c.id for c in gdd.rule_components]
    assert level(4, ["move the wave spawns back"])["name"] == "fixed" and asked == [["move the wave spawns back"]]
    assert level(3)["name"] == "fixed" and len(asked) == 2      # a recording made under plan 3 replays its call


def test_a_one_rule_answer_in_the_several_rules_shape_is_that_rule():
    from pydantic import ValidationError

    draft = {"id": "waves", "reuse": "staggered_waves", "params": {"team": 1}}
    assert RuleDraft.model_validate({"rules": [draft]}) == RuleDraft.model_validate(draft)
    with pytest.raises(ValidationError):     # two rules are no answer for one
        RuleDraft.model_validate({"rules": [draft, {**draft, "id": "other"}]})
