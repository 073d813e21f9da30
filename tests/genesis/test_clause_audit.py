"""An honoured clause is looked up in the level that shipped: unit types, counts, switches, times and the
number of sides it names must be there, or the clause is on record as partial, naming what is missing."""
from __future__ import annotations

import pytest

from genesis.checks import clause_audit as A
from genesis.models import Brief, ClauseAccount
from genesis.pipeline.finalize import clause_records


def _level(units=(), rules=(), switches=None, teams=2, conditions=()):
    team_list = [{"id": i, "units": [{"type": t, "x": 5.0 + k, "y": 5.0} for k, t in enumerate(units)] if i == 0 else []}
                 for i in range(teams)]
    return {"teams": team_list, "rules": list(rules), "switches": switches or {"fog_of_war": False, "production": False},
            "conditions": list(conditions), "map": {"name": "open_field"}}


@pytest.mark.parametrize("text,expected", [
    ("your 4 artillery bots and 6 assault bots", [("artillery_bot", 4), ("assault_bot", 6)]),
    ("three enemy factories", [("bot_lab", 3)]),
    ("keep both radar towers up", [("radar_tower", 2)]),
    ("a heavy tank has to come through alive", [("heavy_tank", None)]),
    ("you have no factory and never any turrets", []),
    ("scout the ridge with your lone scout", [("scout", None)]),
    # a unit word naming an effect is no unit on the map
    ("you may call an artillery strike twice, and a bomber barrage once", []),
])
def test_the_unit_types_a_clause_names_as_present_with_their_counts(text, expected):
    named = A.named_types(text)
    assert len(named) == len(expected)
    assert all(t in ids and n == count for (_, ids, n), (t, count) in zip(named, expected))


@pytest.mark.parametrize("text,expected", [
    ("fog of war is off", {"fog_of_war": False}), ("with fog of war", {"fog_of_war": True}),
    ("no fog, no production", {"fog_of_war": False, "production": False}),
    ("production enabled, fog of war on", {"fog_of_war": True, "production": True}),
    ("the squad cannot be reinforced", {}), ("defend the base", {}),
])
def test_fog_and_production_as_a_clause_sets_them(text, expected):
    assert A.named_switches(text) == expected


@pytest.mark.parametrize("text,seconds", [
    ("waves at 1:15, 2:45 and 4:15", [75, 165, 255]), ("every seventy seconds", [70]),
    ("the first at the forty-five-second mark, then one each minute", [45, 60]),
    ("sometime between 60 and 150 seconds", [60, 150]), ("until the eight-minute mark", [480]),
    ("a minute and a half", [90]), ("defend the base", []),
    ("every couple of minutes", [120]), ("raids every couple minutes", [120]), ("every other minute", [120]),
    ("hold it for two full minutes", [120]), ("for 90 whole seconds", [90]), ("a quarter of an hour", [900]),
    ("quarter of an hour", [900]), ("the enemy attack at minute 4", [240]), ("done by minute six", [360]),
])
def test_the_times_a_clause_states_in_seconds(text, seconds):
    assert sorted(A.named_times(text)) == sorted(seconds)


@pytest.mark.parametrize("text,n", [("1v1v1v1 on crossroads", 4), ("Team battle, 3v3", 6), ("two-on-two", 4),
                                    ("a three-team king of the hill", 3), ("a six-way free-for-all", 6),
                                    ("attacks from two sides", None)])
def test_the_number_of_sides_a_clause_fixes(text, n):
    assert A.named_team_count(text) == n


def test_what_the_level_lacks_is_named_and_what_it_has_passes():
    level = _level(units=["artillery_bot"] * 8, switches={"fog_of_war": True, "production": False},
                   rules=[{"id": "waves", "params": {"times": [30, 90, 150], "units": {"light_bot": 3}}}])
    facts = A.LevelFacts.of(level, [])
    lacks = A.missing("your 4 artillery bots and 6 assault bots, fog of war is off, raids at 1:00", facts)
    assert lacks == ["4 artillery bots named, the level has 8 artillery bot", "no assault bots in the level",
                     "fog of war is on in the level", "no time or duration of 1:00 in the level"]
    assert A.missing("8 artillery bots; 3 light bots strike at 1:30 with fog of war", facts) == []


def test_a_rule_script_that_spawns_a_type_at_a_time_holds_both():
    level = _level(rules=[{"id": "ambush", "params": {}}])
    source = 'at(75, function() spawn(1, "heavy_tank", 10, 10) end)'
    assert A.missing("a heavy tank ambush at 1:15", A.LevelFacts.of(level, [source])) == []
    assert A.missing("a heavy tank ambush at 1:15", A.LevelFacts.of(level, [])) == ["no heavy tank in the level",
                                                                   "no time or duration of 1:15 in the level"]


def test_a_level_with_another_number_of_sides_is_named():
    assert A.missing("a 3v3 team battle", A.LevelFacts.of(_level(teams=2), [])) == ["6 sides named, the level has 2"]
    assert A.missing("a 3v3 team battle", A.LevelFacts.of(_level(teams=6), [])) == []


def _brief(query: str, clauses: list[tuple[str, str]]) -> Brief:
    at, accounts = 0, []
    for text, status in clauses:
        start = query.index(text, at)
        accounts.append(ClauseAccount(text=text, start=start, end=start + len(text), status=status,
                                      requirement_ids=["r"] if status == "honoured" else [],
                                      why="" if status == "honoured" else "not built"))
        at = start + len(text)
    return Brief.model_validate({"query": query, "title": "t", "competency": "resource_management", "summary": "s",
                                 "composition": "c", "enemy_behaviour": [], "win_conditions": [], "loss_conditions": [],
                                 "requirements": [{"id": "r", "text": "the heavy tank survives"}], "concepts": {},
                                 "clauses": accounts})


def test_an_honoured_clause_the_shipped_level_lacks_is_on_record_as_partial_saying_what_is_missing():
    query = "Escort your heavy tank north; fog of war on."
    brief = _brief(query, [("Escort your heavy tank north;", "honoured"), ("fog of war on.", "honoured")])
    state = {"brief": brief, "status": "playable", "evidence": [{"id": "r", "status": "verified"}],
             "level": _level(units=["light_tank"], switches={"fog_of_war": True, "production": False})}
    first, second = clause_records(state)
    assert first["status"] == "partial" and "no heavy tank in the level" in first["why"] and first["built"]
    assert second["status"] == "honoured"
    state["level"] = _level(units=["heavy_tank"], switches={"fog_of_war": True, "production": False})
    assert [r["status"] for r in clause_records(state)] == ["honoured", "honoured"]


def test_a_difficulty_asked_and_not_reached_is_not_claimed_honoured():
    query = "Medium difficulty: escort your heavy tank north."
    brief = _brief(query, [("Medium difficulty:", "honoured"), ("escort your heavy tank north.", "honoured")])
    brief.clauses[0].requirement_ids = ["difficulty"]
    state = {"brief": brief, "status": "playable", "evidence": [], "options": {"difficulty": "medium"},
             "level": _level(units=["heavy_tank"])}
    hard, medium = {"difficulty": "hard", "checks": {}}, {"difficulty": "medium", "checks": {}}
    first, _ = clause_records(state, hard)
    assert first["status"] == "partial" and "not reached" in first["why"]
    assert clause_records(state, medium)[0]["status"] == "honoured"


@pytest.mark.parametrize("text,n", [("four assaults of westward origin", 4), ("3 enemy waves", 3),
                                    ("two raids, then a siege", 2), ("lose no more than 3 raids", None),
                                    ("waves every 60 s", None), ("a raid per minute", None), ("one attack", 1),
                                    ("a single column", 1), ("the 1 attack", None),
                                    ("your 6 assault bots", None), ("two strike groups", None),
                                    # who attacks and how big, not how many attacks
                                    ("squads of 4 to 6 infantry attack every 90 s", None),
                                    ("three riflemen raid the depot", None), ("five heavy assaults", 5)])
def test_the_number_of_attacks_a_clause_fixes(text, n):
    assert A.named_event_count(text) == n


def test_a_number_of_attacks_no_rule_fixes_is_named():
    uncapped = _level(rules=[{"id": "raids", "params": {"interval": 60, "first_at": 30, "size": 6}}])
    assert A.missing("four assaults from the west", A.LevelFacts.of(uncapped, [])) == [
        "4 attacks named, no rule of the level fixes their number at 4"]
    counted = _level(rules=[{"id": "waves", "params": {"count": 4, "interval": 60}}])
    scheduled = _level(rules=[{"id": "waves", "params": {"times": [60, 120, 180, 240]}}])
    for level in (counted, scheduled):
        assert A.missing("four assaults from the west", A.LevelFacts.of(level, [])) == []


def test_one_attack_named_is_not_honoured_by_a_level_that_schedules_more():
    two = _level(rules=[{"id": "waves", "params": {"times": [60, 150]}}])
    assert A.missing("a single column comes after the first minute", A.LevelFacts.of(two, [])) == [
        "one attack named, the level schedules 2"]
    one = _level(rules=[{"id": "waves", "params": {"times": [75]}}])
    assert A.missing("a single column comes after the first minute", A.LevelFacts.of(one, [])) == []


def test_switches_said_together_and_a_ban_on_building():
    assert A.named_switches("production and fog both off") == {"fog_of_war": False, "production": False}
    assert A.named_switches("you cannot build") == {"production": False}
    level = _level(switches={"fog_of_war": True, "production": True})
    assert A.missing("and fog both off", A.LevelFacts.of(level, [])) == ["fog of war is on in the level"]


def test_a_goal_asked_without_a_clock_is_not_honoured_by_a_level_with_a_deadline():
    timed = _level(units=["commander"], rules=[{"id": "kill", "params": {"deadline": 480}}])
    assert A.missing("take down its commander whenever you manage it", A.LevelFacts.of(timed, [])) == [
        "the level sets a deadline of 8:00"]
    assert A.missing("take down its commander, no time limit", A.LevelFacts.of(_level(units=["commander"]), [])) == []
    assert not A.named_untimed("take down its commander within 8 minutes")


@pytest.mark.parametrize("text,kind", [("flatten the plant", "vehicle_plant"), ("their bot labs", "bot_lab"),
                                       ("a walled-in enemy base", "wall"), ("the artillery park", "artillery_bot")])
def test_kind_words_name_every_type_of_their_kind(text, kind):
    assert any(kind in ids for _, ids, _ in A.named_types(text))


def test_a_group_word_after_the_unit_counts_and_own_sight_means_fog():
    level = _level(units=["light_tank"], switches={"fog_of_war": False, "production": False})
    facts = A.LevelFacts.of(level, [])
    assert A.missing("a light tank trio and nothing else", facts) == ["3 light tank named, the level has 1 light tank"]
    assert A.missing("your squad's own sight is all you get", facts) == ["fog of war is off in the level"]


def test_a_reused_library_rule_counts_only_the_defaults_the_level_leaves_unset():
    from genesis.models import RuleArtifact
    from genesis.pipeline.finalize import audited_sources

    meta = {"params": {"unit_type": {"type": "string", "default": "raider_bot"},
                       "size": {"type": "int", "default": 3}}}
    source = 'local t = param("unit_type", "raider_bot") -- spawns raider_bot unless told otherwise'
    reused = RuleArtifact(id="raids", source=source, params={}, tests=[], meta=meta, reused_from="periodic_raids")
    told = {"rules": [{"id": "raids", "script": "rules/raids.lua", "params": {"unit_type": "light_bot"}}],
            "teams": []}
    facts = A.LevelFacts.of(told, audited_sources([reused], told))
    assert A.missing("raider bots harass", facts) == ["no raider bots in the level"]
    left_default = {"rules": [{"id": "raids", "script": "rules/raids.lua", "params": {}}], "teams": []}
    assert A.missing("raider bots harass", A.LevelFacts.of(left_default, audited_sources([reused], left_default))) == []
    written = reused.model_copy(update={"reused_from": None})     # a rule written for the level is read whole
    assert A.missing("raider bots harass", A.LevelFacts.of(told, audited_sources([written], told))) == []
