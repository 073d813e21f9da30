"""Team battles and free-for-alls build what the request says of every side: each side's start army as
stated, and an end by elimination (units wiped out, commanders dead) rather than a ranking at the time
limit; an elimination clause is never honoured by a ranking."""
from __future__ import annotations

import pytest

from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design

C11 = ("3v3 team battle: the player and two AI allies against three AI enemies. Each team starts with a factory "
       "and 5 light tanks; a side loses when all three of its commanders are dead. 12 minute limit.")
C13 = ("2v2 with fog of war off and no production: the player and an AI ally each get 6 rocket bots, the two enemy "
       "teams each get 6 assault bots; wipe out both enemy teams within 5 minutes.")
C08 = ("Four-way free-for-all on the river map with two bridges and fog of war on: each army starts with a "
       "commander and 8 light tanks, production enabled; the last team with a living commander wins, 15 minute limit.")


@pytest.mark.parametrize("query, elimination, ours, theirs", [
    (C11, "commanders", {"bot_lab": 1, "light_tank": 5}, {}),
    (C13, "units", {"rocket_bot": 6}, {"assault_bot": 6}),
    (C08, "commanders", {"commander": 1, "light_tank": 8}, {}),
    ("2v2 battle: every team starts with 4 heavy tanks; destroy all enemy armies in 6 minutes", "units",
     {"heavy_tank": 4}, {}),
    ("a 3-way free-for-all, last side standing wins, 10 minute limit", "units", {}, {}),
    ("1v1v1v1 brawl: each player is out once its commander dies; 8 minutes", "commanders", {}, {}),
    ("2v2 team battle, each enemy team fields 3 artillery bots; most kills after 6 minutes wins", None, {},
     {"artillery_bot": 3}),
])
def test_the_reader_reads_each_sides_army_and_the_elimination(query, elimination, ours, theirs):
    c = read(query).concepts
    assert (c.elimination, c.side_army, c.rival_army) == (elimination, ours, theirs)


def _layout_armies(gdd) -> list[dict[int, dict[str, int]]]:
    out = []
    for layout in next(r for r in gdd.rule_components if r.id == "layout").params["layouts"]:
        teams: dict[int, dict[str, int]] = {}
        for e in layout["units"]:
            teams.setdefault(e["team"], {})
            teams[e["team"]][e["type"]] = teams[e["team"]].get(e["type"], 0) + e["count"]
        out.append(teams)
    return out


def test_a_team_battle_decided_by_commanders_ends_when_an_alliances_commanders_are_dead():
    brief = write_brief(C11, read(C11))
    gdd = design(brief)
    kinds = [c.kind for c in gdd.conditions]
    assert kinds == ["protect_target", "protect_target"] and "rank_by_score" not in kinds
    tags = {c.team: c.target.tag for c in gdd.conditions}
    assert set(tags) == {0, 3} and len(set(tags.values())) == 2 and all(c.mode == "all" for c in gdd.conditions)
    for layout in next(r for r in gdd.rule_components if r.id == "layout").params["layouts"]:
        commanders = [e for e in layout["units"] if e["type"] == "commander"]
        # every team has one, tagged with its own alliance's tag
        assert sorted(e["team"] for e in commanders) == list(range(6))
        assert all(e["tag"] == tags[0 if e["team"] < 3 else 3] for e in commanders)
    for teams in _layout_armies(gdd):
        assert all(army == {"commander": 1, "bot_lab": 1, "light_tank": 5} for army in teams.values())
    assert any("commander" in a for a in brief.assumptions)
    win = next(r for r in gdd.requirements if r.id == "elimination_win")
    assert win.expect and win.expect[0].result.reason_contains == "commander"
    ends = [c for c in brief.clauses if "loses when" in c.text]
    assert ends and ends[0].status == "honoured" and ends[0].requirement_ids == ["elimination_win"]


def test_wiping_out_the_enemy_is_the_last_survivor_and_each_side_gets_its_stated_army():
    brief = write_brief(C13, read(C13))
    gdd = design(brief)
    assert [(c.kind, c.mobile_only) for c in gdd.conditions] == [("last_survivor", False)]
    assert not any(r.id in ("ranking", "decisive") for r in gdd.requirements)
    for teams in _layout_armies(gdd):
        assert teams == {0: {"rocket_bot": 6}, 1: {"rocket_bot": 6}, 2: {"assault_bot": 6}, 3: {"assault_bot": 6}}
    side = next(r for r in gdd.requirements if r.id == "side_armies")
    assert {(e.state.team, e.state.type, e.state.units_min) for e in side.expect} == {
        (0, "rocket_bot", 6), (1, "rocket_bot", 6), (2, "assault_bot", 6), (3, "assault_bot", 6)}
    wipe = next(c for c in brief.clauses if "wipe out" in c.text)
    assert wipe.status == "honoured" and "elimination_win" in wipe.requirement_ids
    assert not {"ranking", "decisive"} & set(wipe.requirement_ids)


def test_a_free_for_all_to_the_last_living_commander_puts_out_each_team_whose_commander_dies():
    gdd = design(write_brief(C08, read(C08)))
    assert [(c.kind, c.team, c.target.team, c.target.type) for c in gdd.conditions] == [
        ("protect_target", t, t, "commander") for t in range(4)]
    assert gdd.time_limit == 900     # the elimination must come by the limit the request states
    assert len(gdd.strategy_params["sweep"]) == 4     # the reference searches every start for the rivals left
    for teams in _layout_armies(gdd):
        assert all(army == {"commander": 1, "light_tank": 8} for army in teams.values())


@pytest.mark.parametrize("query", [
    "2v2 team battle with equal forces, 6 minute limit",
    "a 4-way free-for-all ranked by kills after 10 minutes",
])
def test_without_an_elimination_the_ranking_stays_and_no_elimination_is_claimed(query):
    brief = write_brief(query, read(query))
    gdd = design(brief)
    assert any(c.kind == "rank_by_score" for c in gdd.conditions)
    assert not any(r.id == "elimination_win" for r in brief.requirements)


def test_fixed_forces_the_reference_loses_with_are_eased_by_the_enemys_plan_not_by_changing_them():
    brief = write_brief(C11, read(C11))
    first, eased = design(brief), design(brief, ["balance_preview: ...: make the enemy weaker"])
    assert _layout_armies(first) == _layout_armies(eased)          # the stated armies stay as stated

    def hunted(gdd) -> list[list[int]]:
        return [[c["controller"]["target"]["team"] for c in lay["controllers"] if c["team"] >= 3]
                for lay in next(r for r in gdd.rule_components if r.id == "layout").params["layouts"]]
    assert any(len(set(h)) < len(h) for h in hunted(first))       # two enemy sides gang up on one team
    assert all(len(set(h)) == len(h) for h in hunted(eased))      # each goes for its own nearest
    assert not any("gang" in v.what for v in eased.variation.varies)


CAPTURE = ("Capture the crossroads centre and hold it for 2 minutes continuously before minute 7; enemy "
           "counterattacks come from the north at 3:00 and from the east at 5:00.")


@pytest.mark.parametrize("query, fronts, times", [
    (CAPTURE, ["north", "east"], [180.0, 300.0]),
    ("Take the hill in the middle of the map and keep it for 90 seconds within 6 minutes; the enemy strikes back "
     "from the west at 2:00 and from the south at 4:00.", ["west", "south"], [120.0, 240.0]),
])
def test_a_captures_named_counterattacks_come_from_their_sides_at_their_times(query, fronts, times):
    brief = write_brief(query, read(query))
    gdd = design(brief)
    waves = next(r for r in gdd.rule_components if r.id == "staggered_waves")
    assert waves.params["fronts"] == fronts and waves.params["times"] == times and waves.params["jitter"] <= 5
    assert not any(r.id == "relief" for r in gdd.rule_components)       # no columns from drawn sides
    zone = next(r for r in gdd.rule_components if r.id == "capture_and_hold").params["zone"]
    assert all(t == zone for t in waves.params["targets"])
    named = [r for r in gdd.requirements if r.id in ("directions", "front_times")]
    assert len(named) == 2 and all(r.expect and r.on == "idle" for r in named)
    counter = next(c for c in brief.clauses if "back" in c.text or "counterattack" in c.text)
    assert counter.status == "honoured"
    assert gdd.variation.fixed_by and all(v.how.endswith("jitter") for v in gdd.variation.varies)


def test_every_players_army_is_the_side_army_not_a_second_start_of_the_players_own():
    c = read("1v1v1v1 on the river map: every player starts with a commander and 6 light tanks; a player is out "
             "once its commander dies; 12 minutes.").concepts
    assert c.side_army == {"commander": 1, "light_tank": 6} and c.player_start == {}
    assert c.elimination == "commanders"


@pytest.mark.parametrize("query, elimination, army", [
    ("Five-way melee without building: all of us start out with 2 heavy tanks and 3 rocket bots; the last commander "
     "standing wins.", "commanders", {"heavy_tank": 2, "rocket_bot": 3}),
    ("Free-for-all: four AI warlords, each commanding 5 assault bots; the side whose commander lives longest wins.", "commanders",
     {"assault_bot": 5}),
    ("A 2v2 with no production where we each get four light tanks; a team is done once both of its commanders have "
     "died.", "commanders", {"light_tank": 4}),
])
def test_every_sides_army_and_a_commander_elimination_in_other_words(query, elimination, army):
    c = read(query).concepts
    assert (c.elimination, c.side_army) == (elimination, army)
    assert not c.fronts and c.objective_type is None       # sides counted are teams, not fronts or objectives


def test_a_moment_a_battle_names_is_its_end_not_a_wave():
    c = read("Three-way brawl, no base building; at the eight-minute mark the sides are ranked by hit points "
             "left.").concepts
    assert (c.archetype, c.time_limit, c.wave_times, c.fronts) == ("ffa", 480, [], None)


def test_an_enemy_list_with_each_after_it_and_an_apiece_list_are_the_sides_armies():
    theirs = read("2v2 team battle on crossroads: the player and an allied AI each get a commander and 6 assault "
                  "bots, both enemy teams field 6 light tanks each. Last side standing wins, 10-minute limit.").concepts
    assert (theirs.side_army, theirs.rival_army) == ({"commander": 1, "assault_bot": 6}, {"light_tank": 6})
    assert theirs.wave_units == []
    q = ("It's me and one AI teammate versus two enemy AIs. Everyone starts equal: a commander and six light tanks "
         "apiece, no building. We win when both of their commanders are dead, and we lose if both of ours are.")
    c = read(q).concepts
    assert (c.side_army, c.rival_army, c.elimination) == ({"commander": 1, "light_tank": 6}, {}, "commanders")
    assert {a.status for a in write_brief(q, read(q)).clauses} == {"honoured"}


def test_an_apiece_list_said_of_one_side_is_not_every_sides():
    c = read("2v2 team battle: the enemy teams get a commander and four heavy tanks apiece; 8 minute limit").concepts
    assert (c.side_army, c.rival_army) == ({}, {"commander": 1, "heavy_tank": 4})
