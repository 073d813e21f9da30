"""A free-for-all the reference did not win is redesigned, not retried unchanged: each call for a weaker
enemy moves to the next plan (the reference joins the fight earlier), and every plan keeps the armies
equal. The seeded layouts say which start the player's side holds and which rival hunts it."""
from __future__ import annotations

from genesis.offline import brief_writer, gdd_writer
from genesis.offline.concepts import read
from genesis.offline.pm_brain import WEAKER


def _design(query: str, corrections: int):
    brief = brief_writer.write_brief(query, read(query))
    return gdd_writer.design(brief, [WEAKER] * corrections)


def _layouts(gdd) -> list[dict]:
    return next(c for c in gdd.rule_components if c.library_rule == "seeded_layout").params["layouts"]


def _hunts(layout: dict) -> dict[int, int]:
    return {c["team"]: c["controller"]["target"]["team"] for c in layout["controllers"]}


def test_each_weaker_call_has_the_reference_join_earlier_with_equal_armies():
    query = "every team for itself: four armies fight for 3 minutes"
    engage = [_design(query, k).strategy_params["engage_at"] for k in range(4)]
    assert engage == [120.0, 90.0, 0.0, 0.0]                  # 2/3, then half the game, then at once; no plan left
    for k in range(3):
        for layout in _layouts(_design(query, k)):
            armies = {}
            for u in layout["units"]:
                armies.setdefault(u["team"], []).append((u["type"], u["count"]))
            assert len({tuple(a) for a in armies.values()}) == 1 and len(armies) == 4


def test_every_rival_hunts_the_player_in_some_layout_and_exactly_one_in_each():
    layouts = _layouts(_design("every team for itself: four armies fight for 3 minutes", 0))
    hunters = []
    for layout in layouts:
        hunts = _hunts(layout)
        [hunter] = [t for t, prey in hunts.items() if prey == 0]
        hunters.append(hunter)
        # nobody else is left alone: every AI side has a prey other than itself
        assert all(prey != t for t, prey in hunts.items())
    assert set(hunters) == {1, 2, 3}
    # and the player's side starts at each of the four starts
    starts = {(u["x"], u["y"]) for layout in layouts for u in layout["units"] if u["team"] == 0 and u["type"] == "light_bot"}
    assert len(starts) == 4


def test_a_three_sided_ffa_has_the_other_rival_hunt_the_hunter():
    layouts = _layouts(_design("a three-way free-for-all for 5 minutes", 0))
    for layout in layouts:
        hunts = _hunts(layout)
        [hunter] = [t for t, prey in hunts.items() if prey == 0]
        [other] = [t for t in hunts if t != hunter]
        assert hunts[other] == hunter


def test_a_ranking_by_what_a_side_keeps_first_waits_at_home():
    kept = "every team for itself: four armies, ranked by hp remaining after 3 minutes"
    assert [_design(kept, k).strategy_params["engage_at"] for k in range(3)] == [180.0, 120.0, 90.0]
