"""Requirement evidence names what decided it: a failure quotes the failing expectation."""
from __future__ import annotations

from genesis.evidence import requirement_evidence
from genesis.models import Requirement
from genesis.simulate import SimRun

EVENTS = [{"t": 5.0, "event": "spawn", "id": 7, "type": "light_tank", "team": 1, "x": 40.0, "y": 10.0, "source": "rule"}]
REQ = Requirement(id="across_the_map", text="the convoy crosses the map and ambushes come from one side", expect=[
    {"event": "spawn", "where": {"source": "rule"}, "distinct_sectors": {"min": 1, "max": 1}},
    {"event": "rule_log", "where": {"name": "truck_arrived"}, "min": 1},
])


def _runs(events):
    return [SimRun(seed=s, policy="reference", ok=True, winners=[0], losers=[1], events=events) for s in (0, 1)]


def test_a_failed_requirement_quotes_the_failing_expectation_not_a_satisfied_one():
    [entry] = requirement_evidence([REQ], _runs(EVENTS), (48.0, 48.0))
    assert entry["status"] == "failed"
    assert "truck_arrived" in entry["detail"]
    assert "sectors" not in entry["detail"]
    assert entry["detail"].startswith("seed 0: ")


def test_a_verified_requirement_shows_every_expectation_with_its_numbers():
    arrived = EVENTS + [{"t": 80.0, "event": "rule_log", "rule": "convoy", "name": "truck_arrived", "fields": {}}]
    [entry] = requirement_evidence([REQ], _runs(arrived), (48.0, 48.0))
    assert entry["status"] == "verified"
    assert "truck_arrived" in entry["detail"] and "sectors" in entry["detail"]
