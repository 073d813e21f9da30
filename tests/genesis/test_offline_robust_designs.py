"""Designs the offline backend once could not ship: a start group whose ring reached water, a team battle on a
map with no mirrored halves for its size; production said on beside a named army; contradictions refused."""
import math

from genesis.checks.gdd_checks import placement_problems
from genesis.offline import geometry as G
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design


def _design(query):
    brief = write_brief(query, read(query))
    return brief, design(brief)


def test_start_groups_stand_clear_of_water_and_of_each_other():
    for query in ("Survive 7 minutes against escalating waves of raider bots every 60 seconds from two fronts, each "
                  "wave twice as big as the last; protect your 3 metal storages.",
                  "Bring your heavy tank from the west edge of the river map to the south-east corner within 4 "
                  "minutes, past ambushes; if it dies you lose."):
        _, gdd = _design(query)
        assert placement_problems(gdd, G.load(gdd.map)) == [], query


def test_a_team_battle_on_a_map_without_halves_for_its_size_moves_and_says_so():
    brief, gdd = _design("3v3 on the corridor map, each side 6 light bots, no production, last side standing wins.")
    assert gdd.map.name == "crossroads"
    (said,) = [c for c in brief.clauses if "corridor" in c.text]
    assert said.status == "partial" and "no two opposite halves of 3" in said.why


def test_production_said_on_beside_a_named_army_can_produce():
    _, gdd = _design("Destroy the enemy bot lab in the east behind 3 light turrets. You start with 5 light tanks, "
                     "production on, deadline 7:00.")
    units = {u.type: u.count for u in gdd.teams[0].units}
    assert units.get("light_tank") == 5 and units.get("constructor_bot") == 1 and gdd.teams[0].metal > 0
    assert any("constructor bot to produce with" in a for a in gdd.assumptions)


def test_outcomes_that_exclude_each_other_and_battles_nobody_can_fight_are_refused():
    for query in ("A skirmish where the player must win at 3:00 and must also lose at 3:00.",
                  "Set up a 2v2 in which every player has zero units.",
                  "Make a free-for-all with a single team on crossroads."):
        assert read(query).refusal, query
    for query in ("Free-for-all with one team per player, 4 players, last standing wins.",
                  "Defend the base; you win at 5:00 and lose if the storage dies."):
        assert not read(query).refusal, query


def test_a_request_mostly_unread_with_nothing_built_in_full_is_refused_naming_what_was_not_read():
    brief = write_brief(*[q := "Seven armies march under banners of silk. Each one gets a commander and five light "
                               "bots. Locusts eat the crops every half minute and famine hurts whoever hoards too "
                               "little; whoever has the fattest granary at the end wins.", read(q)])
    assert not brief.is_game and not brief.requirements
    assert "does not understand 3 of the request's 4 clauses" in brief.refusal
    assert '"Seven armies march under banners of silk"' in brief.refusal
    assert all(c.status == "not_honoured" for c in brief.clauses)
    # one clause built in full keeps the level: the rest is reported, not refused
    kept = write_brief(*[q := "Defend the base for 5 minutes. A storm closes in every half minute and hurts whoever "
                               "is caught outside it.", read(q)])
    assert kept.is_game and any(c.status == "honoured" for c in kept.clauses)


def test_a_race_attacked_from_a_named_side_keeps_its_start_across_the_map_from_that_side():
    brief, gdd = _design("Produce 4 light tanks before the enemy attack at minute 5 from the east, then beat it.")
    assert brief.concepts.directions == ["e"]
    home = next(u for u in gdd.teams[0].units if u.type == "commander")
    m = G.load(gdd.map)
    assert home.x < m.width / 3                     # the base stands in the west, so the attack crosses the map
    assert all(c.library_rule != "seeded_layout" for c in gdd.rule_components)   # its start is not drawn
    assert gdd.variation.fixed_by                   # a fixed drill the request itself states


def test_raids_that_steal_metal_have_metal_to_steal_and_are_evidenced_by_the_amount_taken():
    brief, gdd = _design("Raiders hit your metal extractors every 90 seconds from a random side and each raid steals "
                         "100 metal; keep two extractors alive until 7:00.")
    assert gdd.teams[0].metal >= 100 * 5                    # every raid of the game finds 100 to carry off
    (theft,) = [r for r in gdd.requirements if r.id == "theft"]
    assert theft.expect[0].where["metal"] == 100            # a transfer of nothing is no theft


def test_a_race_attacked_by_named_units_is_attacked_by_them_and_guarded_against_them():
    _, gdd = _design("Build 6 light tanks and 4 rocket bots before minute 7; the enemy attacks at minute 5 with assault "
                     "bots.")
    (attack,) = [c for c in gdd.rule_components if c.id == "enemy_attack"]
    spawned = next(v for k, v in attack.params.items() if k.endswith("_units"))
    assert list(spawned) == ["assault_bot"] and spawned["assault_bot"] >= 2     # named in the plural


def test_no_objective_stands_within_an_attackers_reach_of_a_spawn():
    from engine.catalog import load_catalog
    from genesis.offline import gdd_writer
    q = ("Defend two fronts on the two_front_corridor map: artillery bot waves from the west at 1:00 and 3:00 and from "
         "the east at 2:00 and 4:00. Keep your constructor bot alive for 6 minutes.")
    gdd = design(write_brief(q, read(q)))
    spawns = G.spawns(G.load(gdd.map.model_dump(exclude_none=True)))
    waves = next(c for c in gdd.rule_components if c.id == "staggered_waves").params
    reach = max(load_catalog().units[t].weapon.range for t in waves["units"]) + gdd_writer.SPAWN_MARGIN
    objectives = [u for t in gdd.teams for u in t.units if u.tag == "objective"]
    assert objectives
    for u in objectives:
        assert all(math.dist((u.x, u.y), spawns[f]) >= reach for f in set(waves["fronts"]))


def test_a_storm_closing_in_on_armies_nobody_allies_with_is_a_shrinking_zone_battle_to_the_last():
    q = ("Seven armies, nobody allied with anybody. Each one gets a commander and five light bots. A storm closes in "
         "every half minute and hurts whoever is caught outside it; whoever has units left at the end wins.")
    brief = write_brief(q, read(q))
    c = brief.concepts
    assert (c.archetype, c.teams, c.safe_zone, c.zone_interval, c.elimination) == ("ffa", 7, True, 30.0, "units")
    assert c.side_army == {"commander": 1, "light_bot": 5}
    assert {cl.status for cl in brief.clauses} == {"honoured"}, brief.clauses
