"""The offline reader on the player's reinforcements, several zones held at once, growth said as a step,
raids made of bombers and sides said as NvN: each is built as asked or recorded partial, never honoured
while the level does something else."""
from __future__ import annotations

import pytest

from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design, wave_types


def _brief(query: str):
    return write_brief(query, read(query), [])


def _clause(brief, words: str):
    return next(c for c in brief.clauses if words in c.text)


@pytest.mark.parametrize("query, times", [
    ("Defend your base against three waves; you get reinforcements at 2:00.", [120]),
    ("Survive waves from the east and west; reinforcements arrive at 3:00 and 6:00, the game lasts 8 minutes.",
     [180, 360]),
    ("Hold the base against waves from the north. Our relief column arrives at 4:30.", [270]),
])
def test_timed_reinforcements_are_the_player_s_and_never_an_attack(query, times):
    brief = _brief(query)
    c = brief.concepts
    assert c.reinforcements == times and not set(times) & set(c.wave_times)
    assert "reinforcements" in {r.id for r in brief.requirements}
    gdd = design(brief)
    (rule,) = [comp for comp in gdd.rule_components if comp.library_rule == "reinforcements"]
    assert rule.params["team"] == 0 and rule.params["times"] == times


def test_surviving_until_reinforcements_come_is_surviving_until_then():
    c = _brief("Hold out until reinforcements show up at the 5 minute mark against waves from the north.").concepts
    assert c.time_limit == 300 and 300 not in c.wave_times and not c.reinforcements


def test_the_enemy_s_own_reinforcements_are_partial_and_a_window_is_no_game_length():
    brief = _brief("I get reinforcements dropped at 2:00 and the enemy gets theirs at 3:00, so I have a one minute "
                   "window to push their base.")
    assert brief.concepts.reinforcements == [120] and not {120, 180} & set(brief.concepts.wave_times)
    assert _clause(brief, "the enemy gets theirs").status == "partial"
    window = _clause(brief, "window")
    assert window.status != "honoured" and brief.concepts.time_limit != 60


@pytest.mark.parametrize("query", [
    "Scatter five capture zones around the map; first side to hold any three of them for sixty seconds straight wins.",
    "Four control points: keep all three of the northern ones for 90 seconds to win.",
])
def test_holding_several_zones_at_once_is_partial(query):
    brief = _brief(query)
    assert brief.concepts.archetype == "capture"
    held = _clause(brief, "hold" if "hold" in query else "keep")
    assert held.status == "partial" and "zones at once is not built" in held.why


def test_control_points_are_a_capture():
    assert _brief("Three control points on the map; fog of war on.").concepts.archetype == "capture"


@pytest.mark.parametrize("query, sizes", [
    ("Hold my base against five waves of light tanks, each wave two units bigger than the one before.", [3, 5, 7, 9, 11]),
    ("Defend against four waves, starting at 4 units and each wave two bigger than the last.", [4, 6, 8, 10]),
    ("Five waves, each wave 3 units strong.", [3, 3, 3, 3, 3]),
])
def test_a_step_between_waves_is_growth_not_a_size(query, sizes):
    assert read(query).concepts.wave_sizes == sizes


def test_what_may_not_be_built_is_no_objective():
    c = read("base defense, attacks every 1:30, player starts with three turrets and can't build a factory").concepts
    assert c.objective_type != "bot_lab" and c.production is False


def test_bomber_raids_at_an_interval_are_made_of_bombers():
    brief = _brief("Bombers come for my factories, a new group every two and a half minutes from a random direction.")
    assert wave_types(brief.concepts) == {"bomber"}
    raids = next(comp for comp in design(brief).rule_components if comp.library_rule == "periodic_raids")
    assert raids.params["unit_type"] == "bomber" and raids.params["interval"] == 150
    assert not [comp for comp in design(brief).rule_components if comp.library_rule == "air_raid"]


def test_sides_said_as_nvn_make_teams_even_in_a_free_for_all():
    c = read("3v3 free for all between teams, last team standing wins").concepts
    assert c.archetype == "teams" and c.team_size == 3


@pytest.mark.parametrize("query", ["eh just make something where my tanks fight some bots idk",
                                   "my tanks against their bots"])
def test_two_armies_named_without_counts_are_a_skirmish_with_counts_said_as_assumed(query):
    brief = _brief(query)
    c = brief.concepts
    assert c.archetype == "micro" and c.squad == {"light_tank": 6} and set(c.enemy_force) == {"light_bot"}
    assert any(cl.status == "assumed" and "no counts given" in cl.why for cl in brief.clauses)


def test_ground_units_against_aircraft_without_counts_is_partial():
    brief = _brief("idk just some tanks vs planes thing")
    assert brief.concepts.archetype != "micro"
    assert _clause(brief, "tanks vs planes").status == "partial"


def test_endless_attacks_run_to_the_end_and_faster_ones_close_their_gaps():
    c = read("Hold out until reinforcements show up at the 5 minute mark; the enemy spawns endlessly until then "
             "and gets faster over time.").concepts
    gaps = [b - a for a, b in zip(c.wave_times, c.wave_times[1:])]
    assert c.time_limit == 300 and c.wave_times[-1] < 300 and gaps == sorted(gaps, reverse=True) and gaps[0] > gaps[-1]


def test_the_hidden_base_search_ends_on_the_unit_seen():
    c = read("Find the hidden enemy base in heavy fog with only two scouts; the mission ends the moment one of them "
             "sees the enemy commander.").concepts
    assert c.archetype == "recon" and c.locate_type == "commander" and "heavy" not in c.unit_kinds
    assert c.player_start == {"scout": 2}


def test_the_way_attackers_travel_is_partial_and_every_one_going_down_is_the_loss():
    brief = _brief("Fast raiders slip around the edges of the map to hit my metal storages, and I lose if every "
                   "storage goes down.")
    assert _clause(brief, "slip around").status == "partial" and "route is not built" in _clause(brief, "slip").why
    assert brief.concepts.keep_objectives == 1 and _clause(brief, "every storage").status == "honoured"


def test_the_player_s_own_aircraft_and_a_degree_of_fog_are_partial():
    brief = _brief("Defend the base for three minutes using a single fast aircraft in heavy fog.")
    assert "own aircraft are not built" in _clause(brief, "aircraft").why
    assert any("plain fog of war" in cl.why and cl.status == "partial" for cl in brief.clauses)
