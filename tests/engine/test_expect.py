"""Trace expectations on synthetic runs: every form, passing and failing, with readable details."""
from dataclasses import dataclass, field

import pytest

from engine.expect import check, describe, evaluate, sector_name, time_clusters, validate

MAP = (48, 48)


def spawn(t, x, y, team=1, source="rule", type="light_bot"):
    return {"t": t, "event": "spawn", "id": int(t * 100 + x), "type": type, "team": team, "x": x, "y": y, "source": source}


def wave_log(t, frm, index, x=None, y=None):
    fields = {"from": frm, "index": index}
    if x is not None:
        fields.update(x=x, y=y)
    return {"t": t, "event": "rule_log", "rule": "waves", "name": "wave", "fields": fields}


def run(events, **outcome):
    base = {"winners": [], "losers": [], "reason": "", "ended_by": "time_limit", "duration": 120.0}
    base.update(outcome)
    return {"trace": events, **base}


# waves: t=30 east x2 + north x2, t=60 south x3, plus a start unit that must never match source=rule
EVENTS = [
    spawn(0, 24, 24, team=0, source="start", type="commander"),
    spawn(30, 44, 24), spawn(30, 44, 25), spawn(30, 24, 4), spawn(30, 25, 4),
    spawn(60, 24, 44), spawn(60, 25, 44), spawn(61, 24, 45),
    wave_log(30, "east", 1, 44, 24), wave_log(30, "north", 1, 24, 4), wave_log(60, "south", 2, 24, 44),
    {"t": 75, "event": "death", "id": 3004, "type": "light_bot", "team": 1, "x": 30, "y": 30, "killer_team": 0},
    {"t": 120, "event": "win", "team": 0, "reason": "survived"},
]
RUN = run(EVENTS, winners=[0], losers=[1], reason="Survived until the end", ended_by="condition", duration=120.0)


def one(exp, result=RUN):
    [res] = evaluate([exp], result, map_size=MAP)
    return res


# --- counts, where, windows ----------------------------------------------------------------------
def test_count_with_where_and_window_passes_and_reports_times():
    res = one({"event": "spawn", "where": {"source": "rule"}, "after": 29, "before": 31, "min": 4, "max": 4})
    assert res.passed
    assert "4 spawn events" in res.detail and "t=[30]" in res.detail and "exactly 4" in res.detail


def test_count_above_max_fails_with_observed_number():
    res = one({"event": "spawn", "where": {"source": "rule"}, "max": 5})
    assert not res.passed
    assert "7 spawn events" in res.detail and "needed <= 5" in res.detail


def test_bare_event_expectation_means_at_least_one():
    assert one({"event": "death", "where": {"killer_team": 0}}).passed
    res = one({"event": "lose"})
    assert not res.passed and "0 lose events" in res.detail


def test_dotted_path_and_list_values_match_nested_fields():
    assert one({"event": "rule_log", "where": {"name": "wave", "fields.from": ["east", "west"]}, "min": 1, "max": 1}).passed
    assert one({"event": "rule_log", "where": {"fields.index": 2}, "min": 1, "max": 1}).passed
    assert not one({"event": "rule_log", "where": {"fields.missing.path": 1}}).passed


def test_quoted_team_id_matches_integer_field():
    assert one({"event": "win", "where": {"team": "0"}, "min": 1}).passed


def test_window_bounds_exclude_events_outside():
    assert one({"event": "spawn", "where": {"source": "rule"}, "before": 29.9, "max": 0}).passed
    res = one({"event": "spawn", "where": {"source": "rule"}, "after": 59.5, "min": 4})
    assert not res.passed and "3 spawn events" in res.detail and "in t=[59.5, end]" in res.detail


# --- distinct sectors ----------------------------------------------------------------------------
def test_sector_names_follow_the_compass_with_y_down():
    assert sector_name(44, 24, 24, 24) == "E"
    assert sector_name(24, 4, 24, 24) == "N"
    assert sector_name(4, 44, 24, 24) == "SW"
    assert sector_name(30, 18, 24, 24, sectors=4) in ("E", "N")
    assert sector_name(24, 24, 24, 24) == "centre"


def test_distinct_sectors_pass_and_list_sectors():
    res = one({"event": "spawn", "where": {"source": "rule"}, "distinct_sectors": {"min": 3, "center": "map_center"}})
    assert res.passed
    assert "3 distinct sectors" in res.detail and "E:2" in res.detail and "N:2" in res.detail and "S:3" in res.detail


def test_distinct_sectors_fail_when_too_few_or_too_many():
    first_wave = {"event": "spawn", "where": {"source": "rule"}, "before": 31}
    res = one({**first_wave, "distinct_sectors": {"min": 3}})
    assert not res.passed and "2 distinct sectors (E:2, N:2)" in res.detail and "needed >= 3" in res.detail
    assert not one({**first_wave, "distinct_sectors": {"min": 1, "max": 1}}).passed


def test_distinct_sectors_use_rule_log_field_positions_and_custom_center():
    res = one({"event": "rule_log", "where": {"name": "wave"}, "distinct_sectors": {"min": 3, "center": [24, 24]}})
    assert res.passed


def test_map_center_without_map_size_is_reported_not_raised():
    [res] = evaluate([{"event": "spawn", "distinct_sectors": {"min": 1}}], RUN)
    assert not res.passed and "map size" in res.detail


# --- time clusters and escalation -----------------------------------------------------------------
def test_time_clusters_split_on_gaps():
    assert time_clusters([30, 30, 31, 60, 61, 100], gap=10) == [[30, 30, 31], [60, 61], [100]]
    assert time_clusters([], gap=5) == []


def test_time_clusters_expectation_pass_and_fail():
    assert one({"event": "spawn", "where": {"source": "rule"}, "time_clusters": {"min": 2, "max": 2, "gap": 10}}).passed
    res = one({"event": "spawn", "where": {"source": "rule"}, "time_clusters": {"min": 3, "gap": 10}})
    assert not res.passed and "2 time clusters" in res.detail and "30-30" not in res.detail
    # a gap wider than the spacing merges both waves into one cluster
    assert not one({"event": "spawn", "where": {"source": "rule"}, "time_clusters": {"min": 2, "gap": 40}}).passed


def test_increasing_detects_escalation_and_its_absence():
    rising = run([spawn(10, 1, 1)] + [spawn(40, 2, 2)] * 2 + [spawn(70, 3, 3)] * 3)
    assert one({"event": "spawn", "increasing": {"bucket": "time_clusters", "gap": 10}}, rising).passed
    flat = run([spawn(10, 1, 1)] * 2 + [spawn(40, 2, 2)] * 2)
    res = one({"event": "spawn", "increasing": {"gap": 10}}, flat)
    assert not res.passed and "counts [2, 2]" in res.detail
    single = run([spawn(10, 1, 1)] * 3)
    assert not one({"event": "spawn", "increasing": {"gap": 10}}, single).passed


def test_count_and_shape_checks_combine_and_name_the_failing_one():
    res = one({"event": "spawn", "where": {"source": "rule"}, "min": 7, "distinct_sectors": {"min": 4}})
    assert not res.passed
    assert "ok: 7 spawn events" in res.detail and "FAILED: spawn events (source=rule) in 3 distinct sectors" in res.detail


# --- result checks -------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", [
    {"winners_include": 0}, {"winners_include": [0]}, {"winners_exclude": 1}, {"losers_include": 1},
    {"losers_exclude": [0]}, {"ended_by": "condition"}, {"ended_by": ["rule", "condition"]},
    {"reason_contains": "survived"}, {"duration_min": 120, "duration_max": 120},
])
def test_result_checks_pass(spec):
    assert one({"result": spec}).passed


@pytest.mark.parametrize("spec, words", [
    ({"winners_include": 1}, "team(s) [1] not among winners"),
    ({"winners_exclude": [0, 1]}, "team(s) [0] among winners"),
    ({"losers_include": 0}, "not among losers"),
    ({"ended_by": "rule"}, "ended_by is 'condition'"),
    ({"reason_contains": "objective"}, "does not contain"),
    ({"duration_max": 100}, "duration 120s > 100s"),
    ({"duration_min": 121}, "duration 120s < 121s"),
])
def test_result_checks_fail_with_observed_outcome(spec, words):
    res = one({"result": spec})
    assert not res.passed
    assert words in res.detail and "winners=[0]" in res.detail


def test_result_object_with_attributes_is_accepted():
    @dataclass
    class FakeResult:
        winners: list = field(default_factory=lambda: [2])
        losers: list = field(default_factory=list)
        reason: str = "last alliance standing"
        duration: float = 42.0
        ended_by: str = "rule"
        trace: list = field(default_factory=lambda: [spawn(1, 2, 3)])

    results = evaluate([{"result": {"winners_include": 2, "ended_by": "rule"}}, {"event": "spawn", "min": 1}], FakeResult())
    assert [r.passed for r in results] == [True, True]


# --- malformed expectations and descriptions ------------------------------------------------------
@pytest.mark.parametrize("exp, words", [
    ({"event": "explosion"}, "unknown event kind"),
    ({"event": "spawn", "mni": 1}, "unknown key 'mni'"),
    ({"event": "spawn", "min": "two"}, "`min` must be a number"),
    ({"result": {"winner": 0}}, "unknown result key 'winner'"),
    ({"result": {}}, "non-empty"),
    ({"event": "spawn", "time_clusters": {"min": 2}}, "`time_clusters.gap` is required"),
    ({"event": "spawn", "time_clusters": {"gap": -1}}, "greater than 0"),
    ({"event": "spawn", "where": {"event": "spawn"}}, "spawn events have no field 'event'"),
    ({"event": "spawn", "type": "tank"}, "unknown key 'type'"),
    ({"state": {"at": 30, "tag": "truck"}}, "needs units_min/units_max"),
    ({"state": {"at": 30, "metal_min": 5}}, "needs `team`"),
    ({"event": "spawn", "distinct_sectors": {"center": "middle"}}, "center"),
    ({"nothing": 1}, "exactly one of `event`, `result` or `state`"),
])
def test_malformed_expectations_fail_with_reason_instead_of_raising(exp, words):
    assert any(words in p for p in validate(exp))
    res = check(exp, RUN, MAP)
    assert not res.passed and res.detail.startswith("invalid expectation") and words in res.detail


def test_describe_reads_as_a_requirement():
    text = describe({"event": "spawn", "where": {"source": "rule"}, "after": 20, "before": 40,
                     "distinct_sectors": {"min": 2}, "min": 4})
    assert text.startswith("spawn events with source=rule between t=20s and t=40s")
    assert "count >= 4" in text and ">= 2 distinct of 8 sectors" in text
    assert describe({"result": {"winners_include": 0, "duration_max": 300}}) == "run outcome: winners include 0, lasts <= 300s"


def test_trace_is_read_from_trace_path_when_not_inline(tmp_path):
    import json

    path = tmp_path / "trace.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in EVENTS))
    result = {"trace_path": str(path), "winners": [0], "losers": [1], "reason": "", "ended_by": "rule", "duration": 5}
    assert one({"event": "spawn", "where": {"source": "rule"}, "min": 7, "max": 7}, result).passed
