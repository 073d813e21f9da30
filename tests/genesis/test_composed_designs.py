"""The designer's side of the composed families, with Concepts built by hand: each family yields a
recipe component the offline developer composes into a rule whose tests pass, and expectations that
hold on a run of that rule and fail when the request's words are not met."""
from pathlib import Path

import pytest
import yaml

from engine import Simulation, load_level
from engine.expect import evaluate
from engine.ruletest import as_run_view, run_rule_tests
from genesis.models import Concepts, RuleComponent
from genesis.offline import developer_brain
from genesis.offline import geometry as G
from genesis.offline.composed_designs import Site, as_recipes, components

PRODUCTION = Concepts(archetype="production", wave_times=[90, 240], target_composition={"light_tank": 3},
                      time_limit=600)
AIR_RAIDS = Concepts(archetype="raids", raids=True, air=True, ground=False, wave_interval=120,
                     raid_target_type="metal_extractor")
GROUND_RAIDS = Concepts(archetype="raids", raids=True, wave_interval=90, raid_target_type="solar_collector")
PROBE = Concepts(archetype="defense", probe_then_main=True, main_factor=3)
THEFT_RAIDS = Concepts(archetype="raids", raids=True, wave_interval=60, raid_target_type="metal_extractor", theft=80)
RANDOM_RAIDS = Concepts(archetype="raids", raids=True, random_side=True, wave_interval=60,
                        raid_target_type="metal_extractor", unit_kinds=["raider"])
CORRIDOR = Site({"name": "two_front_corridor"}, (22.5, 32.5), ["front_1", "front_2"], "objective")
FIELD = Site({"name": "open_field"}, (6.5, 42.5), ["ne", "north"], "home")
CROSS = Site({"name": "crossroads"}, (48.5, 48.5), ["sw", "ne", "nw"], "objective")


def test_each_family_is_recognised_from_its_concepts():
    assert [c.id for c in components(PRODUCTION, FIELD)[0]] == ["enemy_attack"]
    assert [c.id for c in components(AIR_RAIDS, CORRIDOR)[0]] == ["composed_raids"]
    assert [c.id for c in components(PROBE, CORRIDOR)[0]] == ["probe_main"]
    assert components(Concepts(archetype="defense", waves=3), CORRIDOR) == ([], {})
    assert components(Concepts(archetype="defense", wave_times=[60]), CORRIDOR) == ([], {})  # not a production race
    comps, expects = components(AIR_RAIDS, CORRIDOR)
    assert set(expects) == set(comps[0].requirement_ids) == {"raids", "interval", "fronts", "air", "raid_target",
                                                             "raid_domain"}
    assert expects["fronts"][0]["distinct_sectors"]["min"] == 1     # both corridor fronts lie east of the base
    assert "air" not in components(GROUND_RAIDS, CORRIDOR)[1]


def _run_generated_tests(tmp_path, cid: str, draft):
    """The composed rule's own generated tests, run on its rule folder."""
    folder = tmp_path / cid
    folder.mkdir()
    (folder / "rule.lua").write_text(draft.source)
    (folder / "meta.yaml").write_text(yaml.safe_dump({**draft.meta.model_dump(mode="json"), "id": cid}))
    (folder / "test.yaml").write_text(yaml.safe_dump({"tests": [t.file_form() for t in draft.tests]}))
    return run_rule_tests(folder)


@pytest.mark.parametrize("concepts, site", [(PRODUCTION, FIELD), (AIR_RAIDS, CORRIDOR), (GROUND_RAIDS, CORRIDOR),
                                            (PROBE, CORRIDOR), (RANDOM_RAIDS, CROSS), (THEFT_RAIDS, CORRIDOR)])
def test_the_family_composes_into_a_rule_whose_tests_pass(tmp_path, concepts, site):
    [comp], _ = components(concepts, site)
    draft = developer_brain.write_rule(comp, None, site.map_ref)
    results = _run_generated_tests(tmp_path, comp.id, draft)
    assert results and all(r.passed for r in results), [r.details for r in results if not r.passed]


def _run(tmp_path: Path, concepts: Concepts, site: Site, player_units: list[dict], until: float,
         override: dict | None = None, resources: dict | None = None):
    [comp], expects = components(concepts, site)
    draft = developer_brain.write_rule(comp, None, site.map_ref)
    (tmp_path / "rule.lua").write_text(draft.source)
    # a wall in a far corner keeps the player in the game (a side with nothing left is out) to the time limit
    kx, ky = G.passable_near(G.load(site.map_ref), 0.0, 0.0, [], clearance=0)
    level = {"name": "family", "description": "d", "map": site.map_ref,
             "switches": {"fog_of_war": False, "production": False, "time_limit": until},
             "teams": [{"id": 0, "name": "p", "units": [*player_units, {"type": "wall", "x": kx, "y": ky}],
                        "resources": resources or {"metal": 0, "energy": 0}},
                       {"id": 1, "name": "e", "controller": {"type": "ai", "behaviour": "idle"}}],
             "rules": [{"id": comp.id, "script": "rule.lua", "params": {**draft.params, **(override or {})}}]}
    sim = Simulation(load_level(level, base_dir=tmp_path), seed=0)
    result = sim.run()
    assert result.ended_by == "time_limit", result.error
    level_map = sim.level.map
    return expects, as_run_view(result), (level_map.width, level_map.height)


def _holds(expects: list[dict], view, size) -> bool:
    return all(c.passed for c in evaluate(expects, view, map_size=size))


def test_air_raids_target_the_building_class_and_are_aircraft(tmp_path):
    units = [{"type": "metal_extractor", "x": 30.5, "y": 32.5}, {"type": "commander", "at": "base"}]
    expects, view, size = _run(tmp_path, AIR_RAIDS, CORRIDOR, units, 260)
    assert all(_holds(e, view, size) for e in expects.values())
    # ground raiders where aircraft were asked for fail the domain check
    ground, view, size = _run(tmp_path, AIR_RAIDS, CORRIDOR, units, 260,
                              {"s1_a1_units": {"light_bot": 2}, "s2_a1_units": {"light_bot": 2}})
    assert not _holds(ground["raid_domain"], view, size)
    # raids sent at another class fail the target check
    other, view, size = _run(tmp_path, AIR_RAIDS, CORRIDOR, units, 260,
                             {"s1_a2_target_type": "commander", "s2_a2_target_type": "commander"})
    assert not _holds(other["raid_target"], view, size)


def test_random_side_raids_draw_each_side_and_are_checked_on_the_sides(tmp_path):
    [comp], _ = components(RANDOM_RAIDS, CROSS)
    [step] = comp.recipe.steps
    assert step.then[0].at == ["sw", "ne", "nw"] and step.then[0].pick == "random_no_repeat"
    units = [{"type": "metal_extractor", "x": 48.5, "y": 44.5, "tag": "objective"},
             {"type": "metal_extractor", "x": 44.5, "y": 52.5, "tag": "objective"}]
    expects, view, size = _run(tmp_path, RANDOM_RAIDS, CROSS, units, 250)
    assert all(_holds(e, view, size) for e in expects.values())
    # raids that all come from one side fail the sides check
    one_side, view, size = _run(tmp_path, RANDOM_RAIDS, CROSS, units, 250, {"s1_a1_at": ["sw"], "s1_a1_pick": "cycle"})
    assert not _holds(one_side["fronts"], view, size)


def test_the_library_air_raid_is_emitted_as_a_recipe_that_keeps_its_values():
    lib = RuleComponent(id="air_raid", purpose="an air assault", kind="spawn", library_rule="air_raid",
                        requirement_ids=["air"], params={"team": 1, "times": [480], "from": "nw", "unit_type": "bomber",
                                                         "count": 3, "target_tag": "objective"})
    [comp] = as_recipes([lib])
    assert comp.library_rule is None and comp.id == "air_raid" and comp.requirement_ids == ["air"]
    assert comp.recipe.shape() == "time>spawn+attack+mark+message"
    assert comp.params["s1_at"] == [480] and comp.params["s1_a1_units"] == {"bomber": 3}
    assert comp.params["s1_a1_at"] == ["nw"] and comp.params["s1_a2_target_tag"] == "objective"
    assert comp.params["s1_a4_text"] == "Enemy aircraft inbound from the nw!"
    other = lib.model_copy(update={"id": "waves", "library_rule": "staggered_waves"})
    assert as_recipes([other]) == [other]      # what no recipe states stays the library's


def test_the_air_raid_recipe_composes_into_a_rule_whose_tests_pass(tmp_path):
    lib = RuleComponent(id="air_raid", purpose="an air assault", kind="spawn", library_rule="air_raid",
                        requirement_ids=["air"], params={"team": 1, "times": [480], "from": "nw", "unit_type": "bomber",
                                                         "count": 2, "target_tag": "objective"})
    [comp] = as_recipes([lib])
    draft = developer_brain.write_rule(comp, None, {"name": "crossroads"})
    results = _run_generated_tests(tmp_path, comp.id, draft)
    assert len(results) == 2 and all(r.passed for r in results), [r.details for r in results if not r.passed]


def test_probe_then_main_is_checked_on_the_group_sizes(tmp_path):
    units = [{"type": "heavy_tank", "count": 4, "at": "base", "tag": "objective"}]
    expects, view, size = _run(tmp_path, PROBE, CORRIDOR, units, 200)
    assert _holds(expects["probe_main"], view, size)
    same, view, size = _run(tmp_path, PROBE, CORRIDOR, units, 200, {"s1_a1_growth": 1})
    assert not _holds(same["probe_main"], view, size)    # a main attack as big as the probe fails


def test_timed_enemy_attacks_come_at_the_stated_times(tmp_path):
    units = [{"type": "commander", "at": "sw", "tag": "home"}]
    expects, view, size = _run(tmp_path, PRODUCTION, FIELD, units, 260)
    assert _holds(expects["enemy_attack"], view, size)
    late, view, size = _run(tmp_path, PRODUCTION, FIELD, units, 260, {"s1_at": [150, 250]})
    assert not _holds(late["enemy_attack"], view, size)


@pytest.mark.parametrize("factor", [1.2, 2, 2.5, 3])
def test_the_main_attack_is_at_least_factor_times_the_probe_in_whole_units(factor):
    [comp], expects = components(PROBE.model_copy(update={"main_factor": factor}), CORRIDOR)
    spawn = comp.recipe.steps[0].then[0]
    probe = spawn.units["light_bot"]
    main = min(200, int(probe * spawn.growth + 0.5))      # what the composed rule spawns the second time
    assert main >= factor * probe and main == expects["probe_main"][1]["min"]


def test_an_attack_timed_at_the_race_deadline_is_on_the_map_before_the_deadline_ends_the_game(tmp_path):
    race = PRODUCTION.model_copy(update={"wave_times": [240], "deadline": 240})
    [comp], expects = components(race, FIELD)
    assert not comp.recipe.steps[0].when.jitter          # an attack at the deadline is never drawn late
    draft = developer_brain.write_rule(comp, None, FIELD.map_ref)
    (tmp_path / "attack.lua").write_text(draft.source)
    goal = Path(__file__).parents[2] / "kb" / "rules" / "production_goal" / "rule.lua"
    (tmp_path / "goal.lua").write_text(goal.read_text())
    level = {"name": "race", "description": "d", "map": FIELD.map_ref,
             "switches": {"fog_of_war": False, "production": True, "time_limit": 300},
             "teams": [{"id": 0, "name": "p", "units": [{"type": "commander", "at": "sw", "tag": "home"}]},
                       {"id": 1, "name": "e", "controller": {"type": "ai", "behaviour": "idle"}}],
             "rules": [{"id": "production_goal", "script": "goal.lua",    # listed first: its deadline timer too
                        "params": {"team": 0, "units": {"light_tank": 3}, "deadline": 240}},
                       {"id": comp.id, "script": "attack.lua", "params": draft.params}]}
    sim = Simulation(load_level(level, base_dir=tmp_path), seed=0)
    result = sim.run()
    assert result.duration == pytest.approx(240, abs=0.1) and result.losers == [0]
    assert _holds(expects["enemy_attack"], as_run_view(result), (sim.level.map.width, sim.level.map.height))


def test_raids_that_steal_carry_the_players_metal_off_to_the_raiders(tmp_path):
    [comp], expects = components(THEFT_RAIDS, CORRIDOR)
    assert "theft" in comp.requirement_ids and all(s.then[-1].do == "take" for s in comp.recipe.steps)
    units = [{"type": "metal_extractor", "x": 30.5, "y": 32.5}, {"type": "commander", "at": "base"}]
    stolen, view, size = _run(tmp_path, THEFT_RAIDS, CORRIDOR, units, 200, resources={"metal": 1000, "energy": 0})
    assert _holds(expects["theft"], view, size)
    moved = [e["metal"] for e in view.events if e["event"] == "resources_transferred"]
    assert len(moved) >= 2 and moved[0] == 80
    none, view, size = _run(tmp_path, THEFT_RAIDS, CORRIDOR, units, 200, {"disabled_steps": [1, 2]})
    assert not _holds(none["theft"], view, size)


@pytest.mark.parametrize("query, theft", [
    ("Defend your base against raids every 90 seconds; the raiders steal 80 metal from you each time.", 80),
    ("Raiders harass your metal extractors every 60 s and loot your resources. Survive 6 minutes.", 50)])
def test_a_request_for_raids_that_steal_is_read_and_built_with_when_it_takes_the_metal_said(query, theft):
    from genesis.offline.brief_writer import write_brief
    from genesis.offline.concepts import read

    brief = write_brief(query, read(query))
    assert brief.concepts.theft == theft and any(r.id == "theft" for r in brief.requirements)
    # built, and partial only for when the metal goes: as each raid sets out, not when it arrives
    (stolen,) = [c for c in brief.clauses if "theft" in c.requirement_ids]
    assert stolen.status == "partial" and "as it sets out" in stolen.why
    assert all("as it sets out" in u for u in brief.unsupported)
    stolen_flag = write_brief("Steal the enemy flag and bring it home.", read("Steal the enemy flag and bring it home."))
    assert stolen_flag.refusal and "steal" in stolen_flag.refusal


def test_a_free_for_all_in_a_shrinking_safe_zone_is_read_designed_and_evidenced(tmp_path):
    import json

    from genesis.level_assembly import assemble_level
    from genesis.offline.brief_writer import write_brief
    from genesis.offline.concepts import read
    from genesis.offline.gdd_writer import design
    from genesis.offline.rule_composer import compose
    from tests.genesis.offline_design_helpers import KB_RULES, play

    query = "Free-for-all of 4 teams for 4 minutes; the safe zone shrinks every 20 seconds and units outside it burn."
    brief = write_brief(query, read(query))
    assert brief.concepts.safe_zone and brief.concepts.zone_interval == 20 and brief.concepts.wave_interval is None
    assert not brief.unsupported and any(r.id == "safe_zone" for r in brief.requirements)
    gdd = design(brief)
    zone = next(c for c in gdd.rule_components if c.id == "safe_zone")
    assert zone.params["s1_every"] == 20 and zone.params["s1_count"] == 9     # smallest at 3/4 of the game
    generated = _run_generated_tests(tmp_path, "safe_zone", developer_brain.write_rule(zone, None, gdd.map))
    assert generated and all(r.passed for r in generated), [r.details for r in generated if not r.passed]
    (tmp_path / "rules").mkdir()
    for comp in gdd.rule_components:
        source = (compose(comp.id, comp.recipe, comp.purpose, map_ref=gdd.map).source if comp.recipe is not None
                  else (KB_RULES / comp.library_rule / "rule.lua").read_text())
        (tmp_path / "rules" / f"{comp.id}.lua").write_text(source)
    level = assemble_level(gdd, [{"id": comp.id, "params": comp.params} for comp in gdd.rule_components])
    (tmp_path / "level.json").write_text(json.dumps(level))
    run = play(tmp_path / "level.json", "reference", [])
    req = next(r for r in gdd.requirements if r.id == "safe_zone")
    results = evaluate(req.expect, run, map_size=run["map_size"])
    assert all(r.passed for r in results), [r.detail for r in results]
    assert run["ended_by"] == "condition" and run["duration"] >= 239       # still ranked at the time limit


def test_a_counted_raid_is_evidenced_on_its_group_size(tmp_path):
    counted = AIR_RAIDS.model_copy(update={"raid_size": 2})
    units = [{"type": "metal_extractor", "x": 30.5, "y": 32.5}, {"type": "commander", "at": "base"}]
    expects, view, size = _run(tmp_path, counted, CORRIDOR, units, 260)
    assert _holds(expects["raid_size"], view, size)
    # raids of another size fail it
    other, view, size = _run(tmp_path, counted, CORRIDOR, units, 260,
                             {"s1_a1_units": {"bomber": 3}, "s2_a1_units": {"bomber": 3}})
    assert not _holds(other["raid_size"], view, size)
