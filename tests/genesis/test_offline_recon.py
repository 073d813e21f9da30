"""The offline reconnaissance family: "locate all four enemy extractors" is read as a search for hidden
targets (never as a defence whose objectives stand in for them), and designed as a scout under fog
of war looking for targets at seeded sites, each guarded, won by seeing them all (`locate_targets`)."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from genesis.offline import recon_design as R
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design

ASK = "scout with one fast unit and locate all four enemy extractors within two minutes without losing the scout"


def _component(gdd, cid: str):
    return next(c for c in gdd.rule_components if c.id == cid)


@pytest.mark.parametrize("query, kind, count, deadline", [
    (ASK, "metal_extractor", 4, 120),
    ("find the 3 hidden enemy radar towers in 3 minutes", "radar_tower", 3, 180),
    ("locate every enemy metal storage before minute 4", "metal_storage", 4, 240),
    ("find the two hidden enemy storages within 90 seconds with your scout", "metal_storage", 2, 90),
])
def test_a_search_is_read_with_its_targets_and_deadline(query, kind, count, deadline):
    brief = write_brief(query, read(query))
    c = brief.concepts
    assert brief.is_game and c.archetype == "recon" and c.fog
    assert (c.locate_type, c.locate_count, c.deadline) == (kind, count, deadline)
    assert {"locate_win", "hidden_targets", "deadline"} <= {r.id for r in brief.requirements}
    assert not {"objective_loss", "survive_win", "scouting", "fronts"} & {r.id for r in brief.requirements}
    assert all(cl.status != "not_honoured" for cl in brief.clauses), brief.clauses


def test_every_clause_of_the_search_is_honoured_by_what_is_built():
    brief = write_brief(ASK, read(ASK))
    assert brief.concepts.protect_unit == "scout"
    assert all(cl.status == "honoured" for cl in brief.clauses), brief.clauses
    ids = {i for cl in brief.clauses for i in cl.requirement_ids}
    assert {"locate_win", "hidden_targets", "deadline", "protect_unit"} <= ids


@pytest.mark.parametrize("query", [
    "Scout the approaches: the enemy attacks from a side you have not scouted",
    "The enemy base could be anywhere, find it and destroy it",
    "defend your two storages against waves and find the enemy scouts",
])
def test_other_scouting_games_keep_their_family(query):
    assert read(query).concepts.archetype != "recon"


def test_the_design_hides_guarded_targets_at_seeded_sites_out_of_the_scouts_first_sight():
    gdd = design(write_brief(ASK, read(ASK)))
    assert gdd.fog_of_war and [(u.type, u.tag) for u in gdd.teams[0].units] == [("scout", R.SCOUT_TAG)]
    scout = gdd.teams[0].units[0]
    layouts = _component(gdd, "layout").params["layouts"]
    assert len(layouts) == R.LAYOUTS and len({l["name"] for l in layouts}) == R.LAYOUTS
    for layout in layouts:
        targets = [u for u in layout["units"] if u.get("tag") == R.TARGET_TAG]
        guards = [u for u in layout["units"] if u["type"] == R.GUARD_TYPE]
        assert [t["type"] for t in targets] == ["metal_extractor"] * 4 and len(guards) == 4
        assert all(math.dist((t["x"], t["y"]), (scout.x, scout.y)) >= R.MIN_START_DIST for t in targets)
    assert _component(gdd, "locate_targets").params["deadline"] == 120
    assert _component(gdd, "scout_loss").params["tag"] == R.SCOUT_TAG
    assert gdd.strategy_params["roles"] == [{"role": "scout", "tag": R.SCOUT_TAG, "count": 1}]
    assert gdd.variation.varies[0].how == "layout.layouts"
    assert all(r.expect for r in gdd.requirements if r.testable)
    weaker = design(write_brief(ASK, read(ASK)), ["make the enemy weaker", "make the enemy weaker"])
    guards = [u["count"] for u in _component(weaker, "layout").params["layouts"][0]["units"] if u["type"] == R.GUARD_TYPE]
    assert guards and max(guards) < R.GUARDS


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_genesis_new_builds_a_certified_search(tmp_path):
    out = tmp_path / "recon"
    done = subprocess.run([sys.executable, "-m", "genesis", "-w", str(tmp_path / "ws"), "new", ASK, "--out", str(out)],
                          cwd=Path(__file__).resolve().parents[2], env={**os.environ, "GENESIS_CERTIFICATE": "on"},
                          capture_output=True, text=True, timeout=880)
    v = json.loads((out / "validation.json").read_text())
    assert v["certified"], (v.get("reason"), v.get("certificate", {}).get("checks"), done.stdout[-2000:])
    status = {r["id"]: r["status"] for r in v["requirements"]}
    assert {status[i] for i in ("locate_win", "hidden_targets", "deadline", "protect_unit")} == {"verified"}, status


def test_the_units_a_search_names_search_and_losing_all_of_them_loses():
    query = ("Recon under fog: sending three light bots, find all 4 hidden enemy radar towers within 3 minutes; "
             "losing all of your light bots loses.")
    brief = write_brief(query, read(query))
    c = brief.concepts
    assert c.archetype == "recon" and c.player_start == {"light_bot": 3} and c.protect_all
    gdd = design(brief)
    assert [(u.type, u.count, u.tag) for u in gdd.teams[0].units] == [("light_bot", 3, R.SCOUT_TAG)]
    assert gdd.strategy_params["roles"] == [{"role": "scout", "tag": R.SCOUT_TAG, "count": 3}]
    assert _component(gdd, "scout_loss").params["mode"] == "all"
    assert all(cl.status == "honoured" for cl in brief.clauses), [(cl.text, cl.why) for cl in brief.clauses]


def test_guards_stand_behind_each_target_so_a_careful_scout_sees_it_from_its_own_side():
    gdd = design(write_brief(ASK, read(ASK)))
    start = gdd.strategy_params["home"]
    for layout in _component(gdd, "layout").params["layouts"]:
        targets = [u for u in layout["units"] if u.get("tag") == R.TARGET_TAG]
        guards = [u for u in layout["units"] if u["type"] == R.GUARD_TYPE]
        for t, g in zip(targets, guards):
            near, far = math.dist((t["x"], t["y"]), start), math.dist((g["x"], g["y"]), start)
            assert far > near
            assert math.dist((t["x"], t["y"]), (g["x"], g["y"])) >= R.GUARD_OFFSET - 1.5


def test_one_named_scout_is_one_scout():
    c = read("Recon with fog of war on: one raider bot must locate the 3 hidden enemy solar collectors within 5 "
             "minutes.").concepts
    assert c.player_start == {"raider_bot": 1}
