"""The offline designer's defence, raids, scouting and production families vary per seed what the request
leaves open (GDD.variation): every declared variation names a real param of a real component, a request
that fixes every event is a fixed drill quoted verbatim, jittered times are evidenced in windows that
cover the jitter, and a generated level plays a different game on each seed that the reference wins
while its blind replay, a rush and the design's own probes do not."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
import yaml

from engine import Simulation, load_level
from engine.agent.open_loop import OpenLoopPolicy, RushPolicy
from engine.agent.policies import make_policy
from engine.agent.scripted import ScriptedPolicy
from genesis.certificate import schedule_of
from genesis.level_assembly import assemble_level
from genesis.models import GDD
from genesis.offline import developer_brain
from genesis.offline import variation as V
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import OBJECTIVE_TAG, design
from genesis.offline.rule_composer import param_decls

KB_RULES = Path(__file__).resolve().parents[2] / "kb" / "rules"

# requests of the four families, open and fixed, in several phrasings
VARIED = [
    "defend two fronts with staggered waves",
    "Protect your two metal storages from waves coming from the west and the east",
    "Survive 5 minutes against 4 waves, each larger than the last",
    "Hold out for 6 minutes: waves at 0:45, 2:00, 3:30 and 5:00",
    "The enemy sends a small probe first, then the main attack: defend your base",
    "Defend your storages against a ground assault, with an air raid at the end",
    "Enemy raiders hit your extractors every 60 seconds from a random side",
    "Bombers raid your metal storages every 2 minutes",
    "Scout the approaches: the enemy attacks from a side you have not scouted",
    "Protect your base: each wave comes from a random direction",
    "Produce 6 light tanks within 5 minutes while enemy raiders harass your extractors",
    "Build 4 assault bots by 4:00; the enemy attacks your base at 2:00 and 3:30",
]


def _design(query: str) -> GDD:
    return design(write_brief(query, read(query)))


def _declared_params(comp) -> set[str]:
    if comp.recipe is not None:
        return set(param_decls(comp.recipe))
    meta = yaml.safe_load((KB_RULES / comp.library_rule / "meta.yaml").read_text())
    return set(meta.get("params") or {})


@pytest.mark.parametrize("query", VARIED)
def test_every_declared_variation_names_a_real_param_of_a_real_component(query):
    gdd = _design(query)
    var = gdd.variation
    assert var.varies, "an open request must vary something per seed"
    assert var.fixed_by is None
    comps = {c.id: c for c in gdd.rule_components}
    for v in var.varies:
        cid = V.component_of(v.how)
        assert cid in comps, (v.how, sorted(comps))
        head = v.how.split(":")[0]
        if "." in head:
            param = head.split(".", 1)[1].strip()
            assert param in _declared_params(comps[cid]), (v.how, sorted(_declared_params(comps[cid])))
            if v.how.endswith(("jitter", "shuffle", "pick")) and ":" not in v.how:
                # the level really switches the draw on
                value = comps[cid].params.get(param)
                assert value not in (None, False, 0, "cycle"), (v.how, value)
    if var.knob:
        cid, param = var.knob.split(".", 1)
        assert cid in comps and param in _declared_params(comps[cid]), var.knob
    for probe in var.probes:
        assert probe.orders and all(o.t >= 0 for o in probe.orders)


@pytest.mark.parametrize("query, clause", [
    ("Enemies attack from the north at 1:00 and then from the east at 2:30; keep your storage alive",
     "Enemies attack from the north at 1:00 and then from the east at 2:30"),
    ("A small probe attacks at 1:00 from the west, then the main attack at 3:00 from the east", None),
])
def test_a_request_that_fixes_every_event_is_a_fixed_drill_quoted_verbatim(query, clause):
    gdd = _design(query)
    var = gdd.variation
    assert var.fixed_by and var.fixed_by in query
    if clause:
        assert var.fixed_by == clause
    # the seed only moves the stated times by a few seconds
    assert var.varies and all(v.how.endswith("jitter") for v in var.varies)
    for comp in gdd.rule_components:
        for key, value in comp.params.items():
            if key.endswith("jitter") and value:
                assert value <= V.STATED_JITTER
            assert not (key == "shuffle" and value)


def test_sides_the_request_orders_keep_their_order_and_open_times_still_vary():
    gdd = _design("Waves come first from the west, then from the north, then from the east")
    waves = next(c for c in gdd.rule_components if c.id == "staggered_waves").params
    assert not waves.get("shuffle") and waves["jitter"] > V.STATED_JITTER      # the times are the designer's
    assert gdd.variation.fixed_by is None


def test_jittered_wave_times_are_evidenced_in_windows_that_cover_the_jitter():
    gdd = _design("Hold out for 6 minutes: waves at 0:45, 2:00, 3:30 and 5:00")
    waves = next(c for c in gdd.rule_components if c.id == "staggered_waves").params
    late = waves["jitter"]
    assert 0 < late <= V.STATED_JITTER          # stated times: a few seconds
    req = next(r for r in gdd.requirements if r.id == "wave_times")
    for t, e in zip(sorted(waves["times"]), req.expect):
        e = e.model_dump()
        assert e["after"] <= t and e["before"] >= t + late


def test_open_times_vary_more_than_stated_ones_but_never_swap_two_waves():
    open_, stated = _design("defend two fronts with staggered waves"), _design(
        "Hold out for 6 minutes: waves at 0:45, 2:00, 3:30 and 5:00")
    jitters = [next(c for c in g.rule_components if c.id == "staggered_waves").params for g in (open_, stated)]
    assert jitters[0]["jitter"] > jitters[1]["jitter"]
    for p in jitters:
        times = sorted(p["times"])
        assert p["jitter"] < min(b - a for a, b in zip(times, times[1:]))


def test_the_enemy_staging_base_stands_beyond_the_defences_reaction_and_outguns_its_army():
    gdd = _design("defend two fronts with staggered waves")
    turrets = gdd.teams[1].units
    assert turrets and all(u.type == V.BASE_TURRET for u in turrets)
    radius = gdd.strategy_params["threat_radius"]
    guarded = [(u.x, u.y) for u in gdd.teams[0].units if u.tag == OBJECTIVE_TAG] + [tuple(gdd.strategy_params["home"])]
    assert all(math.dist((t.x, t.y), g) > radius for t in turrets for g in guarded)
    army = {}
    for u in gdd.teams[0].units:
        if u.tag is None and u.type not in ("radar_tower",):
            army[u.type] = army.get(u.type, 0) + u.count
    assert V._power({V.BASE_TURRET: len(turrets)}) >= V.BASE_MARGIN * V._power(army)
    assert "staging base" in gdd.agent_description


def test_a_raided_race_starts_leaner_and_its_raids_go_on_until_beaten():
    gdd = _design("Produce 6 light tanks within 5 minutes while enemy raiders harass your extractors")
    raids = next(c for c in gdd.rule_components if c.id == "periodic_raids").params
    assert raids["chase"] is True and raids["jitter"] > 0 and len(raids["sides"]) == 3
    plain = _design("Produce 6 light tanks within 5 minutes")
    assert gdd.teams[0].metal < plain.teams[0].metal


# ---- played ----------------------------------------------------------------------------------------
def _level(gdd: GDD, folder: Path) -> Path:
    """The GDD's level with its rules (library rules copied, composed ones composed), as the pipeline makes it."""
    (folder / "rules").mkdir(parents=True, exist_ok=True)
    refs = []
    for comp in gdd.rule_components:
        if comp.recipe is not None:
            draft = developer_brain.write_rule(comp, None, gdd.map.model_dump(exclude_none=True))
            (folder / "rules" / f"{comp.id}.lua").write_text(draft.source)
            refs.append({"id": comp.id, "params": draft.params})
        else:
            shutil.copy(KB_RULES / comp.library_rule / "rule.lua", folder / "rules" / f"{comp.id}.lua")
            refs.append({"id": comp.id, "params": comp.params})
    level = assemble_level(gdd, refs)
    level.setdefault("metadata", {})["variation"] = gdd.variation.model_dump(mode="json")
    path = folder / "level.json"
    path.write_text(json.dumps(level))
    return path


def _play(path: Path, seed: int, policy):
    return Simulation(load_level(path), seed=seed, policies={0: policy}).run()


def test_the_readme_level_plays_another_game_per_seed_that_the_reference_wins_and_a_rush_does_not(tmp_path):
    gdd = _design("defend two fronts with staggered waves")
    path = _level(gdd, tmp_path)
    games = [_play(path, s, make_policy("reference", team=0, seed=s)) for s in (0, 1)]
    assert all(0 in g.winners for g in games), [g.reason for g in games]
    assert games[0].trace_hash != games[1].trace_hash
    waves = [[(e["fields"]["from"], round(e["t"])) for e in g.trace if e.get("event") == "rule_log"
              and e.get("name") == "wave"] for g in games]
    assert waves[0] != waves[1]
    # attacking the enemy in sight at the start (its staging base) loses the army and the game
    assert 0 not in _play(path, 0, RushPolicy(team=0, seed=0)).winners


@pytest.mark.slow
@pytest.mark.parametrize("query", [
    "defend two fronts with staggered waves",
    "Enemy raiders hit your extractors every 60 seconds from a random side",
    "Scout the approaches: the enemy attacks from a side you have not scouted",
])
def test_the_reference_wins_every_seed_and_no_blind_plan_does(tmp_path, query):
    gdd = _design(query)
    path = _level(gdd, tmp_path)
    seeds = range(5)
    ref = [_play(path, s, make_policy("reference", team=0, seed=s)) for s in seeds]
    assert all(0 in g.winners for g in ref), [g.reason for g in ref]
    assert len({g.trace_hash for g in ref}) >= 3
    schedule = schedule_of(ref[0].trace, [0])
    blind = [_play(path, s, OpenLoopPolicy(team=0, seed=s, schedule=schedule)) for s in seeds]
    assert sum(0 in g.winners for g in blind) <= 2
    for probe in gdd.variation.probes:
        wins = [0 in _play(path, s, ScriptedPolicy(team=0, seed=s, orders=probe.orders)).winners for s in seeds]
        assert not all(wins), probe.name


# ---- the rules' seeded draws ------------------------------------------------------------------------
def _rule_level(tmp_path: Path, script: str, params: dict, units: list[dict], until: float,
                map_name: str = "open_field") -> Path:
    (tmp_path / "rule.lua").write_text(script)
    level = {"name": "draws", "description": "d", "map": {"name": map_name},
             "switches": {"fog_of_war": False, "production": False, "time_limit": until},
             "teams": [{"id": 0, "name": "p", "units": units},
                       {"id": 1, "name": "e", "controller": {"type": "ai", "behaviour": "idle"}}],
             "rules": [{"id": "draws", "script": "rule.lua", "params": params}]}
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    return path


def _logged(path: Path, seed: int, name: str) -> list[tuple]:
    result = Simulation(load_level(path), seed=seed).run()
    return [(e["fields"].get("from"), round(e["t"], 2)) for e in result.trace
            if e.get("event") == "rule_log" and e.get("name") == name]


def test_escalating_waves_draw_fronts_and_times_per_seed_but_each_seed_replays_the_same(tmp_path):
    path = _rule_level(tmp_path, (KB_RULES / "escalating_waves" / "rule.lua").read_text(),
                       {"times": [5, 25, 45, 65], "base_size": 1, "growth": 1, "from": ["west", "north", "east"],
                        "pick": "bag", "jitter": 6}, [{"type": "heavy_tank", "at": "center", "tag": "hq"}], 80)
    draws = [_logged(path, s, "wave") for s in range(4)]
    assert len({tuple(d) for d in draws}) > 1                 # the seed matters
    assert _logged(path, 2, "wave") == draws[2]                # a seed's game is replayed exactly
    for d in draws:
        assert {f for f, _ in d[:3]} == {"west", "north", "east"}        # a round uses every front once
        assert all(a != b for (a, _), (b, _) in zip(d, d[1:]))           # never one front twice in a row
        assert all(t0 <= t <= t0 + 6 for (_, t), t0 in zip(d, (5, 25, 45, 65)))


def test_a_composed_timed_step_with_jitter_fires_a_seeded_amount_late(tmp_path):
    from genesis.offline.rule_composer import compose
    from genesis.rule_recipe import RuleRecipe
    recipe = RuleRecipe.model_validate({"steps": [{"when": {"on": "time", "at": [10, 40], "jitter": 8}, "then": [
        {"do": "spawn", "team": 1, "units": {"light_bot": 1}, "at": ["west", "east"], "pick": "random"}]}]})
    draft = compose("jittered", recipe, "a jittered timed spawn")
    path = _rule_level(tmp_path, draft.source, draft.params, [{"type": "commander", "at": "center"}], 60)
    fired = [[t for _, t in _logged(path, s, "step_fired")] for s in range(4)]
    assert len({tuple(f) for f in fired}) > 1
    for f in fired:
        assert len(f) == 2 and 10 <= f[0] <= 18 and 40 <= f[1] <= 48
    # without jitter the step fires on time on every seed
    exact = _rule_level(tmp_path, draft.source, {**draft.params, "s1_jitter": 0},
                        [{"type": "commander", "at": "center"}], 60)
    assert {tuple(t for _, t in _logged(exact, s, "step_fired")) for s in range(3)} == {(10.0, 40.0)}


@pytest.mark.parametrize("query", [
    "An attack comes sometime in the first three minutes from an unknown direction; survive until the 4 minute mark",
    "enemies show up sometime between minute 1 and minute 3 from whichever side; survive five minutes",
])
def test_an_attack_window_starts_the_schedule_and_its_width_is_how_late_the_seed_may_make_it(query):
    brief = write_brief(query, read(query))
    lo, hi = brief.concepts.attack_window
    gdd = design(brief)
    spawner = next(c for c in gdd.rule_components if c.kind == "spawn")
    first = spawner.params.get("first_at", (spawner.params.get("times") or [None])[0])
    assert first == lo and spawner.params["jitter"] == hi - lo
    window = next(r for r in gdd.requirements if r.id == "attack_window")
    assert {e.after for e in window.expect} >= {lo - 1} and any(e.max == 0 for e in window.expect)
    assert any(v.how.endswith("jitter") for v in gdd.variation.varies)
