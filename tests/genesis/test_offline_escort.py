"""The offline escort family: the reader sees an escort (the unit, where it starts, where it goes,
ambushes on the way), the brief honours a clause only with a requirement the level implements, and the
design guards the escorted unit against seeded route ambushes with the `escort` role as reference. A
generated escort level is certified: the reference wins every seed and no blind plan does."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from genesis.models import ARCHETYPES
from genesis.offline import escort_design as E
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design

WORST = ("Escort my commander from the west edge to the east edge across a bridge, with ambushes along the route, "
         "5 minute limit, the commander must survive")


def _brief(query: str):
    return write_brief(query, read(query))


def _component(gdd, cid: str):
    return next(c for c in gdd.rule_components if c.id == cid)


# --- reading ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("query, unit, start, to, ambush", [
    (WORST, "commander", "w", "e", True),
    ("get the commander to the extraction point in the NE corner within 90 s", "commander", None, "ne", False),
    ("VIP escort", "commander", None, None, False),
    ("escort a convoy of 4 trucks across the map while ambushers strike from the forest", "constructor_vehicle",
     None, None, True),
    ("bring the truck across the bridge", "constructor_vehicle", None, None, False),
    ("escort the heavy tank to the north edge; enemy patrols guard the road", "heavy_tank", None, "n", True),
])
def test_an_escort_is_read_with_its_unit_start_destination_and_ambushes(query, unit, start, to, ambush):
    r = read(query)
    c = r.concepts
    assert r.is_game and c.archetype == "escort"
    assert (c.escort_unit, c.escort_from, c.escort_to, c.ambush) == (unit, start, to, ambush)
    assert not c.directions and c.objective_type is None      # sides of a route are not attack fronts


def test_the_worst_case_is_an_escort_with_every_clause_honoured_by_what_is_built():
    brief = _brief(WORST)
    c = brief.concepts
    assert c.archetype == "escort" and c.deadline == 300 and c.map_hint == "river_bridges"
    by_text = {cl.text.strip(" ,"): cl for cl in brief.clauses}
    assert by_text["with ambushes along the route"].requirement_ids == ["ambush"]
    assert by_text["with ambushes along the route"].status == "honoured"
    assert "escort_arrival" in by_text["Escort my commander from the west edge to the east edge across a bridge"
                                       ].requirement_ids
    assert by_text["5 minute limit"].requirement_ids == ["deadline"]
    assert by_text["the commander must survive"].requirement_ids == ["protect_unit"]
    # never the defence it used to be built as
    assert not {"survive_win", "objective_loss", "fronts"} & {r.id for r in brief.requirements}


def test_a_convoy_count_and_a_deadline_are_read():
    c = read("escort a convoy of 3 trucks to the south edge within 4 minutes").concepts
    assert (c.escort_unit, c.escort_count, c.escort_to, c.deadline) == ("constructor_vehicle", 3, "s", 240)


def test_protecting_another_unit_than_the_escorted_one_is_not_claimed():
    brief = _brief("protect your commander; escort the heavy tank to the north edge")
    assert brief.concepts.protect_unit == "heavy_tank"
    bad = [cl for cl in brief.clauses if cl.status == "not_honoured"]
    assert len(bad) == 1 and "commander" in bad[0].text and "not part of it" in bad[0].why


@pytest.mark.parametrize("query", [
    "escort duty: do not let your heavy tank die; survive until 4:00",
    "defend two fronts with staggered waves",
    "capture the centre and hold it for 90 seconds before minute 5",
    "take your tanks to the east edge and defend it against three waves",
])
def test_other_families_are_not_read_as_escorts(query):
    assert read(query).concepts.archetype != "escort"


def test_escort_is_an_archetype_the_model_may_pick_too():
    assert "escort" in ARCHETYPES


# --- design ----------------------------------------------------------------------------------------
def test_the_design_guards_the_unit_on_a_route_with_seeded_ambushes_it_cannot_survive_alone():
    gdd = design(_brief(WORST))
    vip = [u for u in gdd.teams[0].units if u.tag == E.VIP_TAG]
    assert [(u.type, u.count) for u in vip] == [("commander", 1)]
    arrival, ambush = _component(gdd, "escort_arrival"), _component(gdd, "route_ambush")
    dest, start = arrival.params["to"], (vip[0].x, vip[0].y)
    assert arrival.params["deadline"] == 300 and arrival.params["tag"] == E.VIP_TAG
    # west edge to east edge across the river: opposite banks, so the route crosses a bridge
    assert start[0] < 16 and dest[0] > 112 and start[1] < 64 < dest[1]
    path = E.route(E.G.load(gdd.map.model_dump(exclude_none=True)), start, tuple(dest))
    assert math.dist(path[-1], dest) < 1.5
    sites = ambush.params["sites"]
    assert len(sites) >= 4 and 1 <= ambush.params["active"] < len(sites)
    assert all(min(math.dist(s, p) for p in path) < E.TRIGGER_RADIUS for s in sites)
    # one ambush beats the unit alone; the guards beat one ambush
    one = ambush.params["units"]
    guards: dict[str, int] = {}
    for u in gdd.teams[0].units:
        if u.tag is None:
            guards[u.type] = guards.get(u.type, 0) + u.count
    assert E._power(one) >= E.AMBUSH_MARGIN * E._power({"commander": 1})
    assert E._power(guards) >= E.GUARD_MARGIN * E._power(one)
    role = gdd.strategy_params["roles"][0]
    assert role == {"role": "escort", "tag": E.VIP_TAG, "count": 1, "to": dest}
    assert gdd.variation.varies[0].how == "route_ambush.sites"
    assert {p.name for p in gdd.variation.probes} == {"straight_march", "vip_alone"}
    assert {c.id for c in gdd.rule_components} == {"escort_arrival", "vip_loss", "route_ambush"}


def test_a_short_deadline_brings_the_start_close_enough_to_make_it():
    gdd = design(_brief("get the commander to the extraction point in the NE corner within 90 s"))
    vip = next(u for u in gdd.teams[0].units if u.tag == E.VIP_TAG)
    dest = _component(gdd, "escort_arrival").params["to"]
    assert dest[0] > 80 and dest[1] < 16     # the north-east corner
    path = E.route(E.G.load(gdd.map.model_dump(exclude_none=True)), (vip.x, vip.y), tuple(dest))
    walk = E._length(path) / 1.5             # the commander's pace
    assert 25 < walk < 90 - E.FIGHT_SECONDS * _component(gdd, "route_ambush").params["active"]


def test_every_requirement_has_evidence_and_a_stronger_enemy_grows_the_ambushes_and_the_guards():
    brief = _brief(WORST)
    gdd = design(brief)
    assert all(r.expect for r in gdd.requirements if r.testable)
    stronger = design(brief, ["make the enemy stronger"])
    grown = _component(stronger, "route_ambush").params["units"]
    assert sum(grown.values()) > sum(_component(gdd, "route_ambush").params["units"].values())
    assert sum(u.count for u in stronger.teams[0].units if u.tag is None) >= \
        sum(u.count for u in gdd.teams[0].units if u.tag is None)


# --- a generated level -------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_genesis_new_builds_a_certified_escort(tmp_path):
    env = {**os.environ, "GENESIS_CERTIFICATE": "on"}
    out = tmp_path / "escort"
    done = subprocess.run([sys.executable, "-m", "genesis", "-w", str(tmp_path / "ws"), "new", WORST, "--out", str(out)],
                          cwd=Path(__file__).resolve().parents[2], env=env, capture_output=True, text=True, timeout=880)
    v = json.loads((out / "validation.json").read_text())
    assert v["certified"], (v.get("reason"), v.get("certificate", {}).get("checks"), done.stdout[-2000:])
    status = {r["id"]: r["status"] for r in v["requirements"]}
    assert {status[i] for i in ("escort_arrival", "ambush", "deadline", "protect_unit")} == {"verified"}, status
    ladder = v["certificate"]["ladder"]
    assert any(k.startswith("probe:straight_march") for k in ladder)


def test_the_corners_of_an_escort_route_are_not_fronts():
    # the visual check asks for enemies in as many sectors as the request has fronts: a route's two ends
    # read as two fronts stopped a faithful escort level
    c = read("Take a constructor bot from the north-west corner to the south-east one within 4 minutes; ambushers "
             "wait along the way and losing it loses.").concepts
    assert c.archetype == "escort" and (c.escort_from, c.escort_to) == ("nw", "se") and not c.fronts
