"""Difficulty on request: the band read off a certificate, the reader's difficulty words, and the knob
search (bracket by doubling, then bisect), driven here by a stand-in certificate whose band follows
the knob's value."""
from __future__ import annotations

import json

import pytest

from genesis.difficulty import BANDS, HELD, PAST, SHORT, band_of, difficulty_reason, knob_param, scaled, search, tunable, tuning_target
from genesis.offline.concepts import read

BASE = {"rules": [{"id": "waves", "script": "rules/waves.lua", "params": {"units": {"light_bot": 4}, "interval": 60}}]}


def _cert(band: str, valid: bool = True) -> dict:
    checks = {"reference_wins": {"passed": band != "impossible"}, "no_cheap_win": {"passed": band != "trivial"},
              "seeds_matter": {"passed": True}}
    return {"valid": valid and band in ("easy", "medium", "hard"), "difficulty": band, "checks": checks}


def _band_by_size(size: int) -> str:
    return "trivial" if size <= 2 else "easy" if size <= 5 else "medium" if size <= 9 else "hard" if size <= 14 \
        else "impossible"


def _run(tmp_path, asked: str | tuple, knob: str, start: str, band_of_level):
    path = tmp_path / "level.json"
    path.write_text(json.dumps(BASE))
    seen = []

    def certify(p):
        level = json.loads(p.read_text())
        seen.append(level["rules"][0]["params"])
        return _cert(band_of_level(level["rules"][0]["params"]))

    want = asked if isinstance(asked, tuple) else (asked,)
    record, tuned, cert = search(path, band_of(_cert(start)), want, knob, certify)
    assert not list(tmp_path.glob("level.difficulty-*.json"))       # trial files are removed
    return record, tuned, cert, seen


def test_a_harder_band_scales_the_wave_up_until_it_holds(tmp_path):
    record, tuned, cert, seen = _run(tmp_path, "hard", "waves.units", "easy",
                                     lambda p: _band_by_size(p["units"]["light_bot"]))
    assert record.found and cert["difficulty"] == "hard" and record.start_band == "easy"
    assert tuned["rules"][0]["params"]["units"]["light_bot"] == record.value["light_bot"]
    assert 10 <= record.value["light_bot"] <= 14
    assert [t.band for t in record.trials][-1] == "hard" and len(record.trials) == len(seen) <= 5


def test_an_interval_knob_moves_the_other_way(tmp_path):
    # a shorter interval is harder: from medium to hard the interval must shrink
    record, tuned, _, _ = _run(tmp_path, "hard", "waves.interval", "medium",
                               lambda p: "hard" if p["interval"] <= 35 else "medium")
    assert record.found and tuned["rules"][0]["params"]["interval"] < 60


def test_a_search_that_cannot_reach_the_band_says_so_and_changes_nothing(tmp_path):
    record, tuned, cert, seen = _run(tmp_path, "hard", "waves.units", "easy", lambda p: "easy")
    assert not record.found and tuned is None and cert is None
    assert "no value of waves.units" in record.note and len(seen) == 2      # x2, x4, then the bound
    record, tuned, _, seen = _run(tmp_path, "hard", "waves.nothing", "easy", lambda p: "hard")
    assert not record.found and seen == [] and "no numeric balance knob" in record.note


def test_with_no_band_asked_a_level_the_reference_loses_is_eased_until_it_certifies(tmp_path):
    # x0.5 gives 2 bots (8 after the stand-in's x4: medium); x0.5 of a size its reference cannot beat
    record, tuned, cert, seen = _run(tmp_path, BANDS, "waves.units", "impossible",
                                     lambda p: _band_by_size(p["units"]["light_bot"] * 4))
    assert record.found and cert["difficulty"] == "medium" and record.asked == "easy or medium or hard"
    assert seen == [{"units": {"light_bot": 2}, "interval": 60}]
    assert tuned["rules"][0]["params"]["units"]["light_bot"] == 2
    # a trial too easy (trivial) lies past the wanted bands: the search bisects back between the two
    record, _, cert, seen = _run(tmp_path, BANDS, "waves.units", "impossible",
                                 lambda p: "trivial" if p["units"]["light_bot"] <= 2 else
                                 "hard" if p["units"]["light_bot"] == 3 else "impossible")
    assert record.found and cert["difficulty"] == "hard" and [p["units"]["light_bot"] for p in seen] == [2, 3]


def test_with_no_band_asked_a_level_a_cheap_policy_wins_is_made_harder(tmp_path):
    record, tuned, _, seen = _run(tmp_path, BANDS, "waves.interval", "trivial",
                                  lambda p: "trivial" if p["interval"] > 40 else "medium")
    assert record.found and seen[0]["interval"] == 30 and tuned["rules"][0]["params"]["interval"] == 30


def test_a_search_for_requirements_a_careless_run_fails_goes_on_past_certified_trials_until_they_hold(tmp_path):
    path = tmp_path / "level.json"
    path.write_text(json.dumps(BASE))
    seen = []

    def certify(p):
        size = json.loads(p.read_text())["rules"][0]["params"]["units"]["light_bot"]
        seen.append(size)
        return _cert("impossible" if size > 40 else "hard")

    def holds(p):        # the abandoned base falls only to waves of 12 or more
        return (HELD, "") if json.loads(p.read_text())["rules"][0]["params"]["units"]["light_bot"] >= 12 else \
            (SHORT, "requirements failed: base_falls")
    record, tuned, _ = search(path, "trivial", BANDS, "waves.units", certify, holds=holds)
    assert record.found and tuned["rules"][0]["params"]["units"]["light_bot"] >= 12
    assert seen == [8, 16] and [t.held for t in record.trials] == [False, True]
    assert record.trials[0].why == "requirements failed: base_falls" and record.trials[1].why == ""


def test_a_certified_trial_that_breaks_a_requirement_which_held_is_too_far_and_the_search_comes_back(tmp_path):
    # the reference loses with 8-tank columns; at 2 a column is no longer the convoy the request asks for
    path = tmp_path / "level.json"
    path.write_text(json.dumps({"rules": [{"id": "convoy", "script": "c.lua", "params": {"escorts": 8}}]}))
    seen = []

    def certify(p):
        n = json.loads(p.read_text())["rules"][0]["params"]["escorts"]
        seen.append(n)
        return _cert("impossible" if n > 6 else "hard")

    def holds(p):
        return (PAST, "requirements failed: convoy") if json.loads(p.read_text())["rules"][0]["params"]["escorts"] < 5 \
            else (HELD, "")
    record, tuned, _ = search(path, "impossible", BANDS, "convoy.escorts", certify, holds=holds)
    assert seen == [4, 6] and record.found and tuned["rules"][0]["params"]["escorts"] == 6
    assert [t.held for t in record.trials] == [False, True]
    record, _, _ = search(path, "impossible", BANDS, "convoy.escorts", certify,
                          holds=lambda p: (PAST, "requirements failed: convoy"))
    assert not record.found and "with every requirement holding" in record.note
    # a failed search says each value it tried and what kept that value from shipping
    assert "tried 8 -> 4 (hard: requirements failed: convoy)" in record.note


def test_the_search_runs_before_the_gate_only_on_a_balance_failure_it_can_move():
    lost = {"check:reference_wins", "check:outcome_discrimination"}
    assert tuning_target(None, None, lost, BASE, "waves.units") == ("impossible", BANDS)
    assert tuning_target("hard", None, lost, BASE, "waves.units") == ("impossible", ("hard",))
    assert tuning_target(None, None, lost, BASE, None) is None                  # no knob, nothing to scale
    assert tuning_target(None, None, lost | {"check:determinism"}, BASE, "waves.units") is None
    assert tuning_target(None, None, {"check:requirement_evidence"}, BASE, "waves.units") is None
    assert tuning_target(None, _cert("trivial"), set(), BASE, "waves.units") == ("trivial", BANDS)
    assert tuning_target(None, _cert("hard"), set(), BASE, "waves.units") is None
    assert tuning_target("hard", _cert("easy"), set(), BASE, None) == ("easy", ("hard",))   # the search says why
    assert tuning_target("easy", _cert("easy"), set(), BASE, "waves.units") is None
    # only a careless run's requirements failed (its loss never came): harder, until they hold
    assert tuning_target(None, None, {"check:requirement_evidence"}, BASE, "waves.units",
                         careless_unpunished=True) == ("trivial", BANDS)
    assert tuning_target(None, None, {"check:requirement_evidence"}, BASE, "waves.units",
                         careless_unpunished=False) is None
    blind = {**_cert("hard"), "checks": {"open_loop": {"passed": False}}}
    assert tuning_target(None, blind, set(), BASE, "waves.units") is None


def test_knob_parsing_and_scaling():
    assert knob_param(BASE, "waves.units") == (0, "units", {"light_bot": 4})
    assert knob_param(BASE, "waves.script") is None and knob_param(BASE, "other.units") is None
    assert knob_param(BASE, None) is None
    assert scaled({"a": 3, "b": [1, 2.5]}, 2) == {"a": 6, "b": [2, 5.0]}
    assert scaled(1, 0.25) == 1                     # a count never drops to zero


def test_bands_and_the_criterion():
    assert band_of(_cert("hard")) == "hard" and band_of(_cert("impossible")) == "impossible"
    assert band_of({"skipped": "off"}) is None and band_of(None) is None
    assert tunable(_cert("trivial")) and not tunable({"checks": {"seeds_matter": {"passed": False}}})
    ok, why = difficulty_reason(None, _cert("easy"), None)
    assert ok and "no difficulty asked" in why
    ok, why = difficulty_reason("hard", _cert("easy"), {"note": "no value", "found": False})
    assert not ok and "make the design harder" in why.lower()
    ok, why = difficulty_reason("easy", _cert("hard"), None)
    assert not ok and "easier" in why
    assert difficulty_reason("medium", _cert("medium"), None)[0]


@pytest.mark.parametrize("query,band", [
    ("easy warm-up: survive three small waves of bots from the west", "easy"),
    ("A brutal hard version of base defence: waves every 45 seconds from all four sides", "hard"),
    ("three-way brawl, identical starting forces for everyone, easy difficulty", "easy"),
    ("Medium difficulty: enemies show up sometime between minute 1 and minute 3", "medium"),
    ("hold the bridge against three waves; the bridge is hard to reach", None),
    ("defend two fronts with staggered waves", None),
])
def test_the_reader_takes_difficulty_words_only_where_they_qualify_the_scenario(query, band):
    assert read(query).concepts.difficulty == band


def test_the_design_may_say_which_way_its_knob_makes_the_game_harder(tmp_path):
    # a gap the design says is harder when larger (the name reads the other way): a level its reference loses is
    # eased by a smaller gap
    record, tuned, _, seen = _run_way(tmp_path, "larger", lambda gap: "impossible" if gap > 40 else "hard")
    assert record.found and seen == [30] and tuned["rules"][0]["params"]["gap"] == 30
    _, _, _, seen = _run_way(tmp_path, None, lambda gap: "hard")
    assert seen == [120]        # read from the name: a larger gap is easier


def _run_way(tmp_path, way, band_of_gap):
    level = {"rules": [{"id": "convoy", "script": "rules/convoy.lua", "params": {"gap": 60}}]}
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    seen = []

    def certify(p):
        gap = json.loads(p.read_text())["rules"][0]["params"]["gap"]
        seen.append(gap)
        return _cert(band_of_gap(gap))
    record, tuned, cert = search(path, "impossible", BANDS, "convoy.gap", certify, harder=way)
    return record, tuned, cert, seen


def test_a_rebalance_stays_within_twice_or_half_the_design(tmp_path):
    # only a quarter of the wave would do: beyond a rebalance's reach, so the level goes to its gate as built
    record, tuned, _, seen = _run(tmp_path, BANDS, "waves.units", "impossible",
                                  lambda p: "hard" if p["units"]["light_bot"] <= 1 else "impossible")
    assert record.found and seen[-1]["units"]["light_bot"] == 1     # the default reach (x0.25) gets there
    path = tmp_path / "level.json"
    record, tuned, _ = search(path, "impossible", BANDS, "waves.units",
                              lambda p: _cert("hard" if json.loads(p.read_text())["rules"][0]["params"]["units"][
                                  "light_bot"] <= 1 else "impossible"), widest=2.0)
    assert not record.found and tuned is None and "within x0.5-x2" in record.note


def test_a_search_says_which_requirements_sent_it_harder_or_that_a_cheap_policy_did():
    from genesis.pipeline.nodes import _search_cause
    assert "tower_falls" in _search_cause("trivial", ["tower_falls"]) and "harder" in _search_cause("trivial", ["x"])
    assert "cheap policy won every seed" in _search_cause("trivial", [])
    assert "reference lost a seed" in _search_cause("impossible", ["x"])
