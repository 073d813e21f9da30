"""The offline reader on games said in other words: counts by the dozen, clock spans, pronoun targets,
races with no enemy, verdicts that close a condition. Each reading must also be honest about what is
built (a clause is honoured only with a requirement that evidences it)."""
from __future__ import annotations

import re

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
    # one target named in the singular is one target
    ("Under fog, the enemy bot lab hides somewhere on the map; spot it within two minutes.", "bot_lab", 1),
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


@pytest.mark.parametrize("query,size", [
    ("Two of us on one side, two of them on the other; the clock stops at twelve minutes.", 2),
    ("Four of us against four of them, three of my side are run by the computer.", 4),
])
def test_sides_counted_as_us_and_them(query, size):
    c = read(query).concepts
    assert (c.archetype, c.team_size) == ("teams", size)


def test_a_unit_named_first_and_brought_home_by_pronoun_is_escorted():
    r = read("Your scout is stuck out in the north-east; get her back to the south-west corner within 3 minutes, "
             "past the patrols lurking on the way, and she has to arrive alive.")
    c = r.concepts
    assert (c.archetype, c.escort_unit, c.escort_from, c.escort_to) == ("escort", "scout", "ne", "sw")
    assert c.ambush and all(cl.status == "honoured" for cl in write_brief(r.text, r).clauses)


def test_search_targets_found_passively_and_named_as_places_are_a_stated_stand_in():
    brief = _brief("Four enemy camps hide somewhere in the fog; by the ninety-second mark they must all be found.")
    assert brief.concepts.archetype == "recon" and brief.concepts.locate_count == 4
    assert {c.status for c in brief.clauses if "camps" in c.text or "found" in c.text} == {"assumed"}


@pytest.mark.parametrize("words", ["keep darting at", "keep sniping at", "keep on hitting"])
def test_attacks_that_keep_coming_at_a_target_are_raids(words):
    c = read(f"From no fixed edge, enemy bots {words} your three metal extractors; survive 5 minutes.").concepts
    assert c.archetype == "raids" and c.random_side


@pytest.mark.parametrize("query", [
    "A half-dozen assault bots go up against ten light bots and nothing can be built; you win once none of them is "
    "left, inside two minutes.",
    "Eight light tanks clash with twenty light bots, no factories; done when not a single one of theirs is standing.",
])
def test_skirmishes_said_in_other_words(query):
    c = read(query).concepts
    assert c.archetype == "micro" and c.production is False and c.squad and c.enemy_force


@pytest.mark.parametrize("phrase,seconds", [("the hundred-and-twenty-second mark", 120),
                                            ("the hundred-and-fifty-second mark", 150)])
def test_hundreds_written_with_hyphens(phrase, seconds):
    c = read(f"Find all three enemy radar towers by {phrase}.").concepts
    assert c.deadline == seconds


@pytest.mark.parametrize("query,named,why", [
    # every wave is one mix: a wave the request gives its own units is not built as asked
    ("Survive 6 minutes: light bots from the west at 1:00, then a heavy tank wave from the north at 4:00.", "heavy tank",
     "light bots named elsewhere"),
    ("Survive 7 minutes against growing waves of light bots and light tanks every 50 seconds.", "light tanks",
     "light tanks named here are not built"),
])
def test_enemy_units_the_waves_are_not_made_of_are_never_honoured(query, named, why):
    brief = _brief(query)
    (clause,) = [c for c in brief.clauses if named in c.text]
    assert clause.status == "partial" and why in clause.why


@pytest.mark.parametrize("query,named,types", [
    ("Defend your storage for 5 minutes against rocket bots from the east every 60 seconds.", "rocket bots",
     {"rocket_bot"}),
    ("Defend your base against rocket bot waves from the north-east at 1:15, 2:45 and 4:15.", "rocket bot", {"rocket_bot"}),
    ("Hold out 6 minutes: waves of sniper bots and assault bots from the south at 1:00, 3:00 and 5:00.", "sniper bots",
     {"sniper_bot", "assault_bot"}),
])
def test_the_waves_are_made_of_the_enemy_units_the_request_names(query, named, types):
    from genesis.offline.gdd_writer import design

    brief = _brief(query)
    (clause,) = [c for c in brief.clauses if named in c.text]
    assert clause.status == "honoured", clause
    spawned = {t for comp in design(brief).rule_components for k in ("units", "unit_type") if k in comp.params
               for t in ([comp.params[k]] if isinstance(comp.params[k], str) else comp.params[k])}
    assert types <= spawned and not spawned - types - {"bomber"}


def test_the_player_s_own_units_are_not_taken_for_the_enemy_s():
    c = read("Survive 5 minutes against waves from the north-west every 60 seconds; you start with 6 light tanks.").concepts
    assert "tank" not in c.unit_kinds


@pytest.mark.parametrize("query,limit", [
    ("Keep the factory standing through the seven-minute mark against waves from the east.", 420),
    ("Waves from the south; hold out past 6:30.", 390),
])
def test_a_building_kept_through_a_moment_sets_the_game_length(query, limit):
    assert read(query).concepts.time_limit == limit


def test_hyphenated_shares_of_a_minute_and_units_off_the_line():
    c = read("Waves hit your left flank at the three-and-a-quarter-minute mark; survive 6 minutes.").concepts
    assert c.wave_times == [195.0]
    c = read("Five light tanks off the line before the clock stops you cold at seven minutes.").concepts
    assert (c.archetype, c.target_composition, c.time_limit) == ("production", {"light_tank": 5}, 420)


def test_growing_waves_at_a_stated_interval_fill_the_game_and_evidence_the_interval():
    brief = _brief("Survive 6 minutes against escalating waves every 45 seconds from 2 directions, each wave's side "
                   "drawn at random.")
    gdd = design(brief)
    (waves,) = [rc for rc in gdd.rule_components if rc.id == "escalating_waves"]
    assert waves.params["interval"] == 45 and waves.params["count"] >= 6 and brief.concepts.random_side
    (interval,) = [r for r in gdd.requirements if r.id == "interval"]
    assert interval.expect


def test_a_race_s_timed_attack_comes_from_the_side_named_and_says_so():
    brief = _brief("Produce 4 light tanks before minute 5; an enemy column comes in from the north-east at 2:00.")
    gdd = design(brief)
    assert not [r.id for r in gdd.requirements if r.testable and not r.expect]
    (directions,) = [r for r in gdd.requirements if r.id == "directions"]
    assert "ne" in str(directions.expect[0].model_dump())


@pytest.mark.parametrize("query,quoted", [
    ("Have the agent play ranked Age of Empires games online against human players tonight.", "play ranked Age of"),
    ("Log the bot into my Steam account and let it grind Dota 2.", "into my Steam account"),
])
def test_playing_other_games_or_using_accounts_is_refused_with_the_words(query, quoted):
    r = read(query)
    assert not r.is_game and "outside Genesis" in r.refusal and quoted.split()[0] in r.refusal


@pytest.mark.parametrize("query", ["A StarCraft-style rush defence: survive 5 minutes against waves from the north.",
                                   "Defend against waves like in Age of Empires for 6 minutes."])
def test_a_commercial_title_named_as_a_style_is_not_refused(query):
    assert read(query).is_game


def test_a_clause_read_through_one_word_is_not_honoured_as_a_whole():
    brief = _brief("Survive 5 minutes against waves from the east; the waves wear red hats and sing loudly about "
                   "their grandmothers' famous soup recipes.")
    assert not any(c.status == "honoured" and "grandmothers" in c.text for c in brief.clauses)


@pytest.mark.parametrize("query", [
    "Take down every one of the four enemy turrets on the ridge before 6:00.",
    "Their entire fortress has to be razed by the eight-minute mark.",
])
def test_sieges_said_with_other_verbs_and_in_the_passive(query):
    assert read(query).concepts.archetype == "siege"


def test_a_whole_base_to_destroy_is_reported_as_the_one_target_built():
    brief = _brief("Their entire base, every last building, has to be rubble by the nine-minute mark.")
    (clause,) = [c for c in brief.clauses if "every last building" in c.text]
    assert clause.status == "partial" and "target building" in clause.why


def test_edges_named_as_on_a_screen_and_a_goal_to_get_from_one_to_another():
    c = read("Your engineer has to get from the left edge of the map to the right one... no: to the right edge "
             "before 4:00; patrols lurk on the way.").concepts
    assert (c.archetype, c.escort_from, c.escort_to) == ("escort", "w", "e")


@pytest.mark.parametrize("query,count", [
    ("Five enemy factories sit out in the dark; your lone scout has to clap eyes on every last one inside 3 minutes.", 5),
    ("Work out where the enemy put its three radar towers before 2:30; fog of war on.", 3),
])
def test_searches_said_in_other_words(query, count):
    c = read(query).concepts
    assert c.archetype == "recon" and c.locate_count == count


def test_losing_the_searching_unit_ends_the_game_when_said_so():
    assert read("Find all four enemy extractors within 3 minutes; losing the scout ends it.").concepts.protect_unit \
        == "scout"


def test_a_stockpile_counted_at_a_moment_and_amounts_with_a_share_of_a_thousand():
    c = read("Have two and a half thousand energy sitting in your treasury at 5:30; nobody is out to get you.").concepts
    assert (c.archetype, c.resource_amount, c.resource_kind, c.deadline, c.unopposed) == \
        ("resources", 2500, "energy", 330, True)


def test_a_skirmish_said_by_comparing_the_two_armies():
    c = read("Five rocket bots, quicker and longer-ranged than the eight assault bots coming for them: cut them "
             "down, lose a couple at most, within 2 minutes.").concepts
    assert (c.archetype, c.squad, c.enemy_force, c.max_losses) == ("micro", {"rocket_bot": 5}, {"assault_bot": 8}, 2)


def test_fog_switched_off_in_other_words():
    for said in ("fog of war is off", "the fog is lifted", "fog is turned off"):
        assert read(f"Destroy the enemy bot lab before 6:00; {said}.").concepts.fog is False


@pytest.mark.parametrize("said,side", [("from where the sun sets", "w"), ("out of the rising sun", "e"),
                                       ("from the morning side", "e"), ("over the sundown edge", "w")])
def test_sides_named_by_the_sun(said, side):
    assert set(read(f"Survive 5 minutes: waves come {said} at 1:00 and 3:00.").concepts.directions) == {side}


def test_a_list_of_moments_sharing_one_unit():
    assert read("Raiders hit from the west at two, four and six minutes; survive 7 minutes.").concepts.wave_times == \
        [120.0, 240.0, 360.0]


def test_half_of_the_objectives_kept_and_a_main_attack_three_times_as_heavy():
    c = read("Raids from the east every minute go for your six metal extractors; half of them still standing at "
             "5:00 wins.").concepts
    assert (c.objectives, c.keep_objectives) == (6, 3)
    c = read("A feint hits the west first, then the main attack, three times as heavy, from the east; survive "
             "6 minutes.").concepts
    assert c.main_factor == 3


def test_a_capture_with_more_contenders_or_a_race_to_hold_is_reported_not_built():
    brief = _brief("Four-team king of the hill on the central plateau: first to hold it for 60 seconds wins.")
    assert all(c.status != "honoured" for c in brief.clauses if "Four-team" in c.text or "first to hold" in c.text)


def test_a_convoy_is_won_only_when_every_truck_arrives():
    query = "Convoy escort with 3 trucks: drive them to the east edge within 5 minutes past ambushes."
    brief = _brief(query)
    (clause,) = [c for c in brief.clauses if "drive them" in c.text]
    assert clause.status == "honoured", clause
    gdd = design(brief)
    arrival = next(r for r in gdd.rule_components if r.id == "escort_arrival")
    assert arrival.params["need"] == 3
    evidence = next(r for r in gdd.requirements if r.id == "escort_arrival")
    assert any(e.model_dump().get("event") and e.model_dump().get("min") == 3 for e in evidence.expect)


def test_a_convoy_asked_for_only_some_arrivals_is_partial():
    brief = _brief("A convoy of 4 trucks drives to the east edge within 6 minutes; at least 2 of them must arrive.")
    (clause,) = [c for c in brief.clauses if "at least 2" in c.text]
    assert clause.status == "partial" and "every one of the convoy" in clause.why


def test_a_program_or_a_negotiation_is_refused_naming_it():
    r = read("Write a Python script that scrapes a web store for prices.")
    assert not r.is_game and "Write a Python script" in r.refusal
    r = read("Make the agent negotiate a peace treaty with the other side.")
    assert not r.is_game and ("negotiate" in r.refusal or "peace treaty" in r.refusal)


@pytest.mark.parametrize("query,limit", [
    ("Bombers raid your 3 solar collectors every 70 seconds, and the game is won at 5:00 if one collector survives.", 300),
    ("Waves from the north every minute; you win at 4:30 with your commander alive.", 270),
])
def test_the_moment_a_game_is_won_is_its_end_not_an_attack(query, limit):
    c = read(query).concepts
    assert c.time_limit == limit and limit not in c.wave_times


@pytest.mark.parametrize("phrase,start", [
    ("2 anti-air turrets are pre-built", {"aa_turret": 2}),
    ("three light turrets already stand by the gate", {"light_turret": 3}),
    ("4 light tanks and a heavy tank are already in place", {"light_tank": 4, "heavy_tank": 1}),
])
def test_units_already_on_the_map_are_the_player_s_start(phrase, start):
    c = read(f"Survive 5 minutes against waves from the east; {phrase}.").concepts
    assert c.player_start == start


def test_a_drawn_start_holds_the_named_start_forces_once():
    from genesis.offline.gdd_writer import design

    query = ("Produce 3 heavy tanks and 6 light bots within 5 minutes, starting with a commander and one constructor "
             "bot; no enemy units on the map.")
    brief = _brief(query)
    gdd = design(brief)
    assert brief.concepts.unopposed
    player = next(t for t in gdd.teams if t.id == 0)
    layouts = [lay for comp in gdd.rule_components for lay in comp.params.get("layouts") or []]
    if layouts:      # the start is drawn: the layouts hold it, the team holds none of it
        assert not [u for u in player.units if u.type in ("commander", "constructor_bot")]
        for lay in layouts:
            ours = {}
            for u in lay["units"]:
                if u["team"] == 0:
                    ours[u["type"]] = ours.get(u["type"], 0) + u.get("count", 1)
            assert ours == {"commander": 1, "constructor_bot": 1}, lay
    else:
        assert sorted(u.type for u in player.units for _ in range(u.count)) == ["commander", "constructor_bot"]


def test_a_stated_first_wave_then_an_interval_runs_the_interval_through_the_game():
    from genesis.offline.gdd_writer import design

    brief = _brief("The first party comes from the east at the forty-five-second mark, and each minute after that "
                   "another, double the one before; survive until 5:00.")
    comp = next(c for c in design(brief).rule_components if c.id == "escalating_waves")
    assert comp.params["first_at"] == 45 and comp.params["interval"] == 60 and comp.params["count"] == 5
    gdd = design(brief)
    assert all(r.expect for r in gdd.requirements if r.testable)


@pytest.mark.parametrize("query,archetype", [
    ("Escort 3 supply wagons from the north edge to the south edge within 4 minutes; ambushes lie in wait.", "escort"),
    ("Your light tank has to make it from the top side of the map to the bottom side in 150 seconds.", "escort"),
    ("Three enemy solar collectors hide in the fog; your scout has until 2:00 to have laid eyes on all of them.", "recon"),
    ("Send one scout to track down where each of their four storages stands before 3:00.", "recon"),
    ("Stash away twelve hundred and fifty energy within four minutes.", "resources"),
    ("The hilltop is what matters: keep units on it and no enemy near it for 90 seconds, before 8:00.", "capture"),
    ("Two computer-run allies fight alongside me against three hostile armies; last side standing wins.", "teams"),
    ("Five clans, each one hostile to every other; the last clan with units alive wins.", "ffa"),
    ("The enemy's bunker sits behind a wall of turrets; reduce it to ashes before 7:00.", "siege"),
])
def test_games_said_in_other_words_are_read_as_their_family(query, archetype):
    r = read(query)
    assert r.is_game and r.concepts.archetype == archetype, (r.refusal, r.concepts.archetype)


def test_an_ordinal_second_is_no_game_length():
    c = read("A column comes from the east at 1:30; a second, bigger one follows from the west. Survive 6 minutes.").concepts
    assert c.time_limit == 360


@pytest.mark.parametrize("phrase,times", [("at one, three and a half and five minutes", [60, 210, 300]),
                                          ("on the one-and-a-half and four-minute marks", [90, 240])])
def test_a_list_of_moments_with_halves_reads_every_moment(phrase, times):
    c = read(f"Enemy raiders strike your extractors {phrase}; survive 6 minutes.").concepts
    assert sorted(c.wave_times) == times


def test_a_clause_read_only_for_its_time_is_not_honoured_whole():
    brief = _brief("Waves come from the north. Crush their morale completely before 6:00.")
    (clause,) = [c for c in brief.clauses if "morale" in c.text]
    assert clause.status != "honoured" and "morale" in clause.why


@pytest.mark.parametrize("query,size", [("3v3 on the crossroads, no production; the last team standing wins.", 3),
                                        ("Two versus two: the last side standing wins.", 2)])
def test_last_side_standing_in_a_team_battle_keeps_its_teams(query, size):
    c = read(query).concepts
    assert c.archetype == "teams" and c.team_size == size


def test_raids_at_an_interval_from_a_stated_first_time_start_then_and_are_evidenced():
    from genesis.offline.gdd_writer import design

    gdd = design(_brief("Defend against light tank raids from the north-east, one every 70 seconds starting at 0:50; "
                        "survive until 6:00."))
    params = next(c.params for c in gdd.rule_components if c.id in ("periodic_raids", "composed_raids"))
    first = {k: v for k, v in params.items() if k.endswith("first_at")}
    every = {k: v for k, v in params.items() if k.endswith("interval") or k.endswith("every")}
    assert list(first.values()) == [50] and list(every.values()) == [70]
    assert "light_tank" in str(params)
    assert all(r.expect for r in gdd.requirements if r.testable)


def test_a_time_between_two_events_is_no_game_length():
    c = read("A column comes from the east at 1:00; a second one follows a minute later from the west; survive "
             "6 minutes.").concepts
    assert c.time_limit == 360


def test_waves_of_a_type_the_request_names_do_not_bring_unnamed_units_as_honoured():
    brief = _brief("Bomber waves hit your base at 1:30 and 3:00; survive until 5:00.")
    (clause,) = [c for c in brief.clauses if "Bomber" in c.text]
    assert clause.status == "partial" and "does not name" in clause.why


def test_a_convoy_that_has_to_reach_a_place_is_an_escort_of_its_count():
    c = read("Four cargo trucks roll out of the western rim and have to reach the outpost on the eastern rim within "
             "five minutes; raiders lie in wait.").concepts
    assert c.archetype == "escort" and c.escort_count == 4


def test_a_stock_sitting_in_store_is_a_resource_goal():
    c = read("Have nine hundred metal sitting in store by the four-minute mark.").concepts
    assert c.archetype == "resources" and c.resource_amount == 900


def test_infrastructure_work_is_refused_naming_it():
    r = read("Make an RTS map where the agent wins by writing a Terraform plan for three servers.")
    assert not r.is_game and "Terraform" in r.refusal


def test_both_flanks_at_one_time_are_two_attacks_at_that_time():
    c = read("Waves hit your left flank at 1:10, your right flank at 2:20, then both flanks at 3:30; survive 5 "
             "minutes.").concepts
    assert list(zip(c.directions, c.direction_times)) == [("left", 70), ("right", 140), ("left", 210), ("right", 210)]


def test_rides_is_not_a_typo_of_riders():
    assert "rides out" in read("The enemy commander rides out with raiders at 2:00; survive 5 minutes.").text


@pytest.mark.parametrize("query, target", [
    ("Over on the west side the enemy has entrenched itself around a fusion reactor; blow it up before 7:00 with "
     "your 9 light tanks.", "fusion_reactor"),
    ("They're holed up in a bot lab ringed by turrets; knock it down within five minutes.", "bot_lab"),
])
def test_a_siege_said_as_the_enemy_dug_in_around_its_target(query, target):
    c = read(query).concepts
    assert (c.archetype, c.objective_type) == ("siege", target)


def test_a_place_that_spits_out_units_sends_them_and_a_factory_that_does_produces_them():
    sent = read("From 0:45 the eastern ridge spits out a squad of raider bots every 70 seconds; survive 5 minutes.")
    assert sent.concepts.archetype != "production" and not sent.concepts.target_composition
    made = read("Crank out nine light tanks before the six-minute mark.")
    assert made.concepts.archetype == "production" and made.concepts.target_composition == {"light_tank": 9}


def test_what_an_economy_drill_starts_with_is_no_goal_to_produce():
    c = read("Economy drill, no enemies: beginning with a commander and two constructor bots, have 2,500 metal "
             "stockpiled by minute 6.").concepts
    assert (c.archetype, c.resource_amount, c.player_start) == (
        "resources", 2500.0, {"commander": 1, "constructor_bot": 2})
    assert not c.target_composition


def test_both_kept_said_with_more_words_between_is_a_count_of_two():
    c = read("Waves come from the south every minute until 6:00, and both of your radar towers have to still be "
             "standing.").concepts
    assert c.objectives == 2


@pytest.mark.parametrize("query, expected", [
    ("They've bunkered down around a bot lab past the ridge; turn it into rubble within 8 minutes with the five "
     "assault bots you're given.",
     {"archetype": "siege", "objective_type": "bot_lab", "player_start": {"assault_bot": 5}, "deadline": 480.0}),
    ("Five of us on the map, me and four computer rivals, and nobody trusts anybody; most kills at 9:00 wins.",
     {"archetype": "ffa", "teams": 5}),
    ("Divide six armies into two camps: mine plus two AI friends in the west, the rest in the east.",
     {"archetype": "teams", "team_size": 3}),
    ("The bridge is the prize: have your guys parked on it with not a single foe there for 80 seconds; if 6 "
     "minutes go by without that, you lose.",
     {"archetype": "capture", "hold_time": 80.0, "deadline": 360.0}),
    ("Their two radar towers hide somewhere in the murk; your lone scout has until 3:00 to have glimpsed each of them.",
     {"archetype": "recon", "locate_type": "radar_tower", "locate_count": 2, "deadline": 180.0}),
    ("Three light tanks and a pair of rocket bots; twelve raider bots come at them from a random side; it's won once "
     "every last raider is down, with at most one of yours lost.",
     {"archetype": "micro", "squad": {"light_tank": 3, "rocket_bot": 2}, "enemy_force": {"raider_bot": 12},
      "max_losses": 1}),
])
def test_games_said_in_plain_words_are_read_with_their_numbers(query, expected):
    reading = read(query)
    assert reading.is_game
    got = reading.concepts.model_dump()
    assert {k: got[k] for k in expected} == expected


@pytest.mark.parametrize("query, kept, requirement", [
    ("Raider waves come from the west at 1:00 and 2:30; survive until 4:00, and you lose if your radar tower is "
     "destroyed.", "radar_tower", "objective_loss"),
    ("Waves of light bots every minute from the north for 5 minutes; if the metal storage falls, it's over.",
     "metal_storage", "objective_loss"),
    ("Walk your heavy tank from the west edge to the east edge within 3 minutes; if it dies you've failed.",
     "heavy_tank", "protect_unit"),
])
def test_a_loss_said_as_what_must_not_be_lost_is_built_and_honoured(query, kept, requirement):
    brief = write_brief(query, read(query))
    said = next(c for c in brief.clauses if re.search(r"lose if|falls|dies", c.text))
    assert said.status == "honoured" and requirement in said.requirement_ids
    gdd = design(brief)
    assert any(requirement == r.id for r in gdd.requirements)
    assert any(u.type == kept for t in gdd.teams if t.id == 0 for u in t.units) or kept in str(gdd.rule_components)


def test_raids_that_cart_metal_off_every_hundred_and_ten_seconds_are_thefts_on_that_interval():
    c = read("Every hundred and ten seconds a pack of raider bots creeps in from the east and hauls off sixty metal; "
             "keep at least two of your five extractors on their feet until 6:00.").concepts
    assert (c.archetype, c.wave_interval, c.theft) == ("raids", 110.0, 60.0)
    assert (c.objectives, c.keep_objectives) == (5, 2)


@pytest.mark.parametrize("query, fog, production", [
    ("A 1v1v1 on the crossroads map, production and fog both off; last one standing wins.", False, False),
    ("Free-for-all with 3 armies, fog and production are both enabled.", True, True),
    ("Destroy the enemy bot lab within 6 minutes; you have 5 light tanks and cannot build.", None, False),
])
def test_switches_said_together_or_as_a_ban_on_building(query, fog, production):
    c = read(query).concepts
    assert c.production is production and (fog is None or c.fog is fog)


@pytest.mark.timeout(60)
def test_raids_that_hunt_an_armed_commander_are_designed_in_bounded_time():
    # raids on a commander (an armed objective) grow the waves; the raid defence grew with them forever
    q = ("Fog on: light tanks attack from the west at 2:00, bombers raid from the south at 3:30; you start with a "
         "constructor bot and 4 assault bots, and your commander must survive until 5:00.")
    gdd = design(write_brief(q, read(q)))
    assert any(r.id == "protect_unit" or r.id == "objective_loss" for r in gdd.requirements)


def test_waves_every_interval_stop_before_the_game_ends():
    # waves every 60 s from 1:00 in a 6-minute game: the one due at 6:00 never comes, so five are built
    brief = _brief("Hold out 6 minutes against growing waves of light tanks every 60 seconds from a random edge, "
                   "the first at 1:00.")
    comp = next(c for c in design(brief).rule_components if c.id == "escalating_waves")
    last = comp.params["first_at"] + comp.params["interval"] * (comp.params["count"] - 1)
    assert comp.params["count"] == 5 and last + comp.params.get("jitter", 0) < 360


@pytest.mark.parametrize("query, expected", [
    ("Production race against a 3:45 deadline: 4 light tanks and 2 rocket bots, no enemies.",
     {"archetype": "production", "deadline": 225.0}),
    ("Raze their bot lab; you've got until the ten-minute whistle.", {"archetype": "siege", "deadline": 600.0}),
    ("Claim the eastern bridge and keep it clear of anything of theirs for ninety seconds running; raiders come "
     "every minute; all inside seven minutes.", {"archetype": "capture", "hold_time": 90.0, "deadline": 420.0}),
    ("Energy has to be flowing in at 40 a second before the clock shows four minutes twenty.",
     {"archetype": "resources", "resource_income": True, "resource_amount": 40.0, "deadline": 260.0}),
    ("Four sides, each on its own; whoever's commander outlives all the others wins.",
     {"archetype": "ffa", "elimination": "commanders"}),
])
def test_deadlines_goals_and_endings_said_in_other_words(query, expected):
    got = read(query).concepts.model_dump()
    assert {k: got[k] for k in expected} == expected


def test_a_round_amount_corrected_at_once_and_a_deadline_by_the_time_it_passes():
    c = read("Stockpile a couple of thousand metal, twenty-four hundred to be exact, by the time four minutes have "
             "passed.").concepts
    assert (c.archetype, c.resource_amount, c.deadline) == ("resources", 2400.0, 240.0)


@pytest.mark.parametrize("query, expected", [
    ("How fast can the agent get six light tanks into the field? Deadline 5:00.",
     {"archetype": "production", "target_composition": {"light_tank": 6}}),
    ("Me versus 3 computer players, all of us enemies of one another; last one standing wins.",
     {"archetype": "ffa", "teams": 4}),
    ("Four armies divided into two camps of two, mine plus one AI friend in the south.",
     {"archetype": "teams", "team_size": 2}),
    ("The enemy has hidden three radar towers in the fog; your scout has until 3:00 to catch sight of every one.",
     {"archetype": "recon", "locate_type": "radar_tower", "locate_count": 3}),
    ("recon drill - locate the 2 hiden enemy bot labs under fog with one scout",
     {"archetype": "recon", "locate_type": "bot_lab", "locate_count": 2}),
])
def test_more_games_said_in_other_words(query, expected):
    reading = read(query)
    assert reading.is_game
    got = reading.concepts.model_dump()
    assert {k: got[k] for k in expected} == expected


def test_an_attack_that_darts_at_a_target_is_an_attack():
    reading = read("From 0:50 and every 80 seconds after that, a raider squad darts at one of your three solar "
                   "collectors; all three must still be standing at 6:00.")
    assert reading.is_game and reading.concepts.wave_interval == 80.0


def test_a_convoy_that_must_end_up_somewhere_with_the_time_you_have_got():
    c = read("Three trucks leave from the top-left corner and have to end up in the bottom-right one, past ambushers; "
             "you've only got four minutes.").concepts
    assert (c.archetype, c.escort_count, c.escort_from, c.escort_to, c.deadline) == ("escort", 3, "nw", "se", 240.0)


@pytest.mark.parametrize("query, said", [
    ("Hold out for minus three minutes against waves from the north.", "minus three minutes"),
    ("Defend against raids every zero seconds from the east until 5:00.", "every zero seconds"),
    ("A free-for-all of five armies on a map of zero tiles.", "map of zero tiles"),
])
def test_a_request_for_what_no_game_can_have_is_refused_naming_it(query, said):
    reading = read(query)
    assert not reading.is_game and f'"{said}"' in reading.refusal


def test_ordinary_words_near_those_are_not_refused():
    for query in ("Survive endless waves from the north for 5 minutes.", "Waves from the west; lose no more than "
                  "zero storages until 4:00.", "Minus the scouts, you start with 6 light tanks; hold the hill for 90 s."):
        assert read(query).is_game, query


def test_a_group_word_after_the_unit_and_vision_said_as_the_units_own_sight():
    c = read("An assault bot trio and nothing else; 9 light bots come at them from a random side. Your troops' own "
             "sight is all you get.").concepts
    assert c.fog is True and c.squad == {"assault_bot": 3}


@pytest.mark.parametrize("query,drawn", [
    ("One attack hits you at two minutes, and it could come from the east or from the west; survive 5 minutes.", True),
    ("Waves from the north or the south every minute; hold for four minutes.", True),
    ("An attack comes from the north at 1:00 and nobody tells you which side the next one takes; survive 4 minutes.",
     True),
    ("Waves from the north and the east every minute; hold for four minutes.", False),
])
def test_named_sides_joined_by_or_are_one_side_drawn_per_attack(query, drawn):
    c = read(query).concepts
    assert bool(c.random_side) is drawn
    if drawn and "east or" in query:
        assert read("The enemy is going to hit you once; it could come from the east or from the west. Survive 5 "
                    "minutes.").concepts.waves == 1
        gdd = design(_brief(query))
        raids = next(r for r in gdd.rule_components if r.library_rule in ("periodic_raids", "staggered_waves"))
        assert set(raids.params.get("sides") or raids.params.get("fronts")) == {"east", "west"}


def test_survive_until_a_time_in_a_free_for_all_is_partial_a_ranking_by_survival_is_honoured():
    # a ranking by survival ranks the teams still alive by the hp they keep: staying alive alone does not win
    goal = {cl.text.strip(): cl for cl in _brief("Three-way free-for-all, each side with 6 light tanks. Survive until "
                                                 "10:00.").clauses}
    assert goal["Survive until 10:00."].status == "partial" and "hp they keep" in goal["Survive until 10:00."].why
    ranked = _brief("Three-way free-for-all, each side with 6 light tanks, ranked by survival after 8 minutes.")
    assert all(cl.status == "honoured" for cl in ranked.clauses)
