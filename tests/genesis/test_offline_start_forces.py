"""What the request says the player starts with is what the player starts with, evidenced at t=0."""
from __future__ import annotations

import pytest

from engine.catalog import load_catalog
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design


def _player_starts(gdd) -> list[dict[str, int]]:
    """The player's start units by type: the team's, or each drawn layout's when the start is drawn."""
    layouts = [lay for comp in gdd.rule_components for lay in comp.params.get("layouts") or []
               if any(u["team"] == 0 for u in lay["units"])]
    groups = [[(u["type"], u.get("count", 1)) for u in lay["units"] if u["team"] == 0] for lay in layouts] or \
        [[(u.type, u.count) for t in gdd.teams if t.id == 0 for u in t.units]]
    out = []
    for group in groups:
        counts: dict[str, int] = {}
        for t, n in group:
            counts[t] = counts.get(t, 0) + n
        out.append(counts)
    return out


@pytest.mark.parametrize("query, start, metal", [
    ("survive 6 minutes of waves from the west; you start with 6 turrets and 2 anti-air towers",
     {"light_turret": 6, "aa_turret": 2}, None),
    ("gunships raid your 3 radar towers every 60 seconds; you start with 4 anti-air turrets, survive 5 minutes",
     {"aa_turret": 4}, None),
    ("siege: destroy the enemy factory within 6 minutes; you start with 4 artillery units and 6 light tanks",
     {"artillery_bot": 4, "light_tank": 6}, None),
    ("starting with 1 constructor and 300 metal, build 8 light bots by minute 5", {"constructor_bot": 1}, 300.0),
    ("the player begins with three heavy tanks, two light bots and a radar tower; hold out for 4 minutes",
     {"heavy_tank": 3, "light_bot": 2, "radar_tower": 1}, None),
    ("bank 900 metal within 5 minutes, starting from a commander and two constructor bots; no enemy attacks",
     {"commander": 1, "constructor_bot": 2}, None),
    ("you start out with four light tanks and a constructor bot; hold the centre for two minutes",
     {"light_tank": 4, "constructor_bot": 1}, None),
    # the player in the first person
    ("Survive eight waves from the east. I start with 3 heavy turrets and a constructor bot.",
     {"heavy_turret": 3, "constructor_bot": 1}, None),
    ("we've got two light tanks and 5 rocket bots - hold the crossroads for ninety seconds",
     {"light_tank": 2, "rocket_bot": 5}, None),
    ("Reach 1500 metal in 4 minutes; I have a commander and 3 constructor bots.", {"commander": 1, "constructor_bot": 3},
     None),
])
def test_the_start_the_request_gives_is_built_and_evidenced(query, start, metal):
    brief = write_brief(query, read(query))
    assert brief.concepts.player_start == start and brief.concepts.player_metal == metal
    gdd = design(brief)
    player = next(t for t in gdd.teams if t.id == 0)
    for starts in _player_starts(gdd):
        for type_id, count in start.items():
            assert starts.get(type_id, 0) == count
    if metal is not None:
        assert player.metal == metal
    req = next(r for r in gdd.requirements if r.id == "start_forces")
    assert len(req.expect) == len(start) + (metal is not None)
    said = [c for c in brief.clauses if "start_forces" in c.requirement_ids]
    assert said and all(c.status == "honoured" for c in said)
    assert not [c for c in brief.clauses if c.status == "not_honoured" and ("start" in c.text or "begin" in c.text)]


def test_a_named_army_replaces_the_familys_army_but_named_buildings_keep_it():
    army = design(write_brief(q := "destroy the enemy base within 8 minutes; you start with 5 light tanks",
                              read(q)))
    player = next(t for t in army.teams if t.id == 0)
    assert {u.type for u in player.units if u.tag is None} == {"light_tank"}
    towers = design(write_brief(q := "survive 5 waves for 5 minutes; you start with 2 radar towers", read(q)))
    player = next(t for t in towers.teams if t.id == 0)
    assert any(u.type != "radar_tower" and u.type != "metal_storage" for u in player.units)


def test_units_the_player_has_are_not_a_goal_to_produce():
    q = "Escort my commander to the north-east corner within 5 minutes. I have 6 light bots as escort."
    c = read(q).concepts
    assert c.archetype == "escort" and c.player_start == {"light_bot": 6} and not c.target_composition


def test_an_item_that_is_no_roster_unit_is_not_built_and_says_so():
    brief = write_brief(q := "survive 4 minutes of waves; you start with 3 dragons", read(q))
    assert brief.concepts.player_start == {}
    assert any(c.status == "not_honoured" and "dragons" in c.text for c in brief.clauses)


@pytest.mark.parametrize("query", [
    "Defend against four waves from the south-west; you start with 3 light turrets and production enabled; survive "
    "until 6:00.",
    "Siege: destroy the enemy factory within 6 minutes, production enabled.",
])
def test_production_asked_for_gives_the_player_something_to_produce_with(query):
    gdd = design(write_brief(query, read(query), []))
    player = gdd.teams[0]
    catalog = load_catalog().units
    assert gdd.production and player.metal > 0
    assert any(catalog[u.type].builds for u in player.units)
    assert any("production is on: the player starts with" in a for a in gdd.assumptions)
    # asked for nothing of the kind: the design adds nothing
    plain = design(write_brief("defend two fronts with staggered waves", read("defend two fronts with staggered waves"), []))
    assert not any("production is on: the player starts with" in a for a in plain.assumptions)


def test_named_start_buildings_that_are_the_objectives_stay_the_objectives():
    query = ("Fog of war on: waves from the north at 1:30 and 3:30; you start with 2 radar towers and 8 rocket bots "
             "and must survive until 5:00 with both radar towers standing.")
    gdd = design(write_brief(query, read(query)))
    towers = [u for t in gdd.teams if t.id == 0 for u in t.units if u.type == "radar_tower"]
    assert sum(u.count for u in towers) == 2 and all(u.tag for u in towers)


def test_start_groups_added_beside_a_family_s_own_never_overlap():
    from genesis.checks.gdd_checks import placement_problems
    from genesis.offline import geometry as G
    from genesis.offline.gdd_writer import _settled

    query = "Waves from the east at 1:00, 2:00 and 3:00; you start with 6 assault bots; survive until 4:00."
    gdd = design(write_brief(query, read(query)))
    m = G.load(gdd.map)
    assert placement_problems(gdd, m) == []
    # a second group laid right over the first one's ring (as a group added by another step could be)
    player = next(t for t in gdd.teams if t.id == 0)
    first = next(u for u in player.units if u.count > 1)
    crowded = player.model_copy(update={"units": [*player.units, first.model_copy(update={"x": first.x + 0.2})]})
    gdd = gdd.model_copy(update={"teams": [crowded if t.id == 0 else t for t in gdd.teams]})
    assert placement_problems(gdd, m)
    settled = _settled(gdd)
    assert placement_problems(settled, m) == []
    # only the group that clashed moved
    before = [(u.type, u.x, u.y) for t in gdd.teams for u in t.units]
    after = [(u.type, u.x, u.y) for t in settled.teams for u in t.units]
    assert sum(a != b for a, b in zip(before, after)) == 1


def test_a_counted_force_the_player_acts_with_is_its_start_and_keeps_the_reference_role():
    from genesis.offline.brief_writer import write_brief
    from genesis.offline.gdd_writer import SCREEN_AHEAD, design
    q = ("Capture and hold the centre of the crossroads map for 2 minutes with 8 rocket bots while the enemy "
         "counterattacks every 45 seconds from the south. Deadline 6:00.")
    c = read(q).concepts
    assert (c.player_start, c.wave_units) == ({"rocket_bot": 8}, [])
    gdd = design(write_brief(q, read(q)))
    # named counterattacks at a fixed zone: the army meets them on their way in, ahead of the zone toward the side they
    # come from (met at its edge, a column sets foot in it), while one unit stands in the zone
    zone = next(r for r in gdd.rule_components if r.id == "capture_and_hold").params["zone"]
    home = gdd.strategy_params["home"]
    assert gdd.reference_strategy == "defend" and home[0] == zone[0] and home[1] - zone[1] == SCREEN_AHEAD
    assert [(r["role"], r["type"], r["at"]) for r in gdd.strategy_params["roles"]] == [("hold_back", "rocket_bot", zone)]


def test_counterattack_columns_are_as_strong_in_tanks_as_in_bots():
    from genesis.offline.brief_writer import write_brief
    from genesis.offline.gdd_writer import design

    def column(kind):
        q = (f"Take the centre of the crossroads and keep it for 100 seconds with 5 heavy tanks; {kind} counterattack "
             "from the north every 50 seconds. You have until 8:00.")
        gdd = design(write_brief(q, read(q)))
        return next(r for r in gdd.rule_components if r.id == "staggered_waves").params["units"]
    bots, tanks = column("light bots"), column("light tanks")
    assert list(bots) == ["light_bot"] and list(tanks) == ["light_tank"]
    assert tanks["light_tank"] == max(1, round(bots["light_bot"] / 3))
