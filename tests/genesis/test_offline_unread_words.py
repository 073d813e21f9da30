"""A clause is honoured only when nothing it asks went unread: a place, a qualifier or a change of the game
that no phrase of the reader took in leaves it partial, naming the words; a clause that goes on from one not
built is not honoured in full; intervals said as "at N-second intervals" are read."""
import pytest

from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read


def _clauses(query: str) -> dict[str, tuple[str, str]]:
    brief = write_brief(query, read(query))
    return {cl.text.strip(" ,;:.!?"): (cl.status, cl.why) for cl in brief.clauses}


@pytest.mark.parametrize("query, word", [
    ("Hold out against five waves from the west up on the ridge", "ridge"),
    ("Defend the lighthouse-side base entirely alone against 4 waves from the north", "entirely"),
    ("Destroy the enemy factory on the island in the north-east within 6 minutes", "island"),
])
def test_a_word_that_asks_for_what_nothing_read_leaves_its_clause_partial_and_is_named(query, word):
    (status, why), = _clauses(query).values()
    assert status == "partial" and word in why


def test_the_same_clauses_without_the_unread_words_are_honoured():
    for query in ("Hold out against five waves from the west", "Destroy the enemy factory in the north-east within "
                  "6 minutes"):
        assert {s for s, _ in _clauses(query).values()} == {"honoured"}, _clauses(query)


def test_how_attacks_come_and_how_people_type_ask_for_nothing_more():
    said = _clauses("gimme waves rolling in from the west roughly every minute, and survive 5 minutes")
    assert {s for s, _ in said.values()} == {"honoured"}, said


def test_a_clause_pointing_back_at_one_not_built_is_not_honoured():
    said = _clauses("Defend against 3 waves from the east; my ally's outpost gets shelled from minute two, "
                    "and if it falls I lose")
    assert said["Defend against 3 waves from the east"][0] == "honoured"
    status, why = said["and if it falls I lose"]
    assert status != "honoured"


def test_a_list_item_of_a_list_not_built_is_not_honoured():
    said = _clauses("Every minute the unit type I may build changes: bots, then tanks, then aircraft, and raiders "
                    "come from the south")
    status, why = said["then aircraft"]
    assert status == "partial" and "goes on from" in why
    # a clause after "then" with a verb of its own is a clause, not an item
    said = _clauses("Defend from the east for 2 minutes, then survive 4 more")
    assert all(not why.startswith("it goes on") for _, why in said.values())


@pytest.mark.parametrize("query, interval", [
    ("Survive 6 waves of light bots from the east at 50-second intervals", 50),
    ("Raiders hit your extractors at intervals of two minutes; survive 8 minutes", 120),
    ("waves from the north in 90 second intervals, hold for six minutes", 90),
])
def test_an_interval_said_as_intervals_is_the_waves_interval(query, interval):
    r = read(query)
    assert r.concepts.wave_interval == interval
    assert "honoured" in {cl.status for cl in write_brief(query, r).clauses}


def test_attacks_from_all_four_corners_not_read_as_four_sides_are_partial_but_the_corner_map_is_a_map():
    said = _clauses("bots storm in from all 4 corners once a minute; survive 5 minutes")
    status, why = said["bots storm in from all 4 corners once a minute"]
    assert status == "partial" and "four corners" in why
    assert {s for s, _ in _clauses("a 4 player brawl on the four corners map").values()} == {"honoured"}


def test_chat_spelling_is_read_as_the_words_it_stands_for():
    r = read("if ur commander goes down u lose, survive 4 minutes")
    assert r.concepts.protect_unit == "commander" or r.concepts.objective_type == "commander"
    assert {s for s, _ in _clauses("if ur commander goes down u lose, survive 4 minutes").values()} == {"honoured"}


@pytest.mark.parametrize("loss", ["lose the commander and its over", "if u lose ur commander its game over",
                                  "lose your commander, you lose"])
def test_losing_a_named_unit_said_as_an_imperative_is_the_loss(loss):
    query = f"survive 5 minutes against waves from the west; {loss}"
    r = read(query)
    assert "commander" in (r.concepts.protect_unit, r.concepts.objective_type)
    assert _clauses(query)[loss][0] == "honoured"


@pytest.mark.parametrize("growth", ["keep getting nastier", "grow ever deadlier", "become increasingly vicious"])
def test_waves_said_to_get_stronger_in_any_words_escalate(growth):
    assert read(f"survive 6 minutes against tank waves that {growth}").concepts.escalating


def test_a_siege_army_said_as_what_the_player_uses_is_the_players_and_counted_guards_are_the_garrison():
    c = read("Raze the enemy plant in the south within 5 minutes using 6 heavy tanks and 2 artillery bots").concepts
    assert c.player_start == {"heavy_tank": 6, "artillery_bot": 2} and "heavy_tank" not in c.wave_units
    from genesis.offline.gdd_writer import design
    query = "Destroy their radar tower, held by 5 rocket bots, before 6:00"
    brief = write_brief(query, read(query))
    assert brief.concepts.garrison == {"rocket_bot": 5}
    enemy = next(t for t in design(brief).teams if t.id == 1)
    assert sum(u.count for u in enemy.units if u.type == "rocket_bot") == 5


def test_endless_attacks_reach_the_end_of_a_long_game_or_say_where_they_stop():
    c = read("survive 12 minutes while the enemy spawns endlessly and gets faster over time").concepts
    assert c.wave_times[-1] >= 12 * 60 - 60
    gaps = [b - a for a, b in zip(c.wave_times, c.wave_times[1:])]
    assert gaps == sorted(gaps, reverse=True)
    said = _clauses("endless waves every 10 seconds for 8 minutes")
    (status, why), = said.values()
    assert status == "partial" and "attacks stop at" in why


@pytest.mark.parametrize("query", ["every-man-for-himself brawl of 5 armies", "a last-man-standing fight between four armies"])
def test_a_phrase_typed_as_one_hyphenated_word_is_read_as_its_words(query):
    c = read(query).concepts
    assert c.archetype == "ffa" and c.teams in (4, 5)
    assert {s for s, _ in _clauses(query).values()} == {"honoured"}


def test_a_race_asked_as_how_fast_you_get_units_out_is_the_goal_not_a_start_army():
    c = read("how fast can u get 4 rocket bots and 2 heavy tanks out? deadline is 6 mins").concepts
    assert c.archetype == "production" and c.target_composition == {"rocket_bot": 4, "heavy_tank": 2}
    assert not c.player_start


def test_named_sides_of_periodic_raids_take_turns():
    from genesis.offline.gdd_writer import design
    query = "waves alternate between the north and the south every 40 seconds; survive 4 minutes"
    raids = next(r for r in design(write_brief(query, read(query))).rule_components if r.id == "periodic_raids")
    assert raids.params["avoid_repeat"] and len(set(raids.params["sides"])) == 2


def test_growing_waves_no_one_counted_keep_coming_over_a_long_game():
    from genesis.offline.gdd_writer import design
    query = "hold out for nine minutes against bot waves that keep getting bigger"
    brief = write_brief(query, read(query))
    p = next(r for r in design(brief).rule_components if r.id == "escalating_waves").params
    last = p["times"][-1] if "times" in p else p["first_at"] + p["interval"] * (p["count"] - 1)
    assert 9 * 60 - 150 <= last < 9 * 60 and p["count"] >= 5


def test_one_group_a_minute_is_the_interval_and_the_game_ends_when_the_request_says():
    query = "bots rush my HQ from the west, roughly one group a minute, and i win if the HQ is still up at 6 min"
    c = read(query).concepts
    assert c.wave_interval == 60 and c.time_limit == 360


def test_a_tower_defence_without_towers_is_not_claimed():
    said = _clauses("a tower defence where bots attack from the south every minute; survive 5 minutes")
    status, why = said["a tower defence where bots attack from the south every minute"]
    assert status == "partial" and "tower defence" in why


def test_backup_the_player_gets_at_a_time_is_a_reinforcement_never_the_first_attack():
    c = read("we get backup at 3:30 while bots keep coming from the north every minute; survive 5 minutes").concepts
    assert c.reinforcements == [210] and c.wave_interval == 60 and 210 not in c.wave_times
