"""Lists in a request are read whole: every unit of a production goal, every side of a free-for-all."""
import pytest

from genesis.offline.concepts import read


@pytest.mark.parametrize("query, goal", [
    ("build 4 anti-air vehicles, 3 artillery units and 2 heavy tanks as fast as possible, 10 minute limit",
     {"aa_vehicle": 4, "artillery_bot": 3, "heavy_tank": 2}),
    ("produce 3 assault bots, 2 rocket bots and 1 heavy tank within 4 minutes",
     {"assault_bot": 3, "rocket_bot": 2, "heavy_tank": 1}),
    ("build 4 light tanks and 2 heavy tanks by minute 5", {"light_tank": 4, "heavy_tank": 2}),
    ("build 4 light tanks and survive the waves", {"light_tank": 4}),
])
def test_every_unit_of_a_production_goal_is_in_the_goal(query, goal):
    assert read(query).concepts.target_composition == goal


@pytest.mark.parametrize("query, teams", [
    ("free-for-all between the player and 6 AI armies, last team standing wins", 7),
    ("a free-for-all: you and 3 rival armies", 4),
    ("free-for-all between five armies", 5),
])
def test_the_player_named_beside_the_other_armies_is_one_more_side(query, teams):
    c = read(query).concepts
    assert (c.archetype, c.teams) == ("ffa", teams)
