"""The checks added for failures seen in generated levels: each fails on a hand-made bad case and
passes on the repaired one, and every one is registered for its stage."""
import json

from engine.schema.mapdata import MapData
from genesis.checks import CheckContext
from genesis.checks.playability_checks import (degenerate_difficulty, objectives_reachable, requirement_evidence_present,
                                               rules_fire, start_pathability, waves_reach_player)
from genesis.checks.preview import balance_preview
from genesis.checks.registry import CHECKS, CHECK_TEXT, THRESHOLDS, registry_facts
from genesis.models import Brief
from genesis.offline import gdd_writer
from genesis.offline.brain import SKILLS
from genesis.simulate import SimRun
from tests.genesis.pipeline_fixtures import seed_dirs  # noqa: F401 (fixture)

SIZE, CENTRE, RING = 48, 24, 6


def pocket_map(path, walled=True):
    """An open map whose centre is a cliff-walled pocket (or not, with walled=False)."""
    rows = ["".join("#" if walled and max(abs(x - CENTRE), abs(y - CENTRE)) == RING else "." for x in range(SIZE))
            for y in range(SIZE)]
    spawns = [{"name": "base", "x": CENTRE + 0.5, "y": CENTRE + 0.5}, {"name": "east", "x": 44.5, "y": 24.5},
              {"name": "west", "x": 3.5, "y": 24.5}, {"name": "north", "x": 24.5, "y": 3.5},
              {"name": "south", "x": 24.5, "y": 44.5}]
    path.write_text(MapData(name="pocket", width=SIZE, height=SIZE, rows=rows, spawns=spawns).model_dump_json())
    return path


def brief(query):
    return Brief.model_validate(SKILLS["designer.clarify"]({"query": query, "clarifications": []}))


def test_every_new_check_is_registered_with_its_criterion_text():
    new = {("gdd", "start_pathability"), ("gdd", "balance_preview"), ("level", "objectives_reachable"),
           ("level", "degenerate_difficulty"), ("level", "waves_reach_player"), ("level", "rules_fire"),
           ("level", "requirement_evidence_present")}
    assert all(name in CHECKS[stage] and (stage, name) in CHECK_TEXT for stage, name in new)
    assert all(name in CHECKS[stage] for stage, name in THRESHOLDS)
    facts = registry_facts()
    assert facts["gdd"]["judged_criteria_allowed"] and not facts["level"]["judged_criteria_allowed"]
    assert "reference_lost" in facts["gdd"]["checks"]["balance_preview"]["catches"]


def test_start_pathability_fails_units_boxed_in_at_their_spawn(tmp_path, monkeypatch):
    maps = {True: pocket_map(tmp_path / "pocket.json"), False: pocket_map(tmp_path / "open.json", walled=False)}
    walled = [True]
    monkeypatch.setattr(gdd_writer, "_map_for", lambda c: {"file": str(maps[walled[0]])})
    b = brief("defend two fronts with staggered waves")
    ok, why = start_pathability(CheckContext(gdd=gdd_writer.design(b, [])))
    assert not ok and "can reach only" in why
    walled[0] = False   # the same design on the same spawns, without the wall
    ok, why = start_pathability(CheckContext(gdd=gdd_writer.design(b, [])))
    assert ok, why
    # a stricter threshold than any map can meet fails even the open design
    assert not start_pathability(CheckContext(gdd=gdd_writer.design(b, []), params={"min_region_share": 1.01}))[0]


def _level(tmp_path, objective_xy):
    pocket_map(tmp_path / "pocket.json")
    level = {"schema_version": 1, "name": "t", "description": "t", "map": {"file": "pocket.json"},
             "teams": [{"id": 0, "name": "p", "controller": {"type": "agent"},
                        "units": [{"type": "light_tank", "count": 3, "x": 6.5, "y": 6.5}]},
                       {"id": 1, "name": "e", "controller": {"type": "none"},
                        "units": [{"type": "metal_storage", "x": objective_xy[0], "y": objective_xy[1],
                                   "tag": "objective"}]}],
             "switches": {"time_limit": 120}}
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    return CheckContext(level=level, level_path=path)


def test_objectives_reachable_fails_an_objective_inside_a_walled_pocket(tmp_path):
    ok, why = objectives_reachable(_level(tmp_path, (CENTRE + 0.5, CENTRE + 0.5)))
    assert not ok and "cannot reach" in why
    ok, why = objectives_reachable(_level(tmp_path, (40.5, 40.5)))
    assert ok, why


def run(policy="reference", seed=0, winners=(0,), duration=200.0, lost=0, events=()):
    return SimRun(seed=seed, policy=policy, ok=True, winners=list(winners), duration=duration,
                  team_stats={"0": {"units_lost": lost}}, events=list(events))


def test_degenerate_difficulty_fails_a_level_won_at_once_without_losses():
    level = {"time_limit": 300}
    quick = [run(seed=s, duration=20.0) for s in range(3)]
    ok, why = degenerate_difficulty(CheckContext(level=level, runs=quick))
    assert not ok and "3/3 seeds" in why
    one_fight = quick[:2] + [run(seed=2, duration=20.0, lost=1)]
    assert degenerate_difficulty(CheckContext(level=level, runs=one_fight))[0]
    assert degenerate_difficulty(CheckContext(level=level, runs=[run(seed=s, duration=150.0) for s in range(3)]))[0]
    # tightened: a quarter of the time limit now counts as too quick
    ok, _ = degenerate_difficulty(CheckContext(level=level, runs=[run(seed=s, duration=60.0) for s in range(3)],
                                               params={"max_share": 0.25}))
    assert not ok


WAVE = [{"t": 30.0, "event": "spawn", "id": 10, "team": 1, "source": "rule", "type": "light_bot", "x": 5, "y": 5},
        {"t": 30.0, "event": "spawn", "id": 11, "team": 1, "source": "rule", "type": "light_bot", "x": 5, "y": 6}]


def test_waves_reach_player_fails_a_wave_that_never_fights():
    ok, why = waves_reach_player(CheckContext(runs=[run(events=WAVE)]))
    assert not ok and "never reached the player" in why
    fought = WAVE + [{"t": 55.0, "event": "death", "id": 10, "team": 1, "type": "light_bot", "x": 9, "y": 9}]
    assert waves_reach_player(CheckContext(runs=[run(events=fought)]))[0]
    assert waves_reach_player(CheckContext(runs=[run(events=[])]))[0]   # no wave: nothing to reach


def test_rules_fire_fails_a_rule_that_leaves_no_event():
    level = {"rules": [{"id": "waves"}, {"id": "timer"}]}
    logs = [{"t": 1.0, "event": "rule_log", "rule": "waves", "name": "wave", "fields": {}}]
    ok, why = rules_fire(CheckContext(level=level, runs=[run(events=logs)]))
    assert not ok and "timer" in why
    logs.append({"t": 2.0, "event": "message", "rule": "timer", "text": "hold", "team": None})
    assert rules_fire(CheckContext(level=level, runs=[run(events=logs)]))[0]


def test_requirement_evidence_present_fails_a_requirement_without_evidence():
    unverified = [{"id": "fronts", "testable": True, "status": "unverified", "per_run": []}]
    ok, why = requirement_evidence_present(CheckContext(evidence=unverified))
    assert not ok and "fronts: unverified" in why
    shown = [{"id": "fronts", "testable": True, "status": "verified", "per_run": [{"seed": 0}, {"seed": 1}]}]
    assert requirement_evidence_present(CheckContext(evidence=shown))[0]
    assert not requirement_evidence_present(CheckContext(evidence=shown, params={"min_runs": 3}))[0]


def test_balance_preview_plays_the_designed_level_before_any_rule_is_built(seed_dirs):
    kb, _ = seed_dirs
    b = brief("survive three waves from two directions, each larger than the last")
    gdd = gdd_writer.design(b, [])
    ok, why = balance_preview(CheckContext(gdd=gdd, kb_root=kb))
    assert ok and "3/3" in why
    # the same design with the defence cut to one light bot: the waves win every seed
    player = gdd.teams[0]
    kept = [u for u in player.units if u.tag] + [u.model_copy(update={"type": "light_bot", "count": 1, "tag": None})
                                                 for u in player.units if not u.tag][:1]
    weak = gdd.model_copy(update={"teams": [player.model_copy(update={"units": kept}), *gdd.teams[1:]]})
    ok, why = balance_preview(CheckContext(gdd=weak, kb_root=kb))
    assert not ok and "reference policy won 0/3" in why and "make the enemy weaker" in why
