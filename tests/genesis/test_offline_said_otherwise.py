"""The offline reader on clauses a request says in words of its own rather than the family vocabulary's: waves
that grow by any comparative ("each a bit nastier than the last"), attacks counted by the groups that make them
("four columns of tanks hit"), a time on the clock or a time framed by a cap ("when the timer reads 7:30",
"nine minutes max"), a loss said as what an objective's destruction means, a squad or every side's army listed
with "plus", a fight with the squad's qualities between the two armies. Each reading must also give a brief in
which the clause is honoured, never partial or not honoured for words the reader did read."""
from __future__ import annotations

import pytest

from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read


def _brief(query: str):
    reading = read(query)
    assert reading.refusal is None, reading.refusal
    return write_brief(query, reading)


def _unhonoured(brief) -> list[str]:
    return [f"{c.status}: {c.text} ({c.why})" for c in brief.clauses if c.status != "honoured"]


@pytest.mark.parametrize("query", [
    "Hold the outpost for 7 minutes against waves every minute, each a bit nastier than the last.",
    "Attacks every 50 seconds from the west, each one far tougher than its predecessor; survive until 6:00.",
])
def test_waves_that_grow_by_any_comparative_escalate(query):
    brief = _brief(query)
    assert brief.concepts.escalating
    assert not _unhonoured(brief)


def test_attacks_counted_by_the_groups_that_make_them():
    brief = _brief("Four columns of light tanks hit the outpost, one every ninety seconds; it has to stand for 7 "
                   "minutes.")
    assert brief.concepts.waves == 4
    assert not _unhonoured(brief)


@pytest.mark.parametrize("query,seconds", [
    ("Keep the metal_storage standing against raids from the east until the timer reads 7:30.", 450),
    ("Waves from the south every minute; your commander must still be alive when the clock shows five.", 300),
])
def test_a_time_on_the_clock_ends_the_game(query, seconds):
    brief = _brief(query)
    assert brief.concepts.time_limit == seconds
    assert not _unhonoured(brief)


def test_the_unit_that_must_still_be_alive_is_kept_alive():
    brief = _brief("Waves from the south every minute; your commander must still be alive when the clock shows five.")
    assert brief.concepts.protect_unit == "commander" or brief.concepts.objective_type == "commander"


@pytest.mark.parametrize("query", [
    "Destroy the enemy vehicle_plant behind two heavy turrets; nine minutes max.",
    "Destroy the enemy vehicle_plant behind two heavy turrets; a twelve-minute cap.",
])
def test_a_time_framed_by_a_cap_is_the_whole_clause(query):
    assert not _unhonoured(_brief(query))


def test_you_have_a_time_and_something_else_is_a_deadline():
    brief = _brief("Get the convoy of two trucks to the western edge; you have four minutes and the road is mined "
                   "by nobody.")
    assert brief.concepts.deadline == 240


@pytest.mark.parametrize("query", [
    "Defend the vehicle_plant against waves from the north every 60 seconds for six minutes; losing the plant "
    "ends the game.",
    "Defend the radar_tower against waves from the east every 45 seconds for five minutes; its loss means defeat.",
    "Please keep the metal_storage intact for six minutes while raiders come from the west every minute.",
])
def test_a_loss_said_as_what_the_objective_s_destruction_means_is_the_objective_s(query):
    brief = _brief(query)
    assert brief.concepts.objective_type in ("vehicle_plant", "radar_tower", "metal_storage")
    assert not _unhonoured(brief)


@pytest.mark.parametrize("query,squad,enemy", [
    ("three rocket bots plus two light tanks against six assault bots, nothing built", {"rocket_bot": 3,
                                                                                       "light_tank": 2},
     {"assault_bot": 6}),
    ("Four artillery bots, slow and fragile, against ten light bots; kill them all.", {"artillery_bot": 4},
     {"light_bot": 10}),
])
def test_a_squad_listed_with_plus_or_described_before_its_foe(query, squad, enemy):
    brief = _brief(query)
    assert (brief.concepts.archetype, brief.concepts.squad, brief.concepts.enemy_force) == ("micro", squad, enemy)


@pytest.mark.parametrize("query,army", [
    ("Five-way free-for-all, each clan a commander plus three light tanks, last one standing wins.",
     {"commander": 1, "light_tank": 3}),
    ("Two against two, everybody on identical forces of 6 rocket bots, no production; last alliance standing wins.",
     {"rocket_bot": 6}),
])
def test_every_side_s_army_said_without_a_verb(query, army):
    brief = _brief(query)
    assert brief.concepts.side_army == army
    assert not [u for u in _unhonoured(brief) if "rocket bots" in u or "light tanks" in u]


@pytest.mark.parametrize("query", [
    "Escort the constructor_vehicle from the west edge to the east edge within six minutes; she cannot be allowed "
    "to die.",
    "Raids on your extractors every 70 seconds from a side we can't predict; the metal_storage must stand for 8 "
    "minutes.",
    "Waves hit the base at 2:00 and 4:00; find out where the enemy is massing and keep the commander breathing "
    "till 6:00.",
    "Five rocket bots against seven light bots with no base and no factory; the whole thing is over at two "
    "minutes.",
    "Take the hill and hold it for ninety seconds, but if ten minutes go by first, it's a loss.",
    "The enemy warlord's fusion_reactor sits behind light turrets in the north; wreck it inside nine minutes.",
])
def test_clauses_said_in_words_of_their_own_are_honoured(query):
    assert not _unhonoured(_brief(query))


def test_a_unit_that_cannot_be_allowed_to_die_is_kept_alive():
    c = _brief("Escort the constructor_vehicle from the west edge to the east edge within six minutes; she cannot "
               "be allowed to die.").concepts
    assert c.archetype == "escort" and c.deadline == 360


def test_a_side_nobody_can_predict_is_drawn_and_no_base_means_nothing_is_built():
    assert _brief("Raids on your extractors every 70 seconds from a side we can't predict; the metal_storage must "
                  "stand for 8 minutes.").concepts.random_side
    assert _brief("Five rocket bots against seven light bots with no base and no factory; the whole thing is over "
                  "at two minutes.").concepts.production is False


def test_each_side_fielding_an_army_after_the_count_of_sides():
    c = _brief("Seven armies, all against all, each fielding three light tanks; last side with anything alive "
               "wins.").concepts
    assert (c.archetype, c.side_army) == ("ffa", {"light_tank": 3})


def test_an_attack_window_between_counted_minutes():
    brief = _brief("Look around first, then hold: a single raid lands from a side you never looked at, at some point "
                   "between the third and fifth minute.")
    assert brief.concepts.attack_window == [180.0, 300.0]
    assert not _unhonoured(brief)


def test_a_ranking_by_how_much_health_a_side_keeps():
    brief = _brief("Five armies, nobody allied, brawl for 7 minutes and get ranked on how much health every army "
                   "still has.")
    assert brief.concepts.ranking == "hp_remaining"
    assert not _unhonoured(brief)


def test_a_searcher_not_to_get_killed_is_kept_alive():
    brief = _brief("Fog of war on: take one scout, spot the three hidden radar towers inside five minutes, and "
                   "never get the scout destroyed.")
    assert (brief.concepts.archetype, brief.concepts.protect_unit) == ("recon", "scout")
    assert not _unhonoured(brief)


def test_counterattacks_on_a_held_zone_said_by_their_sides_and_interval_are_scheduled():
    brief = _brief("Take the hilltop and keep it for four minutes while armoured columns hit you from the west "
                   "and the south, one every two minutes.")
    c = brief.concepts
    assert c.archetype == "capture"
    assert c.direction_times and all(b - a == 120 for a, b in zip(c.direction_times, c.direction_times[1:]))
    assert c.directions[:2] == ["w", "s"] and len(c.directions) == len(c.direction_times)
    assert {"directions", "front_times"} <= {r.id for r in brief.requirements}
    assert not _unhonoured(brief)


def test_the_kind_the_player_acts_with_is_never_the_attackers():
    c = _brief("Seize the crossroads with light tanks and sit there for ninety seconds while the enemy "
               "counterattacks every 45 seconds from the east.").concepts
    assert "light_tank" not in c.wave_units


@pytest.mark.parametrize("query, losses", [
    ("Four assault bots versus nine light bots in the open: win by wiping them out, losing no more than one of "
     "mine.", 1),
    ("two heavy tanks against eight light bots, destroying every one of them; you can't lose more than one", 1),
])
def test_a_skirmish_won_by_wiping_them_out_with_a_cap_said_of_mine(query, losses):
    brief = write_brief(query, read(query))
    assert brief.concepts.archetype == "micro" and brief.concepts.max_losses == losses
    assert all(c.status == "honoured" for c in brief.clauses), [(c.text, c.why) for c in brief.clauses]


def test_terse_notes_an_ordinal_for_the_first_wave_and_hold_on_the_objective():
    query = "hold the outpost. 3 waves. a minute apart. first at 0:40. all from the west."
    brief = write_brief(query, read(query))
    assert all(c.status == "honoured" for c in brief.clauses), [(c.text, c.why) for c in brief.clauses]
    assert (brief.concepts.waves, brief.concepts.wave_interval, brief.concepts.directions) == (3, 60.0, ["w"])


def test_a_time_in_a_clause_without_any_attack_named_is_still_no_attack():
    query = "the depot must still be standing at 5:00. first, build a wall. waves from the north."
    brief = write_brief(query, read(query))
    assert any(c.status != "honoured" for c in brief.clauses)
