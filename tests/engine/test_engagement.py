"""The measured fight table: current with the engine, and the square law the prompts state holds."""
from __future__ import annotations

import math

import pytest

from engine.data.build_worth import main as build_worth
from engine.engagement import BASE, fewest_to_beat, fight, square_law_survivors, worth_table


def test_the_stored_table_is_what_the_engine_measures_today(capsys):
    assert build_worth(["--check"]) == 0, capsys.readouterr().err


def test_the_fewest_that_beat_a_group_is_the_smallest_winning_size():
    best = fewest_to_beat("assault_bot", 2)
    assert best is not None and best.attacker_won
    assert not fight(BASE, best.attackers - 1, "assault_bot", 2).attacker_won


def test_a_bigger_group_of_one_type_wins_and_keeps_what_the_square_law_says():
    for row in worth_table()["square_law"]:
        assert row["survivors"] == pytest.approx(square_law_survivors(row["big"], row["small"]), abs=1.5)
    assert square_law_survivors(10, 6) == pytest.approx(8.0)
    assert square_law_survivors(3, 5) == 0.0


def test_worth_orders_the_roster_as_its_weapons_and_armour_do():
    rows = worth_table()["types"]
    assert rows["heavy_tank"]["worth"] > rows["light_tank"]["worth"] > rows["raider_bot"]["worth"]
    assert rows["heavy_turret"]["worth"] > rows["light_turret"]["worth"]
    assert all(math.isfinite(r["seconds"]) and r["seconds"] > 0 for r in rows.values() if r["worth"])


def test_the_prompt_fact_reads_the_table(monkeypatch):
    from genesis import prompt_facts

    text = prompt_facts.fights()
    assert f"heavy_tank {worth_table()['types']['heavy_tank']['worth']:g}" in text and "√(S² − W²)" in text
    table = {**worth_table(), "types": {**worth_table()["types"],
                                       "heavy_tank": {**worth_table()["types"]["heavy_tank"], "worth": 42.0}}}
    monkeypatch.setattr(prompt_facts, "worth_table", lambda: table)
    assert "heavy_tank 42" in prompt_facts.fights()


def test_a_group_that_stands_is_beaten_by_fewer_attackers_than_one_that_fights_back():
    stances = worth_table()["stances"]
    assert stances["standing"]["beaten_by"] < stances["moving"]["beaten_by"]
    n = stances["standing"]["beaten_by"]
    assert fight(BASE, n, BASE, stances["group"], stance="standing").attacker_won
    assert not fight(BASE, n, BASE, stances["group"], stance="moving").attacker_won
