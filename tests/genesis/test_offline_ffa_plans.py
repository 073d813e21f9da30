"""A free-for-all the reference did not win is redesigned, not retried unchanged: each call for a weaker
enemy moves to the next hunting plan, and every plan keeps the armies equal."""
from __future__ import annotations

from genesis.offline import brief_writer, gdd_writer
from genesis.offline.concepts import read
from genesis.offline.pm_brain import WEAKER


def _design(query: str, corrections: int):
    brief = brief_writer.write_brief(query, read(query))
    return gdd_writer.design(brief, [WEAKER] * corrections)


def _plan(gdd):
    hunts = {t.id: t.controller.target.team for t in gdd.teams if t.controller.type == "ai"}
    return hunts, gdd.strategy_params["engage_at"]


def test_each_weaker_call_tries_the_next_plan_with_equal_armies():
    query = "every team for itself: four armies fight for 3 minutes"
    plans = [_plan(_design(query, k)) for k in range(4)]
    assert plans[0] == ({1: 2, 2: 3, 3: 0}, 90.0)          # a ring: the last AI side hunts the player
    assert plans[1] == ({1: 2, 2: 3, 3: 1}, 90.0)          # the AI sides hunt one another
    assert plans[2] == ({1: 2, 2: 3, 3: 0}, 0.0)           # the ring again, the reference joins at once
    assert plans[3] == plans[2]                            # no plan left: the last one stays
    for k in range(3):
        armies = {tuple((u.type, u.count) for u in t.units) for t in _design(query, k).teams}
        assert len(armies) == 1


def test_a_three_sided_ffa_has_an_ai_ring_and_a_two_sided_one_does_not():
    three = _plan(_design("a three-way free-for-all for 5 minutes", 1))[0]
    assert three == {1: 2, 2: 1}
    one_v_one = read("a free-for-all between two armies for 4 minutes").concepts
    assert gdd_writer._ffa_plan(one_v_one, [WEAKER]) == "join_at_once"
