"""Structures of a request the offline reader reads whatever the words: modifiers that share one unit noun, a
deadline said as "no later than", the enemy acting with units, attacks on an escort, a map's own name, where the
player's base is, labels that head a clause, a clause that only names the map."""
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read


def _statuses(query):
    brief = write_brief(query, read(query))
    return brief, {c.text.strip(" ,;:.!?"): c.status for c in brief.clauses}


def test_modifiers_sharing_one_unit_noun_name_a_unit_of_each():
    assert read("hold out against light and heavy tanks from the north for 5 minutes").concepts.wave_units == [
        "light_tank", "heavy_tank"]
    assert read("defend the depot from rocket/artillery bots attacking from the east").concepts.wave_units == [
        "rocket_bot", "artillery_bot"]
    assert read("waves of light, rocket or assault bots from the west every minute").concepts.wave_units == [
        "light_bot", "rocket_bot", "assault_bot"]
    assert read("survive a raider+light bot mix from the south").concepts.wave_units == ["raider_bot", "light_bot"]


def test_no_later_than_is_a_deadline_never_an_attack():
    c = read("Produce 15 light bots no later than seven and a half minutes in.").concepts
    assert c.deadline == 450 and c.wave_times == []
    assert read("Build 8 light tanks in no more than six minutes.").concepts.deadline == 360


def test_units_the_enemy_acts_with_are_not_the_players():
    c = read("Seize the ridge and keep it for 90 seconds; a hold AI guards it with 5 light tanks.").concepts
    assert c.player_start == {}
    assert read("Hold the bridge with four light tanks against waves from the east for 5 minutes").concepts \
        .player_start == {"light_tank": 4}


def test_attacks_on_an_escort_say_where_the_enemy_comes_from_not_where_the_route_starts():
    r = read("VIP run: the commander must reach the east edge alive; raiders attacking from the south and north.")
    assert r.concepts.archetype == "escort" and r.concepts.escort_from is None
    _, statuses = _statuses("VIP run: the commander must reach the east edge alive; raiders attacking from the south.")
    assert statuses["raiders attacking from the south"] == "partial"


def test_a_maps_own_name_is_read_as_the_map_only():
    c = read("Survive 5 minutes on two_front_corridor: waves from the east every 45 seconds.").concepts
    assert c.map_hint == "two_front_corridor" and c.fronts == 1
    c = read("The enemy bot lab on plateau_fortress must fall within 6 minutes.").concepts
    assert c.map_hint == "plateau_fortress"


def test_where_the_players_base_is_is_no_side_attacked():
    assert read("Your base sits in the north; waves come from the south every minute for 5 minutes.").concepts \
        .directions == ["s"]
    assert read("You start in the east, enemies come from the west and the north, one every 40 s.").concepts \
        .directions == ["w", "n"]


def test_labels_head_the_clause_they_name_and_a_map_alone_is_the_setting():
    brief, statuses = _statuses("Setup: waves from the east every 50 seconds. Victory: survive until 5:00. "
                                "Defeat: commander killed. crossroads")
    assert brief.concepts.protect_unit == "commander" and brief.concepts.map_hint == "crossroads"
    assert all(s == "honoured" for s in statuses.values()), statuses
