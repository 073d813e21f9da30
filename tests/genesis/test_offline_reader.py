"""The offline reader over many phrasings of each concept family it knows, and its clause accounting:
clauses cover the request exactly, every honoured clause names a requirement of the brief, and what it
does not understand is reported (or, when it is the game itself, refused) instead of defaulted."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genesis.checks.clause_checks import brief_clauses, clause_problems
from genesis.checks.context import CheckContext
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read

EXAMPLES = [l for l in (Path(__file__).parent.parent / "data" / "example_queries.txt").read_text().splitlines()
            if l.strip() and not l.startswith("#")]


def _brief(query: str):
    return write_brief(query, read(query))


def _ids(query: str) -> set[str]:
    return {r.id for r in _brief(query).requirements}


# (request, what its concepts must show, requirement ids its brief must have)
FAMILIES = {
    "free-for-all": [
        ("a three-way brawl between AI armies, ranked by damage dealt",
         lambda c: c.archetype == "ffa" and c.teams == 3 and c.ranking == "damage_dealt", {"team_count", "ffa_no_allies"}),
        ("1v1v1 skirmish lasting 4 minutes", lambda c: c.archetype == "ffa" and c.teams == 3 and c.time_limit == 240,
         {"team_count"}),
        ("1 v 1 v 1 v 1 v 1 on an open field", lambda c: c.archetype == "ffa" and c.teams == 5, {"team_count"}),
        ("six factions battle it out, every faction for itself", lambda c: c.archetype == "ffa" and c.teams == 6,
         {"team_count", "ffa_no_allies"}),
        ("free for all with seven armies, most kills wins",
         lambda c: c.archetype == "ffa" and c.teams == 7 and c.ranking == "kills", {"ranking"}),
        ("an eight-way melee, last army standing", lambda c: c.archetype == "ffa" and c.teams == 8, {"team_count"}),
        ("everyone against everyone: four commanders, 5 minutes",
         lambda c: c.archetype == "ffa" and c.teams == 4 and c.time_limit == 300, {"team_count"}),
        ("me against three rivals, all against all", lambda c: c.archetype == "ffa" and c.teams == 4, {"team_count"}),
        ("a five-way free-for-all ranked by hp left",
         lambda c: c.archetype == "ffa" and c.teams == 5 and c.ranking == "hp_remaining", {"ranking"}),
        ("1v1v1v1 until one side is left", lambda c: c.archetype == "ffa" and c.teams == 4, {"ffa_no_allies"}),
        ("four armies, no alliances, fight until the 5 minute mark",
         lambda c: c.archetype == "ffa" and c.teams == 4 and c.time_limit == 300, {"team_count"}),
    ],
    "named sides": [
        ("waves hit you from the north-west and then from the south-east",
         lambda c: c.directions == ["nw", "se"] and c.fronts == 2, {"directions", "front_order"}),
        ("defend against attacks coming from the east", lambda c: c.directions == ["e"], {"directions"}),
        ("hold out as attacks arrive from north, then east, then south",
         lambda c: c.directions == ["n", "e", "s"], {"directions", "front_order"}),
        ("guard the western and eastern gates against four waves",
         lambda c: c.directions == ["w", "e"] and c.waves == 4, {"directions"}),
        ("attacks come from the south west every 90 seconds", lambda c: c.directions == ["sw"], {"directions"}),
        ("defend 3 outposts against waves from the north, east and west in that order",
         lambda c: c.directions == ["n", "e", "w"] and c.objectives == 3, {"front_order"}),
        ("attacks on both flanks, staggered", lambda c: c.directions == ["left", "right"] and c.staggered,
         {"directions", "staggered"}),
        ("survive waves coming from the NE", lambda c: c.directions == ["ne"], {"directions"}),
        ("the northern and southern outposts must be held against raids",
         lambda c: c.directions == ["n", "s"], {"directions"}),
    ],
    "side times": [
        ("the enemy strikes from the northeast at minute 2 and from the southwest at minute 5",
         lambda c: c.directions == ["ne", "sw"] and c.direction_times == [120, 300], {"front_times"}),
        ("enemy pushes on the left flank at 45 seconds and on the right flank at 2:30",
         lambda c: c.directions == ["left", "right"] and c.direction_times == [45, 150], {"front_times"}),
        ("protect the base; the first assault comes from the west at 1:00, the second from the north at 3:00",
         lambda c: c.directions == ["w", "n"] and c.direction_times == [60, 180], {"front_times", "front_order"}),
        ("at 90 seconds enemies come from the south, at 4 minutes from the north",
         lambda c: c.directions == ["s", "n"] and c.direction_times == [90, 240], {"front_times"}),
        ("the northern front is attacked at minute 1 and the southern front at minute 4",
         lambda c: c.directions == ["n", "s"] and c.direction_times == [60, 240], {"front_times"}),
        ("left wing at 30s, right wing at 2 minutes",
         lambda c: c.directions == ["left", "right"] and c.direction_times == [30, 120], {"front_times"}),
    ],
    "production race": [
        ("train 5 assault bots before the enemy assault at minute 3",
         lambda c: c.archetype == "production" and c.wave_times == [180] and c.deadline == 180
         and c.target_composition == {"assault_bot": 5}, {"enemy_attack", "deadline", "production_win"}),
        ("produce 8 light tanks; the enemy attacks at 5 minutes and again at 8 minutes",
         lambda c: c.archetype == "production" and c.wave_times == [300, 480] and c.deadline is None,
         {"enemy_attack"}),
        ("get 3 heavy tanks within 7 minutes while the enemy hits you at minute 4",
         lambda c: c.deadline == 420 and c.wave_times == [240] and c.target_composition == {"heavy_tank": 3},
         {"enemy_attack", "deadline"}),
        ("build up an army of 10 light bots by minute 6",
         lambda c: c.archetype == "production" and c.deadline == 360 and c.target_composition == {"light_bot": 10},
         {"deadline"}),
        ("make 4 rocket bots in under 5 minutes", lambda c: c.deadline == 300, {"deadline", "production_win"}),
    ],
    "growth": [
        ("survive five waves that keep getting bigger", lambda c: c.escalating and c.waves == 5, {"escalation"}),
        ("each wave doubles the previous one", lambda c: c.escalating and c.growth_factor == 2, {"growth"}),
        ("every wave is three times as big as the one before", lambda c: c.growth_factor == 3, {"growth"}),
        ("an ever-growing horde attacks your storages", lambda c: c.escalating, {"escalation"}),
        ("escalating assaults from two directions", lambda c: c.escalating and c.fronts == 2, {"escalation"}),
        ("progressively larger attacks over 6 minutes", lambda c: c.escalating and c.time_limit == 360,
         {"escalation"}),
    ],
    "attack windows and unknown sides": [
        ("an attack comes sometime in the first three minutes; survive until the 4 minute mark",
         lambda c: c.attack_window == [30, 180] and c.time_limit == 240 and c.random_timing, {"attack_window"}),
        ("enemies show up sometime between minute 1 and minute 3 from whichever side, survive five minutes",
         lambda c: c.attack_window == [60, 180] and c.random_side and c.time_limit == 300, {"attack_window"}),
        ("the assault lands at some point between 45 and 150 seconds; hold for 4 minutes",
         lambda c: c.attack_window == [45, 150] and c.time_limit == 240, {"attack_window"}),
        ("raiders arrive from a direction the player doesn't know in advance; protect the storage",
         lambda c: c.random_side and (c.fronts or 0) != 1, {"fronts"}),
        ("tank waves from the north and east, first wave at 30 seconds, each bigger than the last",
         lambda c: c.directions == ["n", "e"] and c.wave_times == [30], {"directions", "escalation"}),
    ],
    "probe then main": [
        ("first a probing attack, then the main assault", lambda c: c.probe_then_main and c.waves == 2,
         {"probe_main"}),
        ("a feint from the west followed by the main push from the east",
         lambda c: c.probe_then_main and c.directions == ["w", "e"], {"probe_main", "front_order"}),
        ("a small scouting party first and then the main army, twice as large",
         lambda c: c.probe_then_main and c.main_factor == 2, {"probe_main"}),
        ("light probe at 1:00, main attack at 4:00 four times as strong",
         lambda c: c.probe_then_main and c.main_factor == 4 and c.wave_times == [60, 240], {"probe_main"}),
    ],
    "capture and hold": [
        ("take and hold the central zone for 2 minutes", lambda c: c.archetype == "capture" and c.hold_time == 120,
         {"hold_zone", "capture_win"}),
        ("seize the hill and keep it for 90 seconds", lambda c: c.archetype == "capture" and c.hold_time == 90,
         {"hold_zone"}),
        ("king of the hill: control the zone for three minutes straight", lambda c: c.hold_time == 180, {"hold_zone"}),
        ("capture the control point and hold it for 4 minutes within a 10 minute game",
         lambda c: c.hold_time == 240 and c.time_limit == 600, {"hold_zone"}),
        ("occupy the plaza for 60 seconds before minute 5",
         lambda c: c.archetype == "capture" and c.hold_time == 60 and c.deadline == 300, {"hold_zone", "deadline"}),
    ],
    "deadlines": [
        ("destroy the enemy base before minute 8", lambda c: c.archetype == "siege" and c.deadline == 480,
         {"deadline", "destroy_win"}),
        ("produce 2 bombers within 6 minutes",
         lambda c: c.deadline == 360 and c.target_composition == {"bomber": 2}, {"deadline"}),
        ("train 6 scouts by the 4-minute mark", lambda c: c.deadline == 240 and c.target_composition == {"scout": 6},
         {"deadline"}),
        ("build 3 aa vehicles no later than minute 5", lambda c: c.deadline == 300, {"deadline"}),
        ("break the fortified line in less than 12 minutes", lambda c: c.archetype == "siege" and c.deadline == 720,
         {"deadline"}),
    ],
    "air raids on a building class": [
        ("enemy bombers strike your metal extractors every 2 minutes",
         lambda c: c.archetype == "raids" and c.air and not c.ground and c.wave_interval == 120
         and c.raid_target_type == "metal_extractor", {"raid_target", "raid_domain", "interval"}),
        ("aircraft raid your energy storage every minute",
         lambda c: c.air and c.wave_interval == 60 and c.raid_target_type == "energy_storage", {"raid_target"}),
        ("air raids on your radar towers every 75 seconds",
         lambda c: c.air and c.wave_interval == 75 and c.raid_target_type == "radar_tower", {"raid_domain"}),
        ("ground raiders harass your solar collectors every 3 minutes",
         lambda c: not c.air and c.ground and c.raid_target_type == "solar_collector", {"raid_domain", "raid_target"}),
        ("gunships bomb your factories every 100 seconds",
         lambda c: c.air and c.wave_interval == 100 and c.raid_target_type == "bot_lab", {"raid_target"}),
    ],
    "protected unit": [
        ("keep the commander alive for 6 minutes against waves from the south",
         lambda c: c.protect_unit == "commander" and c.directions == ["s"] and c.time_limit == 360,
         {"protect_unit", "directions"}),
        ("your engineer has to survive until the end while raiders attack",
         lambda c: c.protect_unit == "constructor_bot", {"protect_unit"}),
        ("do not lose your heavy tank while holding two fronts",
         lambda c: c.protect_unit == "heavy_tank" and c.fronts == 2, {"protect_unit", "fronts"}),
        ("if the scout dies you lose; survive three waves", lambda c: c.protect_unit == "scout" and c.waves == 3,
         {"protect_unit"}),
        ("protect your constructor vehicle from the incoming assault",
         lambda c: c.protect_unit == "constructor_vehicle", {"protect_unit"}),
    ],
    "teams": [
        ("two versus two with no production", lambda c: c.archetype == "teams" and c.team_size == 2
         and c.production is False, {"alliances", "no_production", "team_count"}),
        ("3v3 where my teammates are bots run by the AI", lambda c: c.team_size == 3, {"alliances"}),
    ],
}
CASES = [pytest.param(q, check, ids, id=f"{family}: {q[:40]}") for family, rows in FAMILIES.items()
         for q, check, ids in rows]
READER_REQUESTS = [q for rows in FAMILIES.values() for q, _, _ in rows]


def test_the_reader_is_tested_over_many_phrasings():
    assert len(READER_REQUESTS) >= 60 and len(set(READER_REQUESTS)) == len(READER_REQUESTS)


@pytest.mark.parametrize("query, check, ids", CASES)
def test_each_family_is_read_in_varied_phrasing(query, check, ids):
    brief = _brief(query)
    assert brief.is_game, brief.refusal
    assert check(brief.concepts), brief.concepts.model_dump(exclude_defaults=True)
    assert ids <= {r.id for r in brief.requirements}
    assert clause_problems(brief) == []


@pytest.mark.parametrize("query", READER_REQUESTS + EXAMPLES)
def test_clauses_cover_the_request_exactly_in_order(query):
    brief = _brief(query)
    assert "".join(c.text for c in brief.clauses) == query
    assert brief.clauses[0].start == 0 and brief.clauses[-1].end == len(query)
    assert all(a.end == b.start for a, b in zip(brief.clauses, brief.clauses[1:]))
    assert all(query[c.start:c.end] == c.text for c in brief.clauses)
    have = {r.id for r in brief.requirements}
    for c in brief.clauses:
        if c.status == "honoured":
            assert c.requirement_ids and set(c.requirement_ids) <= have, c
        else:
            assert c.why, c


@pytest.mark.parametrize("query", EXAMPLES)
def test_every_example_clause_is_honoured_or_assumed(query):
    brief = _brief(query)
    assert brief.is_game and not [c for c in brief.clauses if c.status == "not_honoured"], brief.clauses


_WORDS = st.sampled_from(["defend", "two", "fronts", "waves", "from", "the", "north", "and", "then", "west",
                          "with", "while", "at", "minute", "3", "raiders", "every", "90", "seconds", "zorp",
                          "quibble", "bombers", "your", "solar", "collectors", "1v1v1", "hold", "it", "for"])
_GAPS = st.sampled_from([" ", "  ", ", ", "; ", ". ", " - ", ": ", ",", "\t", " \n "])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_WORDS, _GAPS), min_size=1, max_size=14), st.sampled_from(["", " ", "!", ".  "]))
def test_any_request_is_covered_by_its_clauses(parts, tail):
    query = "".join(w + g for w, g in parts).rstrip() + tail
    brief = _brief(query)
    assert "".join(c.text for c in brief.clauses) == query
    assert clause_problems(brief) == []


@pytest.mark.parametrize("query, clause, word", [
    ("defend two fronts and the enemy casts spells on your units", "the enemy casts spells", "spells"),
    ("survive 5 waves while the enemy bribes your turrets", "the enemy bribes your turrets", "bribes"),
    ("hold the line while purple clouds drift over the map", "purple clouds drift", "purple clouds"),
    ("produce 4 light tanks; the weather turns to snow at minute 3", "the weather turns", "weather"),
    ("a 2v2 team battle with glowing mushrooms", "glowing mushrooms", "glowing mushrooms"),
])
def test_a_clause_not_understood_is_reported_not_defaulted(query, clause, word):
    brief = _brief(query)
    assert brief.is_game
    # not honoured, or partial when another phrase of the clause was built ("at minute 3": an attack then)
    bad = [c for c in brief.clauses if c.status in ("not_honoured", "partial")]
    assert len(bad) == 1 and clause in bad[0].text and word in bad[0].why.lower() + bad[0].text.lower()
    assert any(clause in u for u in brief.unsupported)
    assert clause_problems(brief) == []


@pytest.mark.parametrize("query", [
    "rescue the hostages from the enemy base",
    "steal the enemy's plans from their base",
    "a zorblax flurgle with enemy tanks",
    "assassinate the enemy general: he hides among decoys",
    "the enemy commander tells jokes to your units",
])
def test_a_game_the_reader_does_not_understand_is_refused_not_built_as_a_defence(query):
    brief = _brief(query)
    assert not brief.is_game and brief.refusal and "understand" in brief.refusal
    assert brief.clauses and all(c.status == "not_honoured" for c in brief.clauses)


@pytest.mark.parametrize("query, odd", [
    ("produce 3 unicorn knights before minute 5", "unicorn knights"),
    ("produce five jelly golems within 6 minutes", "jelly golems"),
    ("Produce 2 sky whales before minute 9", "sky whales")])
def test_a_production_race_whose_only_goal_is_no_roster_unit_is_refused_not_given_a_default_goal(query, odd):
    brief = _brief(query)
    assert not brief.is_game and odd in brief.refusal
    assert not brief.concepts.target_composition


def test_an_odd_unit_beside_roster_units_leaves_the_roster_goal():
    brief = _brief("produce 3 unicorn knights and 2 light tanks before minute 5")
    assert brief.is_game and brief.concepts.target_composition == {"light_tank": 2}
    assert any("unicorn knights" in u for u in brief.unsupported)


def test_flank_times_alone_make_a_defence_not_a_refusal():
    brief = _brief("left flank at 60s, right flank at 150s")
    assert brief.is_game and brief.concepts.direction_times == [60, 150]
    assert all(c.status == "honoured" for c in brief.clauses)


def test_a_capped_request_is_partly_honoured_with_what_was_built_and_the_cap_as_why():
    brief = _brief("a free-for-all between twelve teams")
    assert brief.concepts.teams == 8
    (part,) = [c for c in brief.clauses if c.status != "honoured"]
    assert part.status == "partial" and "team_count" in part.requirement_ids and "8 teams" in part.built
    assert "at most 8" in part.why and any("at most 8" in u for u in brief.unsupported)
    assert clause_problems(brief) == []


def test_a_vague_count_is_an_assumption_with_its_reading():
    brief = _brief("survive while enemies attack from several directions")
    assumed = [c for c in brief.clauses if c.status == "assumed"]
    assert assumed and "3" in assumed[0].why and assumed[0].requirement_ids


def test_the_clause_check_fails_on_gaps_unknown_requirements_and_silent_omissions():
    good = _brief("defend two fronts with staggered waves")
    assert brief_clauses(CheckContext(brief=good))[0]
    gap = good.model_copy(update={"clauses": good.clauses[:1]})
    ok, why = brief_clauses(CheckContext(brief=gap))
    assert not ok and "staggered" in why
    wrong = good.model_copy(update={"clauses": [good.clauses[0].model_copy(update={"requirement_ids": ["nope"]}),
                                                 *good.clauses[1:]]})
    assert "nope" in brief_clauses(CheckContext(brief=wrong))[1]
    bare = good.model_copy(update={"clauses": [good.clauses[0].model_copy(update={"requirement_ids": []}),
                                               *good.clauses[1:]]})
    assert "lists no requirement" in brief_clauses(CheckContext(brief=bare))[1]
    silent = good.model_copy(update={"clauses": [good.clauses[0].model_copy(
        update={"status": "not_honoured", "why": "cannot", "requirement_ids": []}), *good.clauses[1:]]})
    assert "missing from `unsupported`" in brief_clauses(CheckContext(brief=silent))[1]
    assert "empty" in brief_clauses(CheckContext(brief=good.model_copy(update={"clauses": []})))[1]


def test_a_model_brief_without_clause_accounting_is_rejected_and_offsets_are_located():
    from pydantic import ValidationError

    from genesis.agents.designer import AccountedBrief

    data = _brief("defend two fronts with staggered waves").model_dump(mode="json")
    shifted = {**data, "clauses": [{**c, "start": 0, "end": 0} for c in data["clauses"]]}
    assert AccountedBrief.model_validate(shifted).clauses[1].start == data["clauses"][1]["start"]
    with pytest.raises(ValidationError, match="clause accounting"):
        AccountedBrief.model_validate({**data, "clauses": []})


# more of the documented phrasings (README "Offline backend and its vocabulary")
@pytest.mark.parametrize("query, check", [
    ("waves: NW then SE, survive 5 min", lambda c: c.directions == ["nw", "se"] and c.time_limit == 300),
    ("tech up to 2 heavy tanks while enemy raids hit you at 3:00 and 6:00", lambda c: c.wave_times == [180, 360]),
    ("waves at minute 2, 4 and 6", lambda c: c.wave_times == [120, 240, 360] and c.waves == 3),
    ("you have eight minutes to build two heavy assault bots",
     lambda c: c.deadline == 480 and c.target_composition == {"heavy_assault_bot": 2}),
    ("escort duty: do not let your heavy tank die; survive until 4:00",
     lambda c: c.protect_unit == "heavy_tank" and c.time_limit == 240),
    ("IF YOUR COMMANDER FALLS YOU LOSE. survive three waves", lambda c: c.protect_unit == "commander"),
    ("protect the radar tower from the enemy attack from the south",
     lambda c: "radar_tower" in (c.protect_unit, c.objective_type) and c.directions == ["s"]),
    ("defend the metal extractors against air raids every ninety seconds",
     lambda c: c.raid_target_type == "metal_extractor" and c.air and c.wave_interval == 90),
    ("knock out the turret line with artillery only", lambda c: c.archetype == "siege" and c.unit_kinds == ["artillery"]),
    ("King of the hill: hold the zone 1:30 straight", lambda c: c.archetype == "capture" and c.hold_time == 90),
    ("two friendly bases, the first attacked early and the second late", lambda c: c.allied_bases == 2 and c.staggered),
    ("Set up a defence: two metal storages, enemy waves from the west, the second wave bigger",
     lambda c: c.objectives == 2 and c.escalating and c.directions == ["w"]),
])
def test_documented_phrasings_are_read(query, check):
    brief = _brief(query)
    assert brief.is_game and check(brief.concepts), brief.concepts.model_dump(exclude_defaults=True)
    assert not [c for c in brief.clauses if c.status == "not_honoured"], brief.clauses


@pytest.mark.parametrize("query, words", [
    ("survive enemy waves for 3 hours", "3 hours"),
    ("produce 3 unicorn knights and 2 light tanks before minute 5", "unicorn knights"),
    ("build 3 heavy tanks before minute 8 on a heart-shaped island map", "heart-shaped island"),
    ("12-way free for all", "12-way"),
    ("defend your base from the west and have a rule read /etc/passwd with io.open", "io.open"),
])
def test_what_cannot_be_built_is_not_honoured_in_the_requests_own_words(query, words):
    brief = _brief(query)
    assert brief.is_game and any(words in u for u in brief.unsupported), brief.unsupported
    assert clause_problems(brief) == []


def test_the_clarify_prompt_states_the_clause_contract_a_model_is_held_to():
    import typing

    from genesis.agents.base import PROMPTS
    from genesis.agents.designer import AccountedBrief
    from genesis.llm import render
    from genesis.models import ARCHETYPES, Competency
    from genesis.prompt_facts import FACTS

    prompt = render(PROMPTS / "designer_clarify.j2", query="q", clarifications=[], guidance=[], retry=None,
                    archetypes=list(ARCHETYPES), competencies=list(typing.get_args(Competency)), facts=FACTS)
    assert "`clauses`" in prompt and "not_honoured" in prompt and "requirement_ids" in prompt
    schema = AccountedBrief.model_json_schema()
    assert schema["title"] == "Brief" and "ClauseAccount" in schema["$defs"]


@pytest.mark.parametrize("query", ["first a scouting party probes the base, then a main assault twice as big",
                                   "enemy scouts will harass your extractors every minute"])
def test_an_enemy_scout_is_not_the_player_scouting(query):
    assert not read(query).concepts.scouting


@pytest.mark.parametrize("query, ordered", [
    ("tank waves coming from the north and east, first wave at 30 seconds", False),
    ("staggered waves from the west and east", False),
    ("enemies come first from the west, later from the east", True),
    ("attacks from the north, then the east", True),
    ("waves from the north, east and west in that order", True),
])
def test_a_list_of_sides_states_an_order_only_with_order_words_around_it(query, ordered):
    assert ("front_order" in {r.id for r in _brief(query).requirements}) == ordered
