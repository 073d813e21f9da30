"""The offline rule composer: every trigger and action kind composes into Lua whose generated tests
pass in simulation (and fail when the script is broken); bad recipes are refused with clear errors;
hostile values stay inside the pydantic bounds and the sandbox."""
import json
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from engine import Simulation, load_level
from engine.ruletest import run_rule_tests
from genesis.checks.rule_checks import lua_api_only, lua_compiles, params_declared
from genesis.checks.context import CheckContext
from genesis.kb.library import artifact_from_draft
from genesis.models import RuleComponent
from genesis.offline import developer_brain
from genesis.offline.rule_composer import RecipeError, compose
from genesis.rule_recipe import RuleRecipe, recipe_params

RECIPES = {
    "time_spawn_attack": {"steps": [{"when": {"on": "time", "at": [60, 120]}, "then": [
        {"do": "spawn", "team": 1, "units": {"light_bot": 3}, "at": "west", "growth": 2},
        {"do": "attack", "team": 1, "target_team": 0, "target_type": "commander"}]}]},
    "period_air_raid": {"steps": [{"when": {"on": "period", "every": 120, "first_at": 30, "count": 3}, "then": [
        {"do": "spawn", "team": 1, "units": {"bomber": 2}, "at": "north", "growth": 1.5},
        {"do": "attack", "team": 1, "target_team": 0, "target_type": "metal_extractor"}]}]},
    "area_message_mark_win": {"steps": [{"when": {"on": "area_entered", "x": 24.5, "y": 24.5, "radius": 3, "team": 0},
                                         "then": [{"do": "message", "text": "you reached the centre", "team": 0},
                                                  {"do": "mark", "text": "centre", "at": "center"},
                                                  {"do": "win", "team": 0, "reason": "centre reached"}]}]},
    "destroyed_lose": {"steps": [{"when": {"on": "unit_destroyed", "team": 0, "type": "commander"}, "then": [
        {"do": "lose", "team": 0, "reason": "commander lost"}]}]},
    "counts_reinforce_win": {"steps": [
        {"when": {"on": "count_below", "team": 1, "type": "light_tank", "threshold": 3}, "then": [
            {"do": "reinforce", "team": 1, "units": {"light_tank": 2}, "at": "east"}]},
        {"when": {"on": "count_above", "team": 0, "type": "assault_bot", "threshold": 4}, "then": [
            {"do": "win", "team": 0, "reason": "army built"}]}]},
    "fronts_in_turn": {"steps": [{"when": {"on": "time", "at": [60, 150, 240]}, "then": [
        {"do": "spawn", "team": 1, "units": {"light_bot": 2, "assault_bot": 1}, "at": ["west", [40, 8], "east"]},
        {"do": "attack", "team": 1, "target_team": 0, "target_tag": "objective"}]}]},
    "random_side_raids": {"steps": [{"when": {"on": "period", "every": 120, "first_at": 120}, "then": [
        {"do": "spawn", "team": 1, "units": {"raider_bot": 2}, "at": ["north", "south", "east", "west"],
         "pick": "random_no_repeat"},
        {"do": "attack", "team": 1, "target_team": 0, "target_type": "metal_extractor", "withdraw": True}]}]},
    "destroyed_random_reinforce": {"steps": [{"when": {"on": "unit_destroyed", "team": 1, "type": "light_tank"},
                                              "then": [{"do": "spawn", "team": 1, "units": {"light_tank": 1},
                                                        "at": ["ne", "nw"], "pick": "random"}]}]},
    "resource_message_attack": {"steps": [{"when": {"on": "resource_above", "team": 0, "resource": "metal",
                                                    "amount": 500},
                                           "then": [{"do": "message", "text": "rich"},
                                                    {"do": "attack", "team": 1, "target_team": 0}]}]},
    "shrinking_zone": {"steps": [{"when": {"on": "period", "every": 30, "first_at": 20, "count": 6}, "then": [
        {"do": "zone", "at": "center", "radius": 20, "shrink": 3, "min_radius": 4, "damage": 40}]}]},
    "theft_raids": {"steps": [{"when": {"on": "period", "every": 60, "first_at": 30}, "then": [
        {"do": "take", "team": 0, "metal": 50, "to_team": 1}, {"do": "take", "team": 0, "energy": 20}]}]},
}


def _folder(tmp_path: Path, rule_id: str, draft, source: str | None = None) -> Path:
    folder = tmp_path / rule_id
    folder.mkdir()
    (folder / "rule.lua").write_text(source if source is not None else draft.source)
    (folder / "meta.yaml").write_text(yaml.safe_dump({**draft.meta.model_dump(mode="json"), "id": rule_id}))
    (folder / "test.yaml").write_text(yaml.safe_dump({"tests": [t.file_form() for t in draft.tests]}))
    return folder


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_each_trigger_and_action_kind_composes_into_rule_whose_tests_pass(tmp_path, name):
    recipe = RuleRecipe.model_validate(RECIPES[name])
    draft = compose(name, recipe, "a composed rule under test")
    assert len(draft.tests) == 2 * len(recipe.steps)       # per step: fires, and does not fire
    results = run_rule_tests(_folder(tmp_path, name, draft))
    assert all(r.passed for r in results), [(r.name, [d for d in r.details if not d.startswith("PASS")])
                                            for r in results if not r.passed]
    art = artifact_from_draft(draft, kb=None)
    ctx = CheckContext(rules=[art])
    for check in (lua_compiles, lua_api_only, params_declared):
        ok, why = check(ctx)
        assert ok, why


def test_a_broken_script_fails_its_generated_tests(tmp_path):
    recipe = RuleRecipe.model_validate(RECIPES["time_spawn_attack"])
    draft = compose("broken", recipe, "a composed rule under test")
    silent = draft.source.replace("fire_1(k) end) end", "end) end")   # the timer no longer fires the step
    assert silent != draft.source
    results = run_rule_tests(_folder(tmp_path, "broken", draft, silent))
    assert [r.passed for r in results] == [False, True]   # the step never fires: only its negative test holds


def _draws(tmp_path, pick: str, seed: int, firings: int = 12) -> list[int]:
    """The place slots a period spawn over four places used, firing after firing."""
    recipe = RuleRecipe.model_validate({"steps": [{"when": {"on": "period", "every": 2, "first_at": 1}, "then": [
        {"do": "spawn", "team": 1, "units": {"scout": 1}, "at": ["north", "south", "east", "west"], "pick": pick}]}]})
    draft = compose("draws", recipe, "draws")
    (tmp_path / "draws.lua").write_text(draft.source)
    level = {"name": "draws", "description": "d", "map": {"name": "open_field"},
             "switches": {"fog_of_war": False, "production": False, "time_limit": 2 * firings},
             "teams": [{"id": 0, "name": "p"}, {"id": 1, "name": "e", "controller": {"type": "ai", "behaviour": "idle"}}],
             "rules": [{"id": "draws", "script": "draws.lua", "params": draft.params}]}
    result = Simulation(load_level(level, base_dir=tmp_path), seed=seed).run()
    return [e["fields"]["slot"] for e in result.trace if e["event"] == "rule_log" and e["name"] == "group_spawned"]


def test_places_are_taken_in_turn_or_drawn_with_the_seeded_random(tmp_path):
    assert _draws(tmp_path, "cycle", 0) == [1, 2, 3, 4] * 3
    drawn = _draws(tmp_path, "random", 0)
    assert len(drawn) == 12 and set(drawn) <= {1, 2, 3, 4} and len(set(drawn)) > 1
    assert drawn == _draws(tmp_path, "random", 0)                   # the same seed draws the same sides
    assert any(_draws(tmp_path, "random", seed) != drawn for seed in (1, 2, 3))
    no_repeat = [_draws(tmp_path, "random_no_repeat", seed) for seed in (0, 1)]
    assert all(len(d) == 12 and all(a != b for a, b in zip(d, d[1:])) for d in no_repeat)
    assert no_repeat[0] != [1, 2, 3, 4] * 3 and len(set(no_repeat[0])) > 2    # drawn, not taken in turn


@pytest.mark.parametrize("recipe_id, original, broken", [
    ("random_side_raids", "if slot >= last_slot[prefix] then slot = slot + 1 end", "slot = last_slot[prefix]"),
    ("fronts_in_turn", "slot = (k - 1) % n + 1", "slot = 1")])
def test_a_pick_broken_in_the_lua_fails_its_generated_test(tmp_path, recipe_id, original, broken):
    """A draw that repeats the previous side, or a cycle that keeps to one place."""
    draft = compose(recipe_id, RuleRecipe.model_validate(RECIPES[recipe_id]), "spawns that change place")
    stuck = draft.source.replace(original, broken)
    assert stuck != draft.source
    results = run_rule_tests(_folder(tmp_path, recipe_id, draft, stuck))
    assert [r.passed for r in results] == [False, True]


def test_params_carry_every_value_and_the_shape_is_the_signature():
    a = RuleRecipe.model_validate(RECIPES["time_spawn_attack"])
    b = RuleRecipe.model_validate({"steps": [{"when": {"on": "time", "at": [5]}, "then": [
        {"do": "spawn", "team": 2, "units": {"heavy_tank": 1}, "at": [10, 10]},
        {"do": "attack", "team": 2, "target_team": 0}]}]})
    assert a.shape() == b.shape() == "time>spawn+attack" and a.signature() == b.signature()
    assert compose("x", a, "p").source == compose("x", b, "p").source   # same shape, same script
    params = recipe_params(a)
    assert params["s1_at"] == [60, 120] and params["s1_a1_units"] == {"light_bot": 3}
    assert params["s1_a2_target_type"] == "commander" and "s1_a2_target_tag" not in params
    c = RuleRecipe.model_validate(RECIPES["destroyed_lose"])
    assert c.signature() != a.signature()


@pytest.mark.parametrize("bad, words", [
    ({"steps": []}, "at least 1"),
    ({"steps": [{"when": {"on": "sometimes"}, "then": [{"do": "message", "text": "x"}]}]}, "sometimes"),
    ({"steps": [{"when": {"on": "time", "at": [10]}, "then": [
        {"do": "spawn", "team": 1, "units": {"dragon": 3}, "at": "west"}]}]}, "unknown unit type 'dragon'"),
    ({"steps": [{"when": {"on": "count_below", "team": 0, "threshold": 0}, "then": [
        {"do": "lose", "team": 0, "reason": "x"}]}]}, "threshold >= 1"),
    ({"steps": [{"when": {"on": "time", "at": [10]}, "then": [{"do": "explode"}]}]}, "explode"),
    ({"steps": [{"when": {"on": "time", "at": [10]}, "then": [
        {"do": "spawn", "team": 1, "units": {"light_bot": 3}, "at": "west", "pick": "random"}]}]}, "at least 2 places"),
    ({"steps": [{"when": {"on": "time", "at": [10]}, "then": [
        {"do": "spawn", "team": 1, "units": {"light_bot": 3}, "at": ["west", "east"], "pick": "shuffle"}]}]}, "shuffle"),
])
def test_a_broken_recipe_is_refused_with_a_clear_error(bad, words):
    with pytest.raises(ValidationError) as err:
        RuleRecipe.model_validate(bad)
    assert words in str(err.value)


@pytest.mark.parametrize("hostile", [
    {"on": "time", "at": [-5]},
    {"on": "time", "at": [1e300]},
    {"on": "time", "at": [float("nan")]},
    {"on": "time", "at": list(range(65))},
    {"on": "period", "every": 0.001, "first_at": 0},
    {"on": "area_entered", "x": 1e9, "y": 5, "radius": 2},
    {"on": "resource_above", "team": 99, "resource": "metal", "amount": 5},
])
def test_hostile_trigger_values_are_refused(hostile):
    with pytest.raises(ValidationError):
        RuleRecipe.model_validate({"steps": [{"when": hostile, "then": [{"do": "message", "text": "x"}]}]})


@pytest.mark.parametrize("action", [
    {"do": "take", "team": 0},
    {"do": "take", "team": 0, "metal": 5, "to_team": 0},
    {"do": "take", "team": 0, "metal": float("inf")},
    {"do": "zone", "at": "center", "radius": 5, "damage": 1e12},
    {"do": "zone", "at": "center", "radius": 0, "damage": 5},
    {"do": "spawn", "team": 1, "units": {"light_bot": 10**9}, "at": "west"},
    {"do": "spawn", "team": 1, "units": {"light_bot": -3}, "at": "west"},
    {"do": "spawn", "team": 1, "units": {"light_bot": 3}, "at": "west", "growth": 1e6},
    {"do": "spawn", "team": 1, "units": {"light_bot": 3}, "at": "west\"; os.exit() --"},
    {"do": "spawn", "team": 1, "units": {"light_bot": 3}, "at": ["west"] * 17},
    {"do": "spawn", "team": 1, "units": {"light_bot": 3}, "at": []},
    {"do": "message", "text": "x" * 10_000},
    {"do": "win", "team": -1, "reason": "x"},
])
def test_hostile_action_values_are_refused(action):
    with pytest.raises(ValidationError):
        RuleRecipe.model_validate({"steps": [{"when": {"on": "time", "at": [10]}, "then": [action]}]})


def test_odd_text_stays_data_and_the_largest_admitted_values_stay_inside_the_sandbox(tmp_path):
    odd = "]] os.exit() --[[ \" ' \\ \n%s%p ${x} {{ y }} </script> é 🚀"
    recipe = RuleRecipe.model_validate({"steps": [
        {"when": {"on": "time", "at": [1, 2]}, "then": [
            {"do": "message", "text": odd}, {"do": "mark", "text": odd, "at": "center"},
            {"do": "spawn", "team": 1, "units": {"light_bot": 200, "scout": 200}, "at": "west", "growth": 10}]},
        {"when": {"on": "period", "every": 1, "first_at": 3}, "then": [
            {"do": "spawn", "team": 1, "units": {"light_bot": 200}, "at": "east", "growth": 10}]}]})
    draft = compose("odd", recipe, odd)
    assert odd not in draft.source and "os.exit" not in draft.source
    results = run_rule_tests(_folder(tmp_path, "odd", draft))
    assert all(r.passed for r in results), [r.details for r in results if not r.passed]
    # the rule keeps under its own spawn budget whatever the growth: the run never ends in a rule error
    level = {"name": "budget", "description": "d", "map": {"name": "open_field"},
             "switches": {"fog_of_war": False, "production": False, "time_limit": 20},
             "teams": [{"id": 0, "name": "p"}, {"id": 1, "name": "e", "controller": {"type": "ai", "behaviour": "idle"}}],
             "rules": [{"id": "odd", "script": "odd/rule.lua", "params": draft.params}]}
    (tmp_path / "level.json").write_text(json.dumps(level))
    result = Simulation(load_level(tmp_path / "level.json"), seed=0).run()
    assert result.ended_by == "time_limit", result.error
    spawned = [e for e in result.trace if e["event"] == "spawn" and e["source"] == "rule"]
    assert len(spawned) == 1000


def test_a_place_the_map_lacks_is_refused_at_compose_time():
    recipe = RuleRecipe.model_validate({"steps": [{"when": {"on": "time", "at": [10]}, "then": [
        {"do": "spawn", "team": 1, "units": {"light_bot": 1}, "at": "front_1"}]}]})
    with pytest.raises(RecipeError, match="'front_1' is not a spawn point"):
        compose("x", recipe, "p", map_ref={"name": "open_field"})
    assert compose("x", recipe, "p", map_ref={"name": "two_front_corridor"}).tests


def test_the_offline_developer_composes_reuses_or_says_why_not():
    recipe = RuleRecipe.model_validate(RECIPES["destroyed_lose"])
    comp = RuleComponent(id="guard", purpose="losing the commander loses the game", kind="termination", recipe=recipe)
    draft = developer_brain.write_rule(comp, None)
    assert draft.source and draft.reuse is None and recipe.signature() in draft.meta.concepts
    stored = {"id": "stored-guard", "meta": draft.meta.model_dump(mode="json")}
    reused = developer_brain.write_rule(comp, stored)
    assert reused.reuse == "stored-guard" and reused.params == recipe_params(recipe)
    plain = RuleComponent(id="mystery", purpose="something no library rule does", kind="spawn")
    with pytest.raises(developer_brain.NoImplementation, match="no verified library rule and no recipe"):
        developer_brain.write_rule(plain, None)
    with pytest.raises(RecipeError, match="not fields of its recipe"):
        developer_brain.write_rule(comp.model_copy(update={"params": {"bogus": 1}}), None)


@pytest.mark.parametrize("withdraw", [True, False])
def test_a_raid_withdraws_once_its_target_is_destroyed(tmp_path, withdraw):
    recipe = RuleRecipe.model_validate({"steps": [{"when": {"on": "time", "at": [5]}, "then": [
        {"do": "spawn", "team": 1, "units": {"bomber": 1}, "at": "north"},
        {"do": "attack", "team": 1, "target_team": 0, "target_type": "metal_extractor", "withdraw": withdraw}]}]})
    draft = compose("raid", recipe, "one bomber raid")
    (tmp_path / "raid.lua").write_text(draft.source)
    level = {"name": "raid", "description": "d", "map": {"name": "open_field"},
             "switches": {"fog_of_war": False, "production": False, "time_limit": 90},
             "teams": [{"id": 0, "name": "p", "units": [{"type": "metal_extractor", "x": 24.5, "y": 30.5},
                                                        {"type": "constructor_bot", "x": 34.5, "y": 40.5}]},
                       {"id": 1, "name": "e", "controller": {"type": "ai", "behaviour": "idle"}}],
             "rules": [{"id": "raid", "script": "raid.lua", "params": draft.params}]}
    result = Simulation(load_level(level, base_dir=tmp_path), seed=0).run()
    deaths = [e["type"] for e in result.trace if e["event"] == "death"]
    withdrawn = [e for e in result.trace if e["event"] == "rule_log" and e["name"] == "attack_withdrawn"]
    assert deaths[0] == "metal_extractor"
    assert bool(withdrawn) == withdraw
    assert ("constructor_bot" in deaths) != withdraw     # a raid spares what it did not come for


def test_the_signature_covers_the_fields_of_each_part(monkeypatch):
    recipe = RuleRecipe.model_validate(RECIPES["time_spawn_attack"])
    before = recipe.signature()
    assert before == RuleRecipe.model_validate(RECIPES["time_spawn_attack"]).signature()   # stable
    from genesis import rule_recipe
    fields = dict(rule_recipe.AttackTarget.model_fields)
    del fields["withdraw"]          # a rule composed before `withdraw` existed declares no such param
    monkeypatch.setattr(rule_recipe.AttackTarget, "model_fields", fields)
    assert recipe.signature() != before


def test_the_kb_lookup_finds_a_composed_rule_of_the_same_shape_that_declares_every_param():
    from types import SimpleNamespace

    from genesis.kb.library import composed_rule
    recipe = RuleRecipe.model_validate(RECIPES["time_spawn_attack"])
    meta = compose("x", recipe, "p").meta.model_dump(mode="json")
    stale = {**meta, "params": {k: v for k, v in meta["params"].items() if not k.endswith("withdraw")}}
    other = compose("y", RuleRecipe.model_validate(RECIPES["destroyed_lose"]), "p").meta.model_dump(mode="json")

    def kb(*metas):
        return SimpleNamespace(list=lambda _collection: [
            SimpleNamespace(id=f"rule{k}", data={"meta": m, "lua": "", "tests": {}}) for k, m in enumerate(metas)])

    assert composed_rule(kb(other, meta), recipe, {}).id == "rule1"
    assert composed_rule(kb(stale, other), recipe, {}) is None      # same signature, but a param it lacks
    assert composed_rule(kb(meta), recipe, {"extra": 1}) is None


@pytest.mark.parametrize("recipe_id, original, broken", [
    ("theft_raids", "got = take_resources(t, metal, energy)", "got = {metal = metal, energy = energy}"),
    ("shrinking_zone", "dealt = dealt + damage(outside, hp).dealt", "dealt = dealt + hp")])
def test_a_theft_or_zone_that_does_nothing_fails_its_generated_test(tmp_path, recipe_id, original, broken):
    draft = compose(recipe_id, RuleRecipe.model_validate(RECIPES[recipe_id]), "an effect under test")
    idle = draft.source.replace(original, broken)
    assert idle != draft.source
    results = run_rule_tests(_folder(tmp_path, recipe_id, draft, idle))
    assert [r.passed for r in results] == [False, True]


def test_a_shrinking_zone_is_drawn_smaller_each_firing_and_hurts_only_outside(tmp_path):
    draft = compose("zone", RuleRecipe.model_validate(RECIPES["shrinking_zone"]), "a shrinking safe zone")
    (tmp_path / "zone.lua").write_text(draft.source)
    level = {"name": "zone", "description": "d", "map": {"name": "open_field"},
             "switches": {"fog_of_war": False, "production": False, "time_limit": 200},
             "teams": [{"id": 0, "name": "p", "units": [{"type": "wall", "at": "center"}, {"type": "wall", "x": 3, "y": 3}]},
                       {"id": 1, "name": "e", "controller": {"type": "ai", "behaviour": "idle"},
                        "units": [{"type": "wall", "x": 45, "y": 45}]}],
             "rules": [{"id": "zone", "script": "zone.lua", "params": draft.params}]}
    sim = Simulation(load_level(level, base_dir=tmp_path), seed=0)
    radii = []
    while sim.time < 180 and not sim.done:
        sim.step(30)
        radii += [s.half_w for s in sim.snapshot().shapes]
    assert sorted(set(radii), reverse=True) == [20, 17, 14, 11, 8, 5, 4][:len(set(radii))] and min(radii) < 20
    w = sim.world
    assert w.hp[0] == w.max_hp[0] and w.hp[1] < w.max_hp[1] and w.hp[2] < w.max_hp[2]
