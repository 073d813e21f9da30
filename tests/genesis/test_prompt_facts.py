"""The generated prompt facts say what the engine does: strategies, maps, footprints, rule API limits."""
import re
from pathlib import Path

import pytest

import engine.agent.policies as policies
from engine.maps import list_maps, load_map
from engine.schema.level import MapRef
from genesis.checks.context import CheckContext
from genesis.checks.gdd_checks import schema
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design
from genesis.prompt_facts import FACTS, RULE_API, SKETCH_COLUMNS, SKETCH_MAX_COLUMNS, map_entry, sketch_step, terrain_sketch


def test_every_param_the_reference_policy_reads_is_described_with_its_strategy():
    import engine.agent.reference as reference

    sources = "".join(p.read_text() for p in Path(reference.__file__).parent.glob("*.py"))
    read_params = set(re.findall(r"spec\.get\(\"(\w+)\"", sources)) - {"strategy"}
    described = {p for s in policies.describe_strategies() for p in s["params"]}
    assert read_params <= described, f"undescribed strategy params: {sorted(read_params - described)}"
    for s in policies.describe_strategies():
        assert s["name"] in policies.STRATEGIES and len(s["behaviour"]) > 40
        assert f"- {s['name']}: {s['behaviour']}" in FACTS.strategies


def test_the_strategy_facts_state_army_fog_and_chasing():
    text = FACTS.strategies
    for phrase in ("armed, mobile unit", "under fog of war", "never chases out of the zone", "sibling keys"):
        assert phrase in text


def test_terrain_sketch_marks_every_blocked_tile_and_every_spawn():
    for name in ("open_field", "crossroads", "wilderness"):
        m = load_map(MapRef(name=name))
        rows = terrain_sketch(m).splitlines()[1:]
        grid = [r.strip() for r in rows]
        step = sketch_step(m)
        assert max(len(r) for r in grid) <= SKETCH_MAX_COLUMNS
        for y, row in enumerate(m.rows):
            for x, ch in enumerate(row):
                if ch in "#~":
                    cell = grid[y // step][x // step]
                    assert cell != ".", (name, x, y, ch)
        letters = "".join(grid)
        assert sum(ch.isalpha() for ch in letters) == len(m.spawns)
        # every row of cells is a line, an open one a single '.': a reader counts rows to find a y
        assert len(grid) == -(-m.height // step) and all(grid)


def test_the_sketch_keeps_the_fortress_gates_open():
    """plateau_fortress is walled with gates a few tiles wide: at 4 tiles a character the walls closed
    them and the fortress looked sealed; the sketch now refines until no passage closes."""
    m = load_map(MapRef(name="plateau_fortress"))
    assert sketch_step(m) < 4
    assert "every passage between open areas shows" in terrain_sketch(m)


def test_map_facts_give_every_deposit_once_with_its_coordinates():
    from engine.maps import deposits_array

    m = load_map(MapRef(name="crossroads"))
    deposits = deposits_array(m)
    entry = map_entry("crossroads")
    assert f"{len(deposits)} metal deposits" in entry
    assert all(f"({x:g},{y:g})" in entry for x, y in deposits.tolist())


def test_the_weapon_facts_give_damage_per_shot_cooldown_and_first_contact():
    from engine.catalog import load_catalog

    sniper = load_catalog().units["sniper_bot"].weapon
    assert f"r{sniper.range:g} {sniper.damage:g}/{sniper.reload:g}s ground" in FACTS.roster
    assert "its first shot lands the moment a target is in range" in FACTS.combat
    assert "sight radius is how far it sees" in FACTS.combat


def test_order_facts_say_who_fires_back_and_what_an_unreachable_point_does():
    from engine.systems.orders import KINDS

    text = FACTS.orders
    assert all(f"- {kind}:" in text for kind in KINDS if kind not in ("build", "produce"))
    assert "does not answer" in text and "impassable" in text and "stay stuck" in text


def test_the_ring_layout_fact_matches_the_engines_placement():
    import math

    from engine.catalog import load_catalog
    from engine.level import RING_GROWTH, RING_SIZE, place_units
    from engine.schema.level import Team

    count, spread = 15, 3.0
    team = Team(id=0, name="p", units=[{"type": "light_bot", "x": 24.5, "y": 24.5, "count": count, "spread": spread}])
    placed, problems = place_units([team], load_map(MapRef(name="open_field")), load_catalog())
    assert not problems
    for k in (1, RING_SIZE, RING_SIZE + 1):
        radius = spread * (1 + (k - 1) // RING_SIZE * RING_GROWTH)
        angle = 2 * math.pi * (k - 1) / (count - 1)
        assert math.isclose(placed[k].x, 24.5 + radius * math.cos(angle), abs_tol=0.5)
    assert f"spread*{1 + RING_GROWTH:g} for the next {RING_SIZE}" in FACTS.footprints


def test_the_produce_strategy_says_how_it_spends_and_expands():
    text = FACTS.strategies
    assert "within expand_radius of home (it never expands farther)" in text and "solar collector" in text


def test_designer_prompts_state_what_rules_cannot_do():
    assert "take_resources and transfer_resources remove at most what the team has" in FACTS.rule_api_menu
    assert "ENVIRONMENT side" in FACTS.rule_api_menu and "damage_area(x, y, radius" in FACTS.rule_api
    assert "rules share no state" in FACTS.rule_api_menu
    assert all(f"{name}(" in FACTS.rule_api_menu for name in RULE_API)
    # the developer gets the same limits, so the two roles cannot be told different things
    assert FACTS.rule_api_menu.split("What rules cannot do:")[1] in FACTS.rule_api


@pytest.fixture(scope="module")
def gdd():
    query = "defend two fronts against three waves"
    return design(write_brief(query, read(query), []))


def test_gdd_schema_check_runs_the_engines_placement(gdd):
    ok, why = schema(CheckContext(gdd=gdd))
    assert ok, why
    m = load_map(gdd.map)
    wx, wy = next((x, y) for y, row in enumerate(m.rows) for x, ch in enumerate(row) if ch == "~")
    wet = gdd.model_copy(deep=True)
    player = next(t for t in wet.teams if t.role == "player")
    player.units[0] = player.units[0].model_copy(update={"at": None, "x": wx + 0.5, "y": wy + 0.5})
    ok, why = schema(CheckContext(gdd=wet))
    assert not ok
    assert "water" in why and "nearest tile it can stand on" in why


def test_gdd_schema_check_names_overlapping_units(gdd):
    stacked = gdd.model_copy(deep=True)
    player = next(t for t in stacked.teams if t.role == "player")
    first = player.units[0]
    player.units.append(first.model_copy(update={"count": 1}))
    ok, why = schema(CheckContext(gdd=stacked))
    assert not ok and "overlap" in why


@pytest.mark.parametrize("purpose, needs", [
    ("When a unit enters the zone, the structure transforms into a fortress.", "units are created only"),
    ("Captured pylons upgrade into shield generators.", "units are created only"),
    # a real claim next to a denial, or after a condition, still fires
    ("It never spawns units but upgrades the outpost into a bunker.", "units are created only"),
    ("Outposts with no guard change their type when an enemy stands on them.", "units are created only"),
])
def test_rules_known_api_fails_on_a_component_that_needs_what_the_api_lacks(gdd, purpose, needs):
    from genesis.checks.gdd_checks import rules_known_api
    from genesis.models import RuleComponent

    bad = gdd.model_copy(deep=True)
    bad.rule_components.append(RuleComponent(id="wish", purpose=purpose, kind="economy"))
    ok, why = rules_known_api(CheckContext(gdd=bad, known_rules={c.library_rule for c in gdd.rule_components}))
    assert not ok and "'wish'" in why and needs in why and "asks what rules cannot do" in why


@pytest.mark.parametrize("purpose", [
    "The captured outpost keeps its type: the rule does not turn it into anything else.",
    "Spawns a fortress beside the outpost instead of transforming it into one.",
    "Nothing morphs into another unit; the zone only counts who stands in it.",
])
def test_rules_known_api_does_not_fire_on_a_purpose_that_denies_the_capability(gdd, purpose):
    from genesis.checks.gdd_checks import rules_known_api
    from genesis.models import RuleComponent

    good = gdd.model_copy(deep=True)
    good.rule_components.append(RuleComponent(id="honest", purpose=purpose, kind="economy"))
    ok, why = rules_known_api(CheckContext(gdd=good, known_rules={c.library_rule for c in gdd.rule_components}))
    assert ok, why


@pytest.mark.parametrize("purpose", [
    "Gives the player 50 metal every 30 s and logs rule_log 'income'.",
    "Raiders near a storage steal 20 metal per second from the player.",
    "Every 30 s, drains the player's energy by 50.",
    "A medic tent heals units nearby every 5 s.",
    "Captured pylons switch allegiance to the capturer.",
    "Ambushers stay cloaked until a detector drone comes within 6 tiles.",
    "Patrols of riflemen; the rule turns their drones into unarmed detectors.",
])
def test_rules_known_api_accepts_what_the_api_can_do(gdd, purpose):
    from genesis.checks.gdd_checks import rules_known_api
    from genesis.models import RuleComponent

    good = gdd.model_copy(deep=True)
    good.rule_components.append(RuleComponent(id="supply", kind="economy", purpose=purpose))
    ok, why = rules_known_api(CheckContext(gdd=good, known_rules={c.library_rule for c in gdd.rule_components}))
    assert ok, why


def test_the_designer_learns_how_combat_economy_and_the_idle_player_work():
    import engine.systems.combat as combat_system
    import engine.systems.economy as economy_system

    assert " ".join(combat_system.__doc__.split()) in FACTS.combat
    assert "Storage caps income" in FACTS.economy and economy_system.__doc__.split()[0] in FACTS.economy
    assert "only shoot what comes into weapon range" in FACTS.strategies


def test_the_rule_api_description_covers_exactly_what_the_sandbox_exposes():
    from engine import Simulation, load_level
    from engine.rules.api import API_DOC, Rule

    sim = Simulation(load_level({"name": "n", "description": "d", "map": {"name": "open_field"},
                                 "teams": [{"id": 0, "name": "p"}]}), seed=0, policies={})
    exposed = set(sim.rules._api(Rule("r", {}), 0))
    assert exposed == set(API_DOC), f"undocumented: {exposed - set(API_DOC)}; documented but absent: {set(API_DOC) - exposed}"
    for name, text in API_DOC.items():
        assert text.startswith(f"{name}("), name


def test_the_brief_prompt_lists_competencies_archetypes_and_what_the_simulator_offers():
    import typing

    from genesis.agents.base import PROMPTS
    from genesis.llm import render
    from genesis.models import ARCHETYPES, Competency

    prompt = render(PROMPTS / "designer_clarify.j2", query="q", clarifications=[], guidance=[], retry=None,
                    archetypes=list(ARCHETYPES), competencies=list(typing.get_args(Competency)), facts=FACTS)
    assert all(c in prompt for c in typing.get_args(Competency))
    assert ", ".join(ARCHETYPES) in prompt
    assert FACTS.rule_api_menu in prompt and FACTS.roster_picks in prompt
    assert FACTS.strategy_menu in prompt and FACTS.controllers_menu in prompt and FACTS.conditions_menu in prompt
    # an overview of every map's terrain, combat, vision and orders already at the brief stage (the GDD
    # stage sees the chosen map's full sketch, with every narrow passage)
    assert FACTS.map_overview in prompt and "terrain sketch" in prompt
    assert all(f"- {name}:" in FACTS.map_overview for name in list_maps())
    rows = [line for line in FACTS.map_overview.splitlines() if line.startswith("  ") and "terrain sketch" not in line]
    assert rows and max(len(row) for row in rows) <= 2 + SKETCH_COLUMNS
    assert FACTS.combat in prompt and FACTS.vision in prompt and FACTS.orders in prompt


def test_the_designer_reads_every_unit_role_and_its_fields():
    from engine.schema.roles import RoleSpec

    text = FACTS.strategies
    for role in policies.describe_roles():
        assert f"- role {role['name']}: {role['behaviour']}" in text
        assert "{" not in role["behaviour"]            # the module's constants were filled in
    for field in RoleSpec.model_fields:
        assert f"{field}: " in text


def test_a_gdd_with_a_malformed_role_is_rejected(gdd):
    from pydantic import ValidationError

    data = gdd.model_dump()
    data["strategy_params"] = {**data["strategy_params"], "roles": [{"role": "escort", "tag": "convoy"}]}
    with pytest.raises(ValidationError, match="strategy_params.roles"):
        type(gdd).model_validate(data)
    data["strategy_params"]["roles"] = [{"role": "escort", "tag": "convoy", "to": [10, 12]}]
    assert type(gdd).model_validate(data).strategy_params["roles"][0]["to"] == [10, 12]


def test_the_roster_says_which_units_are_buildings_and_that_the_commander_is_not_one():
    from engine.catalog import load_catalog

    units = load_catalog().units
    line = FACTS.roster.split("A building is", 1)[1].split("\n", 1)[0]
    assert "the commander is a mobile builder, not a building" in line and units["commander"].speed > 0
    buildings = line.split("categories ", 1)[1].split(";", 1)[0].split(", ")
    assert buildings and all(u.is_building for u in units.values() if u.category in buildings)
    assert not any(u.is_building for u in units.values() if u.category not in buildings)
    assert "the commander is a mobile builder" in FACTS.roster_picks and "the commander is a mobile builder" in FACTS.unit_names


def test_every_prompt_with_the_controllers_defines_the_selector_they_point_to():
    from genesis.agents.base import PROMPTS

    assert "see the conditions" in FACTS.controllers and "A TargetSelector is" in FACTS.conditions
    for template in PROMPTS.glob("*.j2"):
        text = template.read_text()
        assert "facts.controllers }}" not in text or "facts.conditions }}" in text, template.name


def test_the_certificate_facts_give_the_odds_a_small_seeded_choice_fails_the_blind_replay():
    from genesis.prompt_facts import validity_certificate

    text = validity_certificate()
    # 5 seeds, at most 2 replay wins: seed 0 plus 2 of the other 4 drawing its option (binomial, p = 1/k)
    assert "41% with 3" in text and "8% with 8" in text


def test_the_lua_library_the_rule_api_names_is_in_the_sandbox():
    import re

    from engine.rules.sandbox import LuaSandbox
    from genesis import prompt_facts

    said = next(line for line in prompt_facts.rule_api().splitlines() if line.startswith("Lua's own library"))
    names = [n for n in re.findall(r"\b([a-z][a-z0-9]*(?:\.[a-z]+)?)\b", said.split(":", 1)[1])
             if n not in ("in", "sorted", "key", "order", "and", "the", "tables", "with", "raw")]
    assert {"pcall", "string.format", "utf8", "setmetatable"} <= set(names)
    sandbox = LuaSandbox("library", "function missing(names)\n  local out = {}\n  for _, n in ipairs(names) do\n"
                         "    local v = _G\n    for part in string.gmatch(n, '[^.]+') do v = v and v[part] end\n"
                         "    if v == nil then out[#out + 1] = n end\n  end\n  return table.concat(out, ',')\nend", {})
    assert sandbox.call("missing", sandbox.table(names)) == ""


def test_no_rule_api_description_carries_an_unrendered_placeholder():
    import re

    from engine.rules.api import API_DOC
    left = {name: m.group(0) for name, doc in API_DOC.items() if (m := re.search(r"\{[A-Z_]+[:}]", doc))}
    assert not left, left
