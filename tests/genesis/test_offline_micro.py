"""The offline micro-skirmish family: "5 ranged units versus 8 light bots, kill all enemies within 2 minutes"
is read as two armies and an elimination goal (never a defence), and designed as a squad on an open field
against an attacking enemy force whose side is drawn per seed, won by destroying every enemy unit
(`eliminate_enemy`), with the `kite` role as reference when the squad outruns and outranges the enemy."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from genesis.offline import micro_design as M
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design

KITING = ("Kiting micro test: 5 ranged units versus 8 short-range light bots, no production, fog of war off; the "
          "ranged units are faster and outrange the bots. Kill all enemies within 2 minutes.")
TANKS = ("A trio of heavy tanks against a swarm of twenty light bots in an open field; nothing gets built, and you "
         "come out ahead only if every bot is scrap while at least two tanks still roll, all inside ninety seconds.")


def _component(gdd, cid: str):
    return next(c for c in gdd.rule_components if c.id == cid)


@pytest.mark.parametrize("query, squad, enemy, deadline, max_losses", [
    (KITING, {"rocket_bot": 5}, {"assault_bot": 8}, 120, None),
    (TANKS, {"heavy_tank": 3}, {"light_bot": 20}, 90, 1),
    ("my 6 light tanks vs their 10 bots, wipe them out in 3 minutes", {"light_tank": 6}, {"light_bot": 10}, 180, None),
    ("outnumbered 3 to 1: four assault bots against twelve light bots", {"assault_bot": 4}, {"light_bot": 12}, 180,
     None),
    ("focus-fire drill: 4 artillery bots must kill 2 heavy tanks before they reach them", {"artillery_bot": 4},
     {"heavy_tank": 2}, 180, None),
    ("win the skirmish losing no more than 2 units", {"rocket_bot": 5}, {"assault_bot": 8}, 180, 2),
    ("two heavy tanks versus ten raider bots, kill every enemy unit within 90 seconds", {"heavy_tank": 2},
     {"raider_bot": 10}, 90, None),
    ("my squad of 4 light tanks against 6 light bots; destroy all of them without losing a unit", {"light_tank": 4},
     {"light_bot": 6}, 180, 0),
])
def test_a_skirmish_is_read_with_its_armies_deadline_and_losses(query, squad, enemy, deadline, max_losses):
    brief = write_brief(query, read(query))
    c = brief.concepts
    assert brief.is_game and c.archetype == "micro" and not c.production
    assert (c.squad, c.enemy_force, c.deadline, c.max_losses) == (squad, enemy, deadline, max_losses)
    ids = {r.id for r in brief.requirements}
    assert {"eliminate_win", "armies", "enemy_attacks", "deadline"} <= ids
    assert ("max_losses" in ids) == (max_losses is not None)
    assert not {"objective_loss", "survive_win", "production_win", "fronts"} & ids
    assert all(cl.status != "not_honoured" for cl in brief.clauses), brief.clauses


def test_a_kiting_test_the_roster_cannot_pair_as_named_is_partial_and_says_what_is_played():
    brief = write_brief(KITING, read(KITING))
    partial = [cl for cl in brief.clauses if cl.status == "partial"]
    assert partial and all("assault bots" in cl.why for cl in partial)
    assert brief.concepts.kiting and M.kites(brief.concepts)


def test_the_survivor_condition_is_honoured_by_the_losses_cap():
    brief = write_brief(TANKS, read(TANKS))
    clause = next(cl for cl in brief.clauses if "still roll" in cl.text)
    assert clause.status == "honoured" and "max_losses" in clause.requirement_ids


@pytest.mark.parametrize("query", [
    "defend your base against 3 waves of light bots",
    "destroy the enemy base within 5 minutes",
    "2v2 team battle",
    "survive 3 minutes with 5 tanks against 20 bots",
])
def test_other_games_keep_their_family(query):
    assert read(query).concepts.archetype != "micro"


def test_the_design_draws_the_enemy_side_per_seed_and_kites_only_when_it_pays():
    gdd = design(write_brief(KITING, read(KITING)))
    assert not gdd.production and gdd.teams[1].controller.behaviour == "waves"
    assert sum(u.count for u in gdd.teams[0].units) == 5 and {u.tag for u in gdd.teams[0].units} == {M.SQUAD_TAG}
    layouts = _component(gdd, "layout").params["layouts"]
    assert len(layouts) == len(M.SIDES)
    assert len({(l["units"][0]["x"], l["units"][0]["y"]) for l in layouts}) == len(M.SIDES)
    assert all(sum(u["count"] for u in l["units"]) == 8 for l in layouts)
    assert _component(gdd, "skirmish").params == {"team": 0, "enemy_team": 1, "deadline": 120.0}
    assert gdd.strategy_params["roles"] == [{"role": "kite", "tag": M.SQUAD_TAG, "count": 5}]
    assert all(r.expect for r in gdd.requirements if r.testable)
    tanks = design(write_brief(TANKS, read(TANKS)))
    assert tanks.strategy_params["roles"] == [] and _component(tanks, "skirmish").params["max_losses"] == 1
    assert tanks.map.name == "open_field"
    # a weaker enemy starts farther from the squad, with the same units
    weaker = design(write_brief(KITING, read(KITING)), ["make the enemy weaker"])
    near, far = (_component(g, "layout").params["layouts"][0]["units"] for g in (gdd, weaker))
    assert [u["count"] for u in far] == [u["count"] for u in near]
    assert abs(far[0]["y"] - gdd.teams[0].units[0].y) > abs(near[0]["y"] - gdd.teams[0].units[0].y)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_genesis_new_builds_a_certified_kiting_skirmish(tmp_path):
    out = tmp_path / "micro"
    done = subprocess.run([sys.executable, "-m", "genesis", "-w", str(tmp_path / "ws"), "new", KITING, "--out", str(out)],
                          cwd=Path(__file__).resolve().parents[2], env={**os.environ, "GENESIS_CERTIFICATE": "on"},
                          capture_output=True, text=True, timeout=880)
    v = json.loads((out / "validation.json").read_text())
    assert v["certified"], (v.get("reason"), v.get("certificate", {}).get("checks"), done.stdout[-2000:])
    status = {r["id"]: r["status"] for r in v["requirements"]}
    assert {status[i] for i in ("eliminate_win", "armies", "enemy_attacks", "deadline")} == {"verified"}, status


def test_an_enemy_of_several_types_is_read_whole():
    c = read("Skirmish: 4 heavy tanks against 5 artillery bots, 3 rocket bots and 2 light bots; destroy all "
             "enemies within 3 minutes.").concepts
    assert c.archetype == "micro" and c.squad == {"heavy_tank": 4}
    assert c.enemy_force == {"artillery_bot": 5, "rocket_bot": 3, "light_bot": 2}


@pytest.mark.parametrize("query, squad, enemy", [
    ("Three artillery bots and two rocket bots have to deal with nine light bots; nothing can be built.",
     {"artillery_bot": 3, "rocket_bot": 2}, {"light_bot": 9}),
    ("Your four heavy tanks need to take care of twelve assault bots; kill them all within 3 minutes.",
     {"heavy_tank": 4}, {"assault_bot": 12}),
])
def test_a_squad_that_must_handle_an_enemy_force_is_a_skirmish(query, squad, enemy):
    c = read(query).concepts
    assert (c.archetype, c.squad, c.enemy_force) == ("micro", squad, enemy)


def test_an_absurd_skirmish_is_played_at_the_cap_and_says_so():
    from genesis.offline.brief_writer import write_brief

    query = "A fight of two million heavy tanks versus three thousand light bots; kill them all."
    reading = read(query)
    c = reading.concepts
    assert sum(c.squad.values()) == sum(c.enemy_force.values()) == 60
    (clause,) = [cl for cl in write_brief(query, reading).clauses if "million" in cl.text]
    assert clause.status == "partial" and "2,000,000 units on one side requested" in clause.why


def test_an_aside_in_brackets_between_the_squad_and_its_foe_is_read_past():
    c = read("quick kiting drill: my four rocket bots (faster, longer range) vs seven assault bots. cant lose more "
             "than one. two minute cap.").concepts
    assert (c.squad, c.enemy_force, c.max_losses, c.kiting) == ({"rocket_bot": 4}, {"assault_bot": 7}, 1, True)
