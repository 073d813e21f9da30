"""The offline reader on games said in other words: counts by the dozen, clock spans, pronoun targets,
races with no enemy, verdicts that close a condition. Each reading must also be honest about what is
built (a clause is honoured only with a requirement that evidences it)."""
from __future__ import annotations

import pytest

from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design


def _brief(query: str):
    return write_brief(query, read(query))


@pytest.mark.parametrize("phrase,seconds", [
    ("three and a quarter minutes", 195), ("a minute and a quarter", 75), ("two minutes and a quarter", 135),
])
def test_quarter_durations(phrase, seconds):
    assert read(f"Hold out for {phrase} against waves from the north.").concepts.time_limit == seconds


@pytest.mark.parametrize("query,deadline", [
    ("Stockpile 900 metal before the clock passes four minutes.", 240),
    ("Stockpile 900 metal before the clock reaches two and a half minutes.", 150),
    ("Stockpile 900 metal before the six-minute bell.", 360),
])
def test_deadlines_stated_through_the_clock(query, deadline):
    c = read(query).concepts
    assert c.archetype == "resources" and c.deadline == deadline


@pytest.mark.parametrize("verb", ["squirrel away", "tuck away", "salt away", "put by", "stack up"])
def test_hoarding_verbs_set_a_resource_goal(verb):
    c = read(f"{verb.capitalize()} 1200 energy within 5 minutes.").concepts
    assert (c.archetype, c.resource_kind, c.resource_amount) == ("resources", "energy", 1200)


@pytest.mark.parametrize("words,count", [("half a dozen", 6), ("a dozen", 12), ("two dozen", 24),
                                         ("a pair of", 2), ("a trio of", 3)])
def test_counts_by_the_dozen_and_in_pairs(words, count):
    c = read(f"Build {words} light tanks before minute 6.").concepts
    assert c.target_composition == {"light_tank": count}


@pytest.mark.parametrize("query,target,count", [
    ("Under fog, the enemy bot lab hides somewhere on the map; spot it within two minutes.", "bot_lab", None),
    ("Three enemy radar dishes are scattered about; lay eyes on all of them before 3:00.", "radar_tower", 3),
    ("Four hostile metal extractors lie in the dark. Find them inside 150 seconds.", "metal_extractor", 4),
])
def test_search_targets_named_before_a_pronoun(query, target, count):
    r = read(query)
    assert r.is_game and r.concepts.archetype == "recon"
    assert r.concepts.locate_type == target and r.concepts.locate_count == count


def test_where_the_request_places_search_targets_is_never_claimed():
    brief = _brief("The enemy factory hides in one of the four corners; spot it within 90 seconds. Fog of war on.")
    (clause,) = [c for c in brief.clauses if "corners" in c.text]
    assert clause.status == "partial" and "not built" in clause.why


@pytest.mark.parametrize("phrase", ["nobody is attacking you", "no enemies at all", "just you against the clock",
                                    "it's peaceful"])
def test_a_race_with_no_enemy_is_built_and_evidenced(phrase):
    brief = _brief(f"Field 6 light tanks before minute 5; {phrase}.")
    (clause,) = [c for c in brief.clauses if phrase.split()[-1] in c.text]
    assert brief.concepts.unopposed and clause.status == "honoured" and "unopposed" in clause.requirement_ids
    gdd = design(brief)
    (req,) = [r for r in gdd.requirements if r.id == "unopposed"]
    assert any(e.state and e.state.team == 1 and e.state.units_max == 0 for e in req.expect if hasattr(e, "state"))
    # the enemy side has nothing at the start and nothing spawns for it: the evidence would fail otherwise
    assert not any(u for t in gdd.teams if t.id == 1 for u in t.units)


def test_no_enemy_in_a_game_that_has_one_is_reported_not_built():
    brief = _brief("Defend your base against waves from the east for 5 minutes; nobody is attacking from the west.")
    assert not brief.concepts.unopposed
    brief = _brief("Capture the hill and hold it for 2 minutes; no enemies at all.")
    (clause,) = [c for c in brief.clauses if "enemies" in c.text]
    assert clause.status != "honoured"


@pytest.mark.parametrize("query", [
    "Escort the convoy to the east edge within 4 minutes. If the trucks are lost, or time runs out, you've lost.",
    "Survive 5 minutes of waves from the north; should your commander die, it's over.",
])
def test_a_bare_verdict_closes_the_condition_before_it(query):
    brief = _brief(query)
    assert not any(c.text.strip(" .,").lower() in ("you've lost", "it's over") for c in brief.clauses)


def test_the_player_s_unit_dying_after_or_is_a_loss_to_protect():
    c = read("Survive 5 minutes against waves from the west, or your commander dies and you lose.").concepts
    assert c.protect_unit == "commander"


@pytest.mark.parametrize("craft", ["gunships", "helicopters", "drones"])
def test_aircraft_the_roster_lacks_are_a_stated_stand_in_never_honoured(craft):
    brief = _brief(f"Survive 5 minutes; enemy {craft} attack from the north at 2:00.")
    (clause,) = [c for c in brief.clauses if craft in c.text]
    assert clause.status == "assumed" and "bombers" in clause.why


@pytest.mark.parametrize("given", ["You're given", "You are handed", "You command"])
def test_start_forces_given_in_other_words(given):
    c = read(f"Survive 5 minutes against waves from the east. {given} 3 light turrets and 2 aa turrets.").concepts
    assert c.player_start == {"light_turret": 3, "aa_turret": 2}


def test_the_moment_something_must_still_stand_is_the_game_length_not_an_attack():
    c = read("Raiders hit you from the west at 1:00 and 2:00; still have your storage at six minutes.").concepts
    assert c.wave_times == [60.0, 120.0] and c.time_limit == 360


def test_an_attack_window_between_two_marks():
    c = read("Survive: bombers show up at some unannounced moment between the two- and four-minute marks; "
             "hold out for 6 minutes.").concepts
    assert c.attack_window == [120.0, 240.0] and c.time_limit == 360


@pytest.mark.parametrize("line", ["the turret line", "a line of heavy turrets", "their defence belt"])
def test_a_siege_line_is_reported_as_the_ring_it_is_built_as(line):
    brief = _brief(f"Break through {line} and destroy the enemy bot lab within 8 minutes.")
    (clause,) = [c for c in brief.clauses if line.split()[-1] in c.text]
    assert clause.status == "partial" and "ring" in clause.why


@pytest.mark.parametrize("query,teams", [
    ("Me and three computer opponents, each of us fighting everybody else.", 4),
    ("Four commanders, each one fighting the rest, fog on.", 4),
])
def test_a_free_for_all_said_as_everyone_fighting_everyone_else(query, teams):
    c = read(query).concepts
    assert (c.archetype, c.teams) == ("ffa", teams)


def test_units_fighting_the_rest_in_a_defence_are_no_free_for_all():
    assert read("Defend your base against waves; your turrets fight the rest.").concepts.archetype == "defense"
