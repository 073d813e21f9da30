"""The contract between what the models are told and what the checks enforce.

Every automated check of every rubric names the producing role's prompt and what that prompt must
state for a capable model to pass it on the first try; every verified KB artifact validates against
the schema the model is given for it.
"""
import json
from pathlib import Path

import pytest
import yaml

from engine.maps import list_maps
from engine.catalog import load_catalog
from engine.schema.expect import EVENT_FIELDS
from genesis import rubric_store
from genesis.agents.base import PROMPTS
from genesis.agents.developer import design_context
from genesis.checks.registry import CHECKS
from genesis.kb.library import WORKED_EXAMPLE_RULE
from genesis.llm import render
from genesis.models import GDD, LevelDraft, RuleDraft, RuleTest
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design
from genesis.prompt_facts import FACTS, RULE_API

REPO = Path(__file__).resolve().parents[2]
MAPS = list_maps()
UNITS = sorted(load_catalog().units)

# (stage, check) -> (skill whose prompt produces what the check looks at, what that prompt must state)
CONTRACT = {
    ("gdd", "schema"): ("designer.write_gdd", ["Built-in maps", *MAPS, *UNITS, 'role "player"', "every `at` is a spawn"]),
    ("gdd", "requirements_covered"): ("designer.write_gdd", ["Every brief requirement id appears in `requirements`",
                                                              "testable=true needs at least one `expect`",
                                                              "a requirement the brief marks testable stays testable",
                                                              "that entry of the GDD's `variation.probes`"]),
    ("gdd", "win_loss_defined"): ("designer.write_gdd", ["`win_paths`", "`loss_paths`", "`conditions`", '"termination"',
                                                          '"objective"', "calls win()/lose()"]),
    ("gdd", "rules_known_api"): ("designer.write_gdd", ["`library_rule`", "purpose of at least a sentence",
                                                         "What rules cannot do", "rules share no state"]),
    ("rules", "lua_compiles"): ("developer.write_rule", ["Lua 5.4"]),
    ("rules", "lua_api_only"): ("developer.write_rule", ["os, io, load, require, debug, package, string.dump",
                                                          *[f"{name}(" for name in RULE_API]]),
    ("rules", "params_declared"): ("developer.write_rule", ["declare every", "param() the script reads",
                                                             "every param the component passes"]),
    ("rules", "rule_tests_pass"): ("developer.write_rule", ["did not end with a rule error", "WITHOUT `rules`",
                                                             "go in `switches`", "smoke level",
                                                             "exactly one of `event`, `result`, `state`",
                                                             *[f"{kind}: {', '.join(f)}" for kind, f in EVENT_FIELDS.items()]]),
    ("level", "schema"): ("developer.assemble_level", ["schema_version", "unknown keys are errors", "rules/<id>.lua",
                                                     "per rule given"]),
    ("level", "placement"): ("designer.write_gdd", ["every coordinate must lie inside the map", "no two units or structures",
                                                    "terrain sketch", "Footprints:", "placed in a ring"]),
    ("level", "pathability"): ("designer.write_gdd", ["path away from its", "spawn"]),
    ("gdd", "start_pathability"): ("designer.write_gdd", ["path away from its", "spawn"]),
    ("gdd", "balance_preview"): ("designer.write_gdd", ["WIN every validation seed", "strategy_params"]),
    ("level", "objectives_reachable"): ("designer.write_gdd", ["enemy objective", "ground the player's units can reach"]),
    ("level", "degenerate_difficulty"): ("designer.write_gdd", ["without losing a single unit in under 10% of the time limit"]),
    ("level", "waves_reach_player"): ("designer.write_gdd", ["Every enemy wave a rule spawns must reach and fight"]),
    ("level", "rules_fire"): ("designer.write_gdd", ["every rule must fire in the validation runs"]),
    ("level", "requirement_evidence_present"): ("designer.write_gdd", ["UNVERIFIED"]),
    ("level", "terminates"): ("designer.write_gdd", ["must end through its own conditions or rules"]),
    ("level", "outcome_discrimination"): ("designer.write_gdd", ["do better than the idle player"]),
    ("level", "reference_wins"): ("designer.write_gdd", ["WIN every validation seed", "strategy_params"]),
    ("level", "determinism"): ("developer.write_rule", ["seeded per run and rule", "math.random"]),
    ("level", "requirement_evidence"): ("designer.write_gdd", ["UNVERIFIED", "`where` paths must be fields",
                                                                *[f"{kind}: {', '.join(f)}" for kind, f in EVENT_FIELDS.items()]]),
    ("level", "visual"): ("designer.write_gdd", ["visual reviewer"]),
    ("gdd", "variation_declared"): ("designer.write_gdd", ["`variation`", "`fixed_by`", "switches.spawn_jitter",
                                                           "`random()` / `random_int(a, b)`", "`choose_target`"]),
    ("level", "certificate"): ("designer.write_gdd", ["Validity certificate", "must win every seed",
                                                      "must win none", "rush", "turtle", "`variation.probes`",
                                                      "blind replay", "at least 2 of the later seeds",
                                                      "wins at most half the seeds"]),
    ("level", "difficulty"): ("designer.write_gdd", ["difficulty band", "easy", "medium", "hard"]),
    ("brief", "brief_clauses"): ("designer.clarify", ["Account for every clause of the request in `clauses`",
                                                      "cover every word, in order", "`requirement_ids`",
                                                      "not_honoured", "partial", "in `built`",
                                                      "clause goes in `unsupported` too"]),
}
OUTPUT_MODELS = {"designer.write_gdd": GDD, "developer.write_rule": RuleDraft, "developer.assemble_level": LevelDraft}
FORBIDDEN = ["see README", "see the README", "DESIGN.md"]


def _criteria(*stages):
    return [{"stage": s, "id": c.id, "text": c.text} for s in stages for c in rubric_store.load(s, root=REPO / "rubrics").criteria]


@pytest.fixture(scope="module")
def prompts():
    """Each writer's prompt as the pipeline renders it, for a request that needs new rules."""
    query = "escort a convoy of 4 trucks across the map while ambushers strike from the forest"
    brief = write_brief(query, read(query), [])
    gdd = design(write_brief("defend two fronts against three waves", read("defend two fronts against three waves"), []))
    meta = yaml.safe_load((REPO / "kb/rules" / WORKED_EXAMPLE_RULE / "meta.yaml").read_text())
    test = yaml.safe_load((REPO / "kb/rules" / WORKED_EXAMPLE_RULE / "test.yaml").read_text())["tests"][0]
    example = {"id": WORKED_EXAMPLE_RULE, "source": (REPO / "kb/rules" / WORKED_EXAMPLE_RULE / "rule.lua").read_text(),
               "meta": meta, "test": test}
    library = [{"id": WORKED_EXAMPLE_RULE, "description": meta["description"], "gist": meta["description"],
                "params": meta["params"], "relevant": True}]
    inputs = {
        "designer.clarify": {"query": query, "clarifications": [], "guidance": [], "retry": None,
                             "archetypes": ["defense"], "competencies": ["collaboration"]},
        "designer.write_gdd": {"brief": brief.model_dump(mode="json"), "similar": [], "guidance": [], "retry": None,
                               "library": library, "criteria": _criteria("gdd", "level")},
        "developer.write_rule": {"component": gdd.rule_components[0].model_dump(mode="json"), "library": None,
                                 "design": design_context(gdd, gdd.rule_components[0]),
                                 "guidance": [], "example": example, "retry": None, "criteria": _criteria("rules"),
                                 "verified": None, "kept": []},
        "developer.write_rules": {"components": [c.model_dump(mode="json") for c in gdd.rule_components[:2]],
                                  "design": design_context(gdd, *gdd.rule_components[:2]), "guidance": [],
                                  "example": example, "retry": None, "criteria": _criteria("rules"), "kept": []},
        "developer.assemble_level": {"gdd": gdd.model_dump(mode="json"), "rules": [], "guidance": [], "retry": None,
                                     "criteria": _criteria("level")},
    }
    return {skill: render(PROMPTS / f"{skill.replace('.', '_')}.j2", **ctx, facts=FACTS) for skill, ctx in inputs.items()}


def _rubric_checks():
    return {(stage, c.kind.split(":", 1)[1]) for stage, r in rubric_store.load_all(REPO / "rubrics").items()
            for c in r.criteria if c.kind.startswith("check:")}


def test_every_check_of_every_rubric_and_of_the_registry_has_a_stated_contract():
    registry = {(stage, name) for stage, checks in CHECKS.items() for name in checks}
    missing = sorted((registry | _rubric_checks()) - set(CONTRACT))
    assert not missing, f"checks whose producing prompt is not tied to what they require: {missing}"


# a check on rules is stated in the one-rule prompt and in the prompt that asks several rules in one call
SAME_CONTRACT = {"developer.write_rule": ("developer.write_rules",)}


@pytest.mark.parametrize("stage, check", sorted(CONTRACT))
def test_the_producing_prompt_states_what_the_check_requires(prompts, stage, check):
    skill, phrases = CONTRACT[(stage, check)]
    for writer in (skill, *SAME_CONTRACT.get(skill, ())):
        prompt = " ".join(prompts[writer].split())  # a phrase may wrap across template lines
        absent = [p for p in phrases if p not in prompt]
        assert not absent, f"{writer} prompt does not state what check {stage}/{check} requires: {absent}"


def test_every_rubric_criterion_reaches_its_writer(prompts):
    writers = {"gdd": ["designer.write_gdd"], "rules": ["developer.write_rule", "developer.write_rules"],
               "level": ["designer.write_gdd", "developer.assemble_level"]}
    for stage, r in rubric_store.load_all(REPO / "rubrics").items():
        for c in r.criteria:
            for skill in writers[stage]:
                assert c.text in prompts[skill], (stage, c.id, skill)


def test_no_prompt_points_at_a_document_the_model_cannot_see(prompts):
    for skill, prompt in prompts.items():
        assert not [f for f in FORBIDDEN if f in prompt], skill
    for template in PROMPTS.glob("*.j2"):
        assert not [f for f in FORBIDDEN if f in template.read_text()], template.name


def test_the_worked_example_is_a_complete_verified_rule_with_its_test(prompts):
    prompt = prompts["developer.write_rule"]
    assert (REPO / "kb/rules" / WORKED_EXAMPLE_RULE / "rule.lua").read_text().strip() in prompt
    assert "worked example" in prompt


def test_the_worked_example_s_test_level_has_no_rules_as_every_test_level_must_not():
    from types import SimpleNamespace

    from genesis.kb.library import worked_example

    folder = REPO / "kb/rules" / WORKED_EXAMPLE_RULE
    entry = SimpleNamespace(id=WORKED_EXAMPLE_RULE, data={
        "lua": (folder / "rule.lua").read_text(), "meta": yaml.safe_load((folder / "meta.yaml").read_text()),
        "tests": yaml.safe_load((folder / "test.yaml").read_text())})
    example = worked_example(SimpleNamespace(get=lambda collection, ident: entry))
    assert example["test"]["level"]["teams"] and "rules" not in example["test"]["level"]


@pytest.mark.parametrize("rule", sorted(p.name for p in (REPO / "kb/rules").iterdir() if (p / "test.yaml").exists()))
def test_every_verified_rule_test_validates_against_the_schema_the_model_is_given(rule):
    tests = yaml.safe_load((REPO / "kb/rules" / rule / "test.yaml").read_text())["tests"]
    for case in tests:
        RuleTest.model_validate(case)   # the `tests` items of RuleDraft, the developer's output model
    assert "RuleTest" in json.dumps(RuleDraft.model_json_schema())


@pytest.mark.parametrize("level", sorted(p.name for p in (REPO / "kb/levels").iterdir()))
def test_every_verified_level_validates_against_the_schema_the_model_is_given(level):
    data = json.loads((REPO / "kb/levels" / level / "level.json").read_text())
    LevelDraft.model_validate({"level": data})


def test_the_schema_sent_is_the_schema_checked():
    """The developer's level is the engine's LevelConfig, not a free dict: a wrong key fails at the reply."""
    schema = LevelDraft.model_json_schema()
    assert "LevelConfig" in schema["$defs"] and schema["$defs"]["LevelConfig"]["additionalProperties"] is False
    gdd_defs = GDD.model_json_schema()["$defs"]
    assert {"MapRef", "WavesBehaviour", "SurviveUntil", "EventExpectation", "ResultExpectation"} <= set(gdd_defs)
    with pytest.raises(ValueError, match="time_limit"):
        RuleTest.model_validate({"name": "t", "expect": [{"event": "spawn"}],
                                 "level": {"name": "x", "description": "x", "map": {"name": "open_field"},
                                           "teams": [{"id": 0, "name": "p"}], "time_limit": 60}})


def test_the_gdd_schema_check_names_unknown_spawns_and_off_map_positions():
    from genesis.checks.context import CheckContext
    from genesis.checks.gdd_checks import schema

    gdd = design(write_brief("defend two fronts against three waves", read("defend two fronts against three waves"), []))
    assert schema(CheckContext(gdd=gdd))[0]
    bad = gdd.model_copy(deep=True)
    bad.teams[0].units[0] = bad.teams[0].units[0].model_copy(update={"at": "forest", "x": None, "y": None})
    bad.teams[0].units[1] = bad.teams[0].units[1].model_copy(update={"at": None, "x": 600.0, "y": 60.0})
    ok, why = schema(CheckContext(gdd=bad))
    assert not ok and "unknown spawn 'forest'" in why and "(600, 60) is off the" in why



def test_the_gdd_schema_check_names_a_reinforce_that_would_produce_nothing():
    from genesis.checks.context import CheckContext
    from genesis.checks.gdd_checks import schema
    from genesis.models import UnitPlacement

    gdd = design(write_brief("defend two fronts against three waves", read("defend two fronts against three waves"), []))
    asking = gdd.model_copy(deep=True, update={"production": True,
                                               "strategy_params": {**gdd.strategy_params, "reinforce": "light_bot"}})
    ok, why = schema(CheckContext(gdd=asking))
    assert not ok and "no factory that makes them" in why and "bot_lab" in why
    # a rule that spawns the factory (its params name it) gives the reference one as well
    from genesis.models import RuleComponent
    spawning = asking.model_copy(update={"rule_components": [*asking.rule_components, RuleComponent(
        id="mirrored_base", kind="setup", purpose="places each side's base, mirrored per seed",
        params={"buildings": [{"type": "bot_lab", "team": 0}]})]})
    assert "reinforce" not in schema(CheckContext(gdd=spawning))[1]
    asking.teams[0].units.append(UnitPlacement(type="bot_lab", x=4.0, y=4.0))
    assert "reinforce" not in schema(CheckContext(gdd=asking))[1]
    switched_off = asking.model_copy(update={"production": False})
    assert "production false" in schema(CheckContext(gdd=switched_off))[1]


def test_the_gdd_schema_check_names_a_produce_strategy_with_nothing_to_produce():
    from genesis.checks.context import CheckContext
    from genesis.checks.gdd_checks import schema

    query = "Build 5 light tanks before 6:00."
    gdd = design(write_brief(query, read(query), []))
    assert gdd.reference_strategy == "produce" and schema(CheckContext(gdd=gdd))[0]
    aimless = gdd.model_copy(update={"strategy_params": {k: v for k, v in gdd.strategy_params.items() if k != "target"}})
    ok, why = schema(CheckContext(gdd=aimless))
    assert not ok and "no strategy_params.target" in why

def test_requirement_evidence_reads_the_engine_state_of_the_validation_runs(tmp_path):
    from genesis.evidence import requirement_evidence
    from genesis.models import Requirement
    from genesis.simulate import SimJob, run_job

    level = {"name": "state", "description": "d", "map": {"name": "open_field"},
             "switches": {"fog_of_war": False, "production": False, "time_limit": 20},
             "teams": [{"id": 0, "name": "p", "resources": {"metal": 300}, "units": [{"type": "light_bot", "at": "west", "count": 3}]},
                       {"id": 1, "name": "e", "controller": {"type": "ai", "behaviour": "idle"},
                        "units": [{"type": "light_bot", "at": "east"}]}]}
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    run = run_job(SimJob(str(path), 0, "idle"))
    reqs = [Requirement(id="army", text="three bots", on="idle",
                        expect=[{"state": {"at": 10, "team": 0, "type": "light_bot", "units_min": 3, "units_max": 3}}]),
            Requirement(id="rich", text="rich", on="idle", expect=[{"state": {"at": 10, "team": 0, "metal_min": 5000}}])]
    by_id = {e["id"]: e for e in requirement_evidence(reqs, [run], (48, 48), path)}
    assert by_id["army"]["status"] == "verified" and by_id["rich"]["status"] == "failed"
    assert "metal is 300, needed >= 5000" in by_id["rich"]["detail"]


def test_params_declared_fails_on_a_param_read_or_passed_but_not_declared():
    from genesis.checks.context import CheckContext
    from genesis.checks.rule_checks import params_declared
    from genesis.models import RuleArtifact

    meta = {"params": {"count": {"type": "int", "default": 1, "description": "units"}}}
    ok_rule = RuleArtifact(id="r", source='local n = param("count", 1)', params={"count": 3}, tests=[], meta=meta)
    assert params_declared(CheckContext(rules=[ok_rule]))[0]
    reads = ok_rule.model_copy(update={"source": 'local n = param("count", 1) local t = param("team", 1)'})
    passes = ok_rule.model_copy(update={"params": {"count": 3, "speed": 2}})
    assert "undeclared params ['team']" in params_declared(CheckContext(rules=[reads]))[1]
    ok, why = params_declared(CheckContext(rules=[passes]))
    assert not ok and "passes params ['speed']" in why


def test_requirements_covered_fails_when_the_gdd_declares_a_testable_requirement_untestable():
    from genesis.checks.context import CheckContext
    from genesis.checks.gdd_checks import requirements_covered

    brief = write_brief("defend two fronts against three waves", read("defend two fronts against three waves"), [])
    gdd = design(brief)
    assert requirements_covered(CheckContext(brief=brief, gdd=gdd))[0]
    target = next(r for r in brief.requirements if r.testable)
    dodged = gdd.model_copy(update={"requirements": [r.model_copy(update={"testable": False, "expect": []})
                                                     if r.id == target.id else r for r in gdd.requirements]})
    ok, why = requirements_covered(CheckContext(brief=brief, gdd=dodged))
    assert not ok and f"marks untestable: ['{target.id}']" in why


def test_requirements_covered_fails_when_a_requirement_is_on_a_probe_the_gdd_does_not_script():
    from genesis.checks.context import CheckContext
    from genesis.checks.gdd_checks import requirements_covered

    brief = write_brief("defend two fronts against three waves", read("defend two fronts against three waves"), [])
    gdd = design(brief)
    target = gdd.requirements[0]
    moved = gdd.model_copy(update={"requirements": [r.model_copy(update={"on": "probe:nowhere"}) if r.id == target.id
                                                    else r for r in gdd.requirements]})
    ok, why = requirements_covered(CheckContext(brief=brief, gdd=moved))
    assert not ok and "probe that `variation.probes` does not name" in why and "nowhere" in why
    named = gdd.variation.probes[0].name
    played = moved.model_copy(update={"requirements": [r.model_copy(update={"on": f"probe:{named}"}) if r.id == target.id
                                                       else r for r in moved.requirements]})
    assert requirements_covered(CheckContext(brief=brief, gdd=played))[0]
