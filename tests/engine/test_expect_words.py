"""Expectation shapes as strict as a request's words: named compass sides (in order), each attack at
its stated time, growth by a factor, a field's value range, and the number of teams and alliances.
Each shape passes on a run that has the property and fails on a hand-made run that does not."""
import pytest

from engine import Simulation, load_level
from engine.expect import evaluate, run_sampled, validate

MAP = (96, 96)
CENTRE = [48.5, 48.5]
SIDES = {"w": (6.5, 48.5), "n": (48.5, 6.5), "e": (90.5, 48.5), "s": (48.5, 90.5), "ne": (87.5, 9.5),
         "sw": (9.5, 87.5)}


def wave(t, side, size):
    x, y = SIDES[side]
    return [{"t": t, "event": "spawn", "id": int(t * 100 + k), "type": "light_bot", "team": 1, "x": x + k % 2,
             "y": y + k % 3 - 1, "source": "rule"} for k in range(size)]


def trace(*waves):
    return {"trace": [e for w in waves for e in w], "winners": [0], "losers": [1], "reason": "", "ended_by": "condition",
            "duration": 300.0}


def passes(exp, run) -> bool:
    assert validate(exp) == [], validate(exp)
    [res] = evaluate([exp], run, map_size=MAP)
    return res.passed


SPAWNS = {"event": "spawn", "where": {"source": "rule", "team": 1}}
IN_TURN = trace(wave(60, "w", 3), wave(150, "n", 3), wave(240, "e", 3))


# --- named sectors ---------------------------------------------------------------------------------
def test_named_sectors_pass_only_when_every_named_side_and_no_other_attacks():
    exp = {**SPAWNS, "sectors_named": {"names": ["w", "n", "e"], "center": CENTRE}}
    assert passes(exp, IN_TURN)
    # the failure seen in the field: the map's west/north/east spawns unused, sw/ne/nw instead
    assert not passes(exp, trace(wave(60, "sw", 3), wave(150, "ne", 3), wave(240, "n", 3)))
    assert not passes(exp, trace(wave(60, "w", 3), wave(150, "n", 3)))                     # east never attacks
    assert not passes(exp, trace(wave(60, "w", 3), wave(150, "n", 3), wave(240, "e", 3), wave(300, "s", 2)))


def test_named_sectors_in_order_fail_when_the_fronts_come_in_another_order():
    exp = {**SPAWNS, "sectors_named": {"names": ["w", "n", "e"], "center": CENTRE, "ordered": True, "gap": 20}}
    assert passes(exp, IN_TURN)
    assert not passes(exp, trace(wave(60, "n", 3), wave(150, "w", 3), wave(240, "e", 3)))
    assert not passes(exp, trace(wave(60, "w", 3), wave(60, "n", 3), wave(240, "e", 3)))  # two fronts at once
    [res] = evaluate([exp], trace(wave(60, "n", 3), wave(150, "w", 3), wave(240, "e", 3)), map_size=MAP)
    assert "t=60: n" in res.detail and "order [w, n, e]" in res.detail


def test_ordered_sectors_need_a_gap():
    problems = validate({**SPAWNS, "sectors_named": {"names": ["w"], "ordered": True}})
    assert problems and "gap" in problems[0]
    assert validate({**SPAWNS, "sectors_named": {"names": ["west"]}})        # compass letters only


# --- stated times ----------------------------------------------------------------------------------
def test_cluster_times_hold_each_attack_to_its_time_within_the_tolerance():
    exp = {**SPAWNS, "cluster_times": {"gap": 20, "times": [60, 150, 240], "tolerance": 10}}
    assert passes(exp, IN_TURN)
    assert passes(exp, trace(wave(69, "w", 3), wave(141, "n", 3), wave(240, "e", 3)))
    assert not passes(exp, trace(wave(60, "w", 3), wave(165, "n", 3), wave(240, "e", 3)))   # 15 s late
    assert not passes(exp, trace(wave(60, "w", 3), wave(150, "n", 3)))                      # one missing
    assert not passes(exp, trace(wave(60, "w", 3), wave(150, "n", 3), wave(240, "e", 3), wave(330, "e", 3)))


# --- growth ----------------------------------------------------------------------------------------
def test_growth_by_a_factor_fails_waves_that_grow_by_less():
    doubling = {**SPAWNS, "increasing": {"gap": 20, "factor": 2, "min_buckets": 3}}
    assert passes(doubling, trace(wave(60, "w", 2), wave(120, "w", 4), wave(180, "w", 8)))
    assert not passes(doubling, trace(wave(60, "w", 2), wave(120, "w", 3), wave(180, "w", 4)))
    assert not passes(doubling, trace(wave(60, "w", 2), wave(120, "w", 4)))                 # too few waves
    strictly = {**SPAWNS, "increasing": {"gap": 20, "min_buckets": 3}}
    assert passes(strictly, trace(wave(60, "w", 2), wave(120, "w", 3), wave(180, "w", 4)))
    assert not passes(strictly, trace(wave(60, "w", 3), wave(120, "w", 3), wave(180, "w", 3)))


# --- field values ----------------------------------------------------------------------------------
def held(t, seconds):
    return {"t": t, "event": "rule_log", "rule": "capture_and_hold", "name": "zone_held",
            "fields": {"held": seconds, "team": 0}}


def test_values_bound_every_matching_event_and_need_one():
    exp = {"event": "rule_log", "where": {"name": "zone_held"}, "values": {"field": "fields.held", "min": 120}}
    assert passes(exp, trace([held(200, 120.5)]))
    assert not passes(exp, trace([held(200, 30)]))          # a default 30-second hold
    assert not passes(exp, trace([]))                       # no hold at all
    assert passes({**exp, "min": 0}, trace([]))             # unless none may come: nothing to bound
    assert not passes({**exp, "min": 0}, trace([held(200, 30)]))
    problems = validate({"event": "rule_log", "values": {"field": "nope.held", "min": 1}})
    assert problems and "values.field" in problems[0]
    assert validate({"event": "rule_log", "values": {"field": "fields.held"}})


# --- teams and alliances ---------------------------------------------------------------------------
def sample(owners: dict[int, int], allies: dict[int, list[int]]):
    units = [{"id": 10 * t + k, "type": "light_bot", "team": t, "tag": None, "x": 1.0, "y": 1.0}
             for t, n in owners.items() for k in range(n)]
    return {"trace": [], "winners": [], "losers": [], "ended_by": "condition", "duration": 60.0,
            "states": {0.0: {"t": 0.0, "units": units,
                             "teams": {str(t): {"metal": 0, "energy": 0, "allies": allies.get(t, [])} for t in owners}}}}


def test_team_and_alliance_counts_tell_a_free_for_all_from_a_team_game():
    ffa = {"state": {"at": 0, "teams_min": 4, "teams_max": 4, "alliances_min": 4, "alliance_size": 1}}
    assert passes(ffa, sample({0: 3, 1: 3, 2: 3, 3: 3}, {}))
    assert not passes(ffa, sample({0: 3, 1: 3, 2: 3, 3: 3}, {0: [1], 1: [0], 2: [3], 3: [2]}))   # a 2v2
    assert not passes(ffa, sample({0: 3, 1: 3}, {}))                                              # two teams
    two_v_two = {"state": {"at": 0, "teams_min": 4, "teams_max": 4, "alliances_max": 2, "alliance_size": 2}}
    assert passes(two_v_two, sample({0: 3, 1: 3, 2: 3, 3: 3}, {0: [1], 2: [3]}))   # allies listed on one side
    assert not passes(two_v_two, sample({0: 3, 1: 3, 2: 3, 3: 3}, {0: [1, 2]}))


def test_a_real_sample_carries_each_teams_allies():
    level = load_level({"name": "t", "description": "d", "map": {"name": "open_field"},
                        "switches": {"fog_of_war": False, "production": False, "time_limit": 30},
                        "teams": [{"id": 0, "name": "a", "allies": [1], "units": [{"type": "light_bot", "at": "nw"}]},
                                  {"id": 1, "name": "b", "units": [{"type": "light_bot", "at": "ne"}]},
                                  {"id": 2, "name": "c", "units": [{"type": "light_bot", "at": "se"}]}]})
    _, states = run_sampled(Simulation(level, seed=0), 5, [0])
    run = {"trace": [], "winners": [], "losers": [], "ended_by": "until", "duration": 5.0, "states": states}
    assert passes({"state": {"at": 0, "teams_min": 3, "teams_max": 3, "alliances_min": 2, "alliances_max": 2}}, run)
    assert not passes({"state": {"at": 0, "teams_min": 3, "alliance_size": 1}}, run)


@pytest.mark.parametrize("bad", [{"state": {"at": 0, "teams_min": -1}}, {"state": {"at": 0, "alliance_size": 0}}])
def test_team_counts_are_validated(bad):
    assert validate(bad)
