"""Requests that name a thing first and act on it after, by a word pointing back ("their camp has a radar dish ...
blow the dish up", "lose them all and it's over"), or that say a family's goal in the passive ("my commander driven
across the map") or by its holders ("clear the guards off the hill, then sit on it"): read as that family, with
what the design cannot build as counted said so."""
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design
from genesis.quantities import canonical


def _statuses(query):
    brief = write_brief(query, read(query))
    return brief, {c.text.strip(" ,;:.!?"): c.status for c in brief.clauses}


def test_a_building_of_theirs_destroyed_by_a_word_pointing_back_is_a_siege_of_it():
    c = read("Their camp has a big radar dish in the middle ringed by six light turrets. Send my eight light tanks in "
             "and blow the dish up by 6:00.").concepts
    assert (c.archetype, c.objective_type, c.guard_turrets, c.player_start, c.deadline) == (
        "siege", "radar_tower", {"light_turret": 6}, {"light_tank": 8}, 360)
    c = read("There's an enemy reactor north of the river with three gun towers around it. Go smash the thing "
             "before 8:00.").concepts
    assert (c.archetype, c.objective_type, c.guard_turrets) == ("siege", "fusion_reactor", {"light_turret": 3})


def test_a_target_the_roster_lacks_is_a_storage_and_the_brief_says_so():
    r = read("A fuel depot sits behind their lines, guarded by four heavy turrets. Take it out with your twelve "
             "assault bots within five minutes.")
    assert r.concepts.archetype == "siege" and r.concepts.guard_turrets == {"heavy_turret": 4}
    assert r.concepts.objective_type in (None, "metal_storage")
    assert any("fuel depot" in a and "metal storage" in a for a in r.assumptions)


def test_the_enemy_blowing_up_a_building_of_ours_is_no_siege():
    c = read("Protect the generator, guarded by two light turrets, for 5 minutes: if the raiders blow it up you "
             "lose.").concepts
    assert c.archetype != "siege"


def test_all_of_the_players_units_lost_loses_when_the_last_falls():
    for q in ("Destroy the enemy bot lab with your eight light tanks by 6:00. You lose if all your light tanks are "
              "destroyed.",
              "Destroy the enemy bot lab by 6:00. Send my eight light tanks in. If all my tanks die, I lose.",
              "Destroy the enemy bot lab with your eight light tanks within five minutes; lose them all and it's over."):
        brief, statuses = _statuses(q)
        c = brief.concepts
        assert (c.protect_unit, c.protect_all, c.player_start) == ("light_tank", True, {"light_tank": 8}), q
        assert all(s == "honoured" for s in statuses.values()), (q, statuses)
        gdd = design(brief)
        kept = [u for u in gdd.teams[0].units if u.type == "light_tank"]
        # every tank the player has is kept, and only the last one lost loses
        assert sum(u.count for u in kept) == 8 and {u.tag for u in kept} == {kept[0].tag} and kept[0].tag
        loss = next(r for r in gdd.rule_components if r.id == "protect_unit_loss")
        assert loss.params["mode"] == "all" and "Losing every one of your light tanks" in gdd.agent_description
    # one unit said alone stays the first-loss condition
    assert read("Escort your commander to the east edge; if your commander dies, you lose.").concepts.protect_all is False


def test_a_unit_carried_somewhere_in_the_passive_is_an_escort_and_raiders_are_its_ambushes():
    brief, statuses = _statuses("I want my commander driven safely across the map, starting in the top left and "
                                "finishing at the bottom right, in under four minutes. Raiders lie in wait along the "
                                "route. If he dies, game over.")
    c = brief.concepts
    assert (c.archetype, c.escort_unit, c.escort_from, c.escort_to, c.ambush) == ("escort", "commander", "nw", "se", True)
    c = read("I need my heavy tank taken over the bridge, starting near the bottom left; tank goes boom, game over.").concepts
    assert (c.archetype, c.escort_unit, c.escort_from, c.protect_unit) == ("escort", "heavy_tank", "sw", "heavy_tank")


def test_targets_counted_as_some_of_the_enemys_are_that_many():
    c = read("Under fog, with one scout: three of the enemy's radar towers are hidden on the map. Find all of them "
             "within three minutes.").concepts
    assert (c.archetype, c.locate_type, c.locate_count) == ("recon", "radar_tower", 3)
    c = read("Five of their mining sites are hidden somewhere. Spot every last one of them in 4 minutes.").concepts
    assert (c.archetype, c.locate_type, c.locate_count) == ("recon", "metal_extractor", 5)


def test_a_zone_cleared_of_its_holders_then_kept_is_a_capture_whose_holders_count_is_the_designs():
    brief, statuses = _statuses("Drive the six defenders off the hill in the centre, then sit on it for ninety "
                                "seconds with no enemy inside. You have until 5:00.")
    c = brief.concepts
    assert (c.archetype, c.hold_time, c.deadline) == ("capture", 90, 300)
    assert statuses["Drive the six defenders off the hill in the centre"] == "partial"
    assert statuses["with no enemy inside"] == "honoured"
    brief, statuses = _statuses("Push the guards off the bridge and once they're gone, stay on it for a minute "
                                "fifteen with nobody contesting. All of that has to be done by 4:00.")
    assert (brief.concepts.archetype, brief.concepts.hold_time, brief.concepts.deadline) == ("capture", 75, 240)
    assert all(s == "honoured" for s in statuses.values()), statuses


def test_minutes_then_seconds_said_in_words_read_as_one_duration_only_before_a_clause_goes_on():
    def said(t):
        return canonical(t, list(range(len(t))))[0]
    assert said("stay on it for a minute fifteen with nobody contesting") == "stay on it for 75 seconds with nobody contesting"
    assert said("hold for two minutes thirty.") == "hold for 150 seconds."
    assert said("every minute 5 light bots attack") == "every minute 5 light bots attack"


def test_a_squad_that_has_to_get_through_a_force_is_a_skirmish_with_its_cap_said_by_its_consequence():
    brief, statuses = _statuses("four of my rocket bots have to take on ten light bots. no building. lose more than two "
                                "and you lose.")
    c = brief.concepts
    assert (c.archetype, c.squad, c.enemy_force, c.max_losses) == ("micro", {"rocket_bot": 4}, {"light_bot": 10}, 2)
    assert all(s == "honoured" for s in statuses.values()), statuses
    c = read("two of my big armoured tanks must get through nine small bots, nothing built; you get 2 minutes tops.").concepts
    # a word between the two of a unit's name ("big armoured tanks" are big tanks)
    assert (c.archetype, c.squad, c.enemy_force, c.deadline) == ("micro", {"heavy_tank": 2}, {"light_bot": 9}, 120)


def test_a_stockpile_put_away_and_a_race_nobody_comes_to_are_a_resource_goal():
    brief, statuses = _statuses("eco drill: set 900 metal aside before 5:00, no-one's coming after you.")
    c = brief.concepts
    assert (c.archetype, c.resource_kind, c.resource_amount, c.deadline, c.unopposed) == (
        "resources", "metal", 900, 300, True)
    assert all(s == "honoured" for s in statuses.values()), statuses


def test_two_sides_said_with_a_friendly_computer_and_hostile_ones_are_a_team_battle():
    brief, statuses = _statuses("Me plus one allied computer commander versus two hostile ones, everybody gets a "
                                "commander and four light tanks; whichever side still has a commander alive wins.")
    c = brief.concepts
    assert (c.archetype, c.team_size, c.elimination, c.side_army) == (
        "teams", 2, "commanders", {"commander": 1, "light_tank": 4})
    assert all(s == "honoured" for s in statuses.values()), statuses
    c = read("Me and a friendly computer player against two hostile computer players, each with five rocket bots; "
             "last pair standing wins.").concepts
    assert (c.archetype, c.elimination, c.side_army) == ("teams", "units", {"rocket_bot": 5})


def test_a_search_said_as_eyes_on_some_of_theirs_with_a_unit_one_is_given_and_kept():
    brief, statuses = _statuses("Get me eyes on all three of their radar towers hidden in the fog. I get one scout and "
                                "four minutes; if it dies I lose.")
    c = brief.concepts
    assert (c.archetype, c.locate_type, c.locate_count, c.player_start, c.protect_unit, c.deadline) == (
        "recon", "radar_tower", 3, {"scout": 1}, "scout", 240)
    assert all(s == "honoured" for s in statuses.values()), statuses
    # what the player is given is no goal to produce
    assert read("You get 4 light tanks; hold the bridge for 3 minutes against waves from the east.").concepts \
        .target_composition == {}


def test_one_target_named_in_the_singular_is_one_target():
    query = "your only scout has 90 seconds to find the enemy factory; don't lose it."
    brief = write_brief(query, read(query))
    assert brief.concepts.locate_count == 1
    gdd = design(brief)
    assert "find the enemy bot lab before 1:30" in gdd.agent_description
    assert read("scout with one raider bot and find their hidden radar towers before 3:00").concepts.locate_count is None
