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


def test_an_escorts_counted_guards_are_the_players_army():
    from genesis.offline.gdd_writer import design
    for query, guards in (("Escort the commander from the west edge to the east edge with 3 heavy tanks as guards.",
                           {"heavy_tank": 3}),
                          ("Get the truck to the north edge in four minutes; two assault bots tag along.",
                           {"assault_bot": 2}),
                          ("Move the constructor bot to the east edge, escorted by five light tanks.", {"light_tank": 5})):
        brief = write_brief(query, read(query))
        assert brief.concepts.archetype == "escort" and brief.concepts.player_start == guards, query
        army = {u.type: u.count for u in design(brief).teams[0].units if u.tag is None}
        assert army == guards, (query, army)


def test_an_ai_named_by_how_it_plays_is_built_only_where_the_enemy_plays_so():
    _, statuses = _statuses("Raze the enemy vehicle plant within 7 minutes; a hold AI keeps its units around it.")
    assert statuses["a hold AI keeps its units around it"] != "not_honoured"
    brief, statuses = _statuses("Bank 1500 metal by 6:00 while an aggressive AI harasses you.")
    said = next(c for c in brief.clauses if "aggressive" in c.text)
    assert said.status in ("partial", "not_honoured") and "aggressive AI is not built" in said.why


def test_an_elimination_by_commanders_said_as_the_enemy_commanders_dead():
    for query in ("2v2 on crossroads, 12 minutes: we win once both enemy commanders are dead.",
                  "Two teams of three, 10 minutes; the last side with a commander still alive wins."):
        assert read(query).concepts.elimination == "commanders", query


def test_teams_counted_in_words():
    c = read("two teams of four on the arena, last alliance standing wins").concepts
    assert (c.archetype, c.teams, c.team_size) == ("teams", 8, 4)
    brief, _ = _statuses("Four teams of two, 12 minutes, last alliance standing wins.")
    assert brief.concepts.archetype == "ffa" and brief.concepts.teams == 4
    assert any(c.status == "partial" and "one team per side" in c.why for c in brief.clauses)


def test_a_later_attack_said_bigger_grows_and_twice_counts_the_attacks():
    from genesis.offline.gdd_writer import design
    brief, statuses = _statuses("They come for the depot twice: first a few bots from the north at 1:00, then a "
                                "larger force from the west at 2:30. Hold until 4:00.")
    c = brief.concepts
    assert c.escalating and c.waves == 2 and c.wave_times == [60, 150]
    (waves,) = [rc for rc in design(brief).rule_components if rc.id == "escalating_waves"]
    assert waves.params["times"] == [60, 150] and waves.params["growth"] > 0
    assert read("The enemy attacks your base thrice from the south; survive 5 minutes.").concepts.waves == 3


def test_a_unit_sent_from_corner_to_corner_in_any_verb_form_is_an_escort_never_attack_sides():
    for query in ("Marching our scout from the south-west corner over to the north-east one is the task; it must "
                  "survive.",
                  "Ferry my commander from the bottom-left corner to the top-right corner within 4 minutes.",
                  "Getting the engineer from the north-west corner into the far corner alive is the only way to win."):
        c = read(query).concepts
        assert c.archetype == "escort" and c.escort_from in ("sw", "nw") and not c.directions, query
    brief, said = _statuses("Carry my commander from the south-west corner to the north-east corner. Ambushers hide "
                            "along the way. If he dies, that's a loss; if he hasn't arrived by 4:00, that's a loss too.")
    assert brief.concepts.deadline == 240
    assert all(s == "honoured" for s in said.values()), said


def test_a_comparison_between_attacks_no_reading_takes_in_leaves_its_clause_partial():
    brief, said = _statuses("Waves hit my base from the west then the east, and every push is sneakier than the last. "
                            "Survive for 5 minutes.")
    (sneakier,) = [c for c in brief.clauses if "sneakier" in c.text]
    assert sneakier.status == "partial" and "sneakier than the last" in sneakier.why
    # harder in any words of strength is growing waves
    brief, said = _statuses("Waves hit my base from the west then the east, and every push is meaner than the last. "
                            "Survive for 5 minutes.")
    assert brief.concepts.escalating and said["and every push is meaner than the last"] == "honoured", said
    _, read_in = _statuses("Hold for 5 minutes against raids from the north; each raid is tougher than the one before.")
    assert read_in["each raid is tougher than the one before"] == "honoured", read_in


def test_a_casual_defence_reads_its_count_its_end_and_its_loss():
    q = ("Alright: the enemy comes at my base three times, first down the left side, then up the right, and every "
         "push is meaner than the last. If my commander is alive when the clock hits five and a half minutes, I win; "
         "if he drops, I've lost.")
    brief, said = _statuses(q)
    c = brief.concepts
    assert (c.waves, c.time_limit, c.escalating) == (3, 330, True)
    assert "commander" in (c.protect_unit, c.objective_type)     # a commander kept is the defence's objective
    assert set(said.values()) == {"honoured"}, said


def test_a_unit_alive_at_a_time_is_kept_and_ends_the_game_then():
    c = read("Survive waves from the north; if your heavy tank is still standing at 4:00 you win, and if it drops "
             "you lose.").concepts
    assert (c.time_limit, c.protect_unit) == (240, "heavy_tank")


def test_casual_requests_that_were_refused_are_read_in_full():
    race = ("How fast can you get ten small bots and two of the big tanks rolling? No enemies at all, but the whole "
            "thing ends at the six-minute mark and you lose if you're short.")
    brief, said = _statuses(race)
    c = brief.concepts
    assert (c.archetype, c.target_composition, c.time_limit, c.unopposed, c.wave_times) == (
        "production", {"light_bot": 10, "heavy_tank": 2}, 360, True, [])
    assert "not_honoured" not in said.values() and "partial" not in said.values(), said
    search = ("Somewhere in the dark there are four enemy listening posts (radar towers). Give me one quick scout and "
              "eight minutes to spot every one of them; if the scout gets killed, I'm done.")
    brief, said = _statuses(search)
    c = brief.concepts
    assert (c.archetype, c.locate_type, c.locate_count, c.time_limit, c.protect_unit) == (
        "recon", "radar_tower", 4, 480, "scout")
    assert set(said.values()) == {"honoured"}, said
    brawl = ("six factions, nobody allied w/ anybody, each starts with eight rocket guys and can't build more. "
             "whoever racks up the most kills by the time the timer says ten minutes wins.")
    brief, said = _statuses(brawl)
    c = brief.concepts
    assert (c.archetype, c.teams, c.side_army, c.ranking, c.time_limit) == ("ffa", 6, {"rocket_bot": 8}, "kills", 600)
    assert set(said.values()) == {"honoured"}, said


import pytest  # noqa: E402


@pytest.mark.parametrize("said, count", [
    ("keep my storage alive through wave eight", 8), ("win by outlasting wave 7 from the north", 7),
    ("survive the tenth wave of bombers hitting my base", 10), ("hold the base until raid number 4", 4),
    ("the sixth and final wave is all heavy tanks; defend the base", 6),
    ("hold out until the 5th attack on my base ends", 5)])
def test_the_last_attack_named_by_its_number_or_ordinal_counts_the_waves(said, count):
    assert read(said).concepts.waves == count


def test_a_first_wave_or_a_pronoun_one_counts_no_attacks():
    c = read("defend the base; the first wave of 4 tanks hits at 1:00 and later waves come every 90 seconds").concepts
    assert c.waves != 1
    assert read("can you make one where bots pour in from the north every thirty seconds").concepts.waves is None


@pytest.mark.parametrize("said, unit", [
    ("workers", "constructor_bot"), ("riflemen", "assault_bot"), ("soldiers", "assault_bot"),
    ("marines", "assault_bot"), ("barracks", "bot_lab"), ("bunkers", "light_turret")])
def test_other_rts_games_nouns_name_the_roster_unit_of_the_same_role(said, unit):
    c = read(f"defend your base against waves from the north; you start with 3 {said} and 400 metal").concepts
    assert c.player_start == {unit: 3} and c.player_metal == 400


def test_start_metal_is_said_as_metal_not_as_a_clock():
    brief = write_brief("defend the base from the north; you start with 800 metal",
                        read("defend the base from the north; you start with 800 metal"))
    start = next(r for r in brief.requirements if r.id == "start_forces")
    assert "800 metal" in start.text and "13:20" not in start.text


def test_a_lead_in_of_generic_words_shares_the_status_of_the_clause_it_leads_into():
    query = ("defend the base against waves from the north, and all you start with is 3 anti-air turrets and "
             "whatever 600 metal can buy")
    brief, statuses = _statuses(query)
    assert not any(text == "and all you start" for text in statuses)          # no honoured lead-in of its own
    led = next(c for c in brief.clauses if "all you start" in c.text)
    assert "anti-air turrets" in led.text
