"""Whose is what: the enemy's buildings are targets, never what the player keeps; the player's own raider bots
are no raid; a siege of several buildings is not claimed as its one target; a rival racing for the player's goal
is reported, not claimed."""
import pytest

from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import enemy_owned, read


@pytest.mark.parametrize("text, noun, owned", [
    ("hold out while three enemy metal extractors feed their army", "extractors", True),
    ("their solar collector sits behind the hill", "solar", True),
    ("blow up one specific storage near the river", "storage", True),
    ("their raiders hit your extractors every minute", "extractors", False),
    ("keep my radar tower standing", "radar", False),
    ("a storage in the middle of the map", "storage", False),
])
def test_the_nearest_owner_says_whose_a_building_is(text, noun, owned):
    assert enemy_owned(text, text.index(noun)) is owned


def test_enemy_buildings_counted_are_not_the_players_objectives():
    c = read("Wreck the four enemy solar collectors east of the river within five minutes using six "
             "assault bots.").concepts
    assert c.archetype == "siege"
    assert c.objectives is None


def test_a_siege_of_several_buildings_reports_the_count_it_does_not_build():
    query = "bring down both enemy radar towers within four minutes"
    brief = write_brief(query, read(query))
    assert brief.concepts.archetype == "siege"
    assert [c.status for c in brief.clauses] == ["partial"]
    assert "one target" in brief.clauses[0].why


def test_one_enemy_target_is_not_reported_as_several():
    query = "Destroy the enemy factory guarded by three turrets before 6:00."
    brief = write_brief(query, read(query))
    assert all(c.status == "honoured" for c in brief.clauses)


def test_the_players_raider_bots_are_no_raid():
    c = read("Your six raider bots face nine light bots on open ground; wipe them out and lose no more than "
             "two.").concepts
    assert c.archetype == "micro"
    assert not c.raids


def test_raider_bots_striking_buildings_are_a_raid():
    c = read("Every 80 seconds two raider bots hit your solar collectors from the west; keep three of the five "
             "alive for six minutes.").concepts
    assert c.archetype == "raids"
    assert c.raid_target_type == "solar_collector"


def test_a_search_counts_its_targets_where_they_are_named():
    c = read("Scout the fogged map and find the hidden depots, four enemy radar towers spread around it, within "
             "three minutes.").concepts
    assert (c.archetype, c.locate_type, c.locate_count) == ("recon", "radar_tower", 4)


@pytest.mark.parametrize("query", [
    "a metal race versus the computer: gather 1500 metal before 6:00, whoever gets there first wins",
    "Produce eight light tanks before 7:00 against a rival AI; first player to field them wins.",
])
def test_a_rival_racing_for_the_goal_is_reported_not_claimed(query):
    brief = write_brief(query, read(query))
    assert brief.concepts.archetype in ("resources", "production")
    raced = [c for c in brief.clauses if "no rival races for it" in c.why]
    assert raced and all(c.status in ("partial", "not_honoured") for c in raced)


def test_a_goal_against_the_clock_alone_is_honoured():
    query = "build 10 light tanks before 6:00, racing against the clock"
    assert all(c.status == "honoured" for c in write_brief(query, read(query)).clauses)


def test_attackers_going_for_one_class_of_buildings_make_those_the_objectives():
    query = ("Assault teams go straight for the player's vehicle_plant buildings and ignore everything else; keep all "
             "four plants alive for five minutes.")
    brief = write_brief(query, read(query))
    c = brief.concepts
    assert (c.archetype, c.objective_type, c.objectives) == ("defense", "vehicle_plant", 4)
    assert all(cl.status == "honoured" for cl in brief.clauses), [(cl.text, cl.why) for cl in brief.clauses]


def test_a_built_in_map_the_offline_designs_do_not_use_is_reported():
    query = "Defend your base on wilderness against three waves of light bots from the north at 1:00, 2:30 and 4:00."
    brief = write_brief(query, read(query))
    assert brief.concepts.map_hint != "wilderness"
    assert [c.status for c in brief.clauses] == ["partial"] and "wilderness" in brief.clauses[0].why


@pytest.mark.parametrize("query, total", [
    ("Guard four solar collectors against waves from the south at 1:00, 2:00 and 3:00; you lose if all 4 collectors "
     "are destroyed.", 4),
    ("waves hit your two factories from the north every minute for five minutes; you only lose once every factory "
     "is destroyed", 2),
])
def test_a_loss_only_when_every_objective_is_gone(query, total):
    brief = write_brief(query, read(query))
    assert (brief.concepts.objectives, brief.concepts.keep_objectives) == (total, 1)
    assert all(c.status == "honoured" for c in brief.clauses), [(c.text, c.why) for c in brief.clauses]


def test_letting_them_destroy_a_building_is_no_siege():
    c = read("hold out five minutes against raiders from the west, and don't let them flatten the storage before "
             "4:00").concepts
    assert c.archetype != "siege"


@pytest.mark.parametrize("query, attackers", [
    ("Research an armour upgrade that gives all your assault bots more hp, then survive four waves of rocket bots "
     "from the west, one every 75 seconds, until 6:00.", ["rocket_bot"]),
    ("my 4 light tanks hold the pass against waves of artillery bots every minute for 5 minutes", ["artillery_bot"]),
])
def test_the_players_own_units_never_make_the_enemys_waves(query, attackers):
    assert read(query).concepts.wave_units == attackers
