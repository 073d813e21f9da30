"""What the seed varies in the free-for-all, team-battle, siege and capture designs: every design declares
its variation with a mechanism that exists (a real param of a real component, or a rule that draws), and
the generated levels really play another game on another seed, which the reference still wins."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine import Simulation, load_level
from engine.agent.policies import make_policy
from engine.agent.scripted import ScriptedOrder, ScriptedPolicy
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design
from genesis.workspace import seed_kb
from tests.genesis.offline_design_helpers import write_level

RULES = seed_kb() / "rules"

REQUESTS = {
    "siege": "siege: destroy the enemy metal storage inside its fortified base within 5 minutes",
    "siege_no_fog": "siege the fortified base without fog of war and destroy the storage within 5 minutes",
    "teams": "a 2v2 team battle with fixed forces and no production, allies controlled by the AI",
    "teams_3v3": "a 3v3 team battle for 4 minutes",
    "ffa": "a free-for-all of four teams for 3 minutes, ranked by damage efficiency",
    "capture_open": "capture and hold a control point for 2 minutes",
    "capture_fixed": "capture the centre and hold it for 90 seconds before minute 5",
}


def _gdd(query: str):
    return design(write_brief(query, read(query)))


def _logs(level_path: Path, seed: int, name: str, policy: str = "idle", until: float | None = 1.0) -> list[dict]:
    level = load_level(level_path)
    sim = Simulation(level, seed=seed, policies={0: make_policy(policy, team=0, seed=seed)})
    result = sim.run(until=until)
    return [e for e in result.trace if e.get("event") == "rule_log" and e.get("name") == name]


@pytest.mark.parametrize("family", sorted(REQUESTS))
def test_every_design_declares_a_variation_whose_mechanism_exists(family):
    gdd = _gdd(REQUESTS[family])
    assert gdd.variation.varies and gdd.variation.probes and gdd.variation.fixed_by is None
    comps = {c.id: c for c in gdd.rule_components}
    for v in gdd.variation.varies:
        if ": random" in v.how:
            comp = comps[v.how.split(":")[0]]
            source = (RULES / comp.library_rule / "rule.lua").read_text()
            assert "random(" in source or "random_int(" in source, v.how
        else:
            cid, param = v.how.split(".")
            declared = yaml.safe_load((RULES / comps[cid].library_rule / "meta.yaml").read_text())["params"]
            assert param in declared and param in comps[cid].params, v.how
    if gdd.variation.knob:
        cid, param = gdd.variation.knob.split(".")
        assert isinstance(comps[cid].params[param], (int, float))


def test_the_siege_core_stands_at_another_site_on_another_seed_and_the_reference_scouts_it_out(tmp_path):
    gdd = _gdd(REQUESTS["siege"])
    assert gdd.fog_of_war and gdd.strategy_params["search"] == gdd.rule_components[0].params["sites"]
    path = write_level(gdd, tmp_path)
    sites = {s: _logs(path, s, "fortification")[0]["fields"]["site"] for s in range(5)}
    assert len(set(sites.values())) >= 3, sites
    a, b = 0, next(s for s in sites if sites[s] != sites[0])
    for seed in (a, b):
        level = load_level(path)
        result = Simulation(level, seed=seed, policies={0: make_policy("reference", team=0, seed=seed)}).run()
        assert 0 in result.winners, (seed, result.reason)
    # a blind march to the seed-0 site wins there and fails on a seed whose core stands elsewhere
    x, y = gdd.rule_components[0].params["sites"][sites[a] - 1]
    march = [ScriptedOrder(t=0, kind="fight", x=x, y=y)]
    won = {}
    for seed in sites:
        level = load_level(path)
        result = Simulation(level, seed=seed, policies={0: ScriptedPolicy(team=0, seed=seed, orders=march)}).run()
        won[seed] = 0 in result.winners
    assert won[a] and not all(won.values()), won


def test_without_fog_the_other_sites_hold_decoy_rings():
    gdd = _gdd(REQUESTS["siege_no_fog"])
    params = gdd.rule_components[0].params
    assert not gdd.fog_of_war and params["decoy_turrets"] == params["turrets"] and "search" not in gdd.strategy_params


def test_team_battles_draw_mirrored_layouts_and_the_player_starts_in_other_places(tmp_path):
    gdd = _gdd(REQUESTS["teams"])
    path = write_level(gdd, tmp_path)
    names = {s: _logs(path, s, "layout")[0]["fields"]["name"] for s in range(5)}
    assert len(set(names.values())) >= 4, names
    starts = set()
    for s in range(3):
        level = load_level(path)
        sim = Simulation(level, seed=s, policies={})
        w = sim.world
        ids = w.select(team=0)
        starts.add((round(float(w.x[ids].mean())), round(float(w.y[ids].mean()))))
    assert len(starts) >= 2, starts
    # every layout keeps the alliances on opposite halves of the map (west/east or north/south)
    [layout_rule] = [c for c in gdd.rule_components if c.library_rule == "seeded_layout"]
    centre = 48.0
    for layout in layout_rule.params["layouts"]:
        home = {}
        for u in layout["units"]:
            home.setdefault(u["team"], (u["x"], u["y"]))
        assert any({home[t][axis] < centre for t in (0, 1)} == {True} and {home[t][axis] > centre for t in (2, 3)} == {True}
                   or {home[t][axis] > centre for t in (0, 1)} == {True} and {home[t][axis] < centre for t in (2, 3)} == {True}
                   for axis in (0, 1)), layout["name"]


def test_a_free_for_all_draws_the_players_start_and_its_hunter(tmp_path):
    gdd = _gdd(REQUESTS["ffa"])
    path = write_level(gdd, tmp_path)
    names = {s: _logs(path, s, "layout")[0]["fields"]["name"] for s in range(5)}
    assert len(set(names.values())) >= 4, names
    assert gdd.strategy_params["engage_at"] > 0


def test_an_open_capture_zone_is_a_seeded_outpost_the_reference_reads_off_the_map(tmp_path):
    gdd = _gdd(REQUESTS["capture_open"])
    rule = gdd.rule_components[0]
    assert len(rule.params["zones"]) == 4 and "zone" not in gdd.strategy_params
    assert gdd.strategy_params["zones"] == rule.params["zones"]
    path = write_level(gdd, tmp_path)
    zones = {s: (_logs(path, s, "zone")[0]["fields"]["x"], _logs(path, s, "zone")[0]["fields"]["y"]) for s in range(5)}
    assert len(set(zones.values())) >= 3, zones
    b = next(s for s in zones if zones[s] != zones[0])
    for seed in (0, b):
        held = _logs(path, seed, "zone_held", policy="reference", until=None)
        assert held, seed


def test_a_fixed_capture_zone_stays_put_and_relief_columns_vary_instead():
    gdd = _gdd(REQUESTS["capture_fixed"])
    comps = {c.id: c for c in gdd.rule_components}
    assert "zones" not in comps["capture_and_hold"].params and comps["capture_and_hold"].params["zone"] == [24.5, 24.5]
    relief = comps["relief"].params
    assert relief["jitter"] > 0 and relief["avoid_repeat"] and len(relief["sides"]) >= 3


def _enemy_units(gdd) -> int:
    layout = next(c for c in gdd.rule_components if c.library_rule == "seeded_layout")
    first = layout.params["layouts"][0]["units"]
    return sum(u["count"] for u in first if u["team"] >= 2)


def test_a_cheap_win_makes_the_team_battles_enemy_stronger_unless_the_request_asks_for_equal_forces():
    from genesis.offline.pm_brain import CHEAP_WIN, VARY_MORE
    plain = write_brief(REQUESTS["teams_3v3"], read(REQUESTS["teams_3v3"]))
    base, harder = design(plain), design(plain, [CHEAP_WIN, VARY_MORE])
    assert _enemy_units(harder) > _enemy_units(base)
    assert "larger than yours" in harder.agent_description and "equal forces" in base.agent_description
    equal = "a 2v2 team battle with equal forces for 4 minutes"
    brief = write_brief(equal, read(equal))
    assert _enemy_units(design(brief, [CHEAP_WIN])) == _enemy_units(design(brief))
