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
    assert entry["detail"].startswith("seed 0 (the run ended at ")   # how the run ended, then why it failed


def test_a_verified_requirement_shows_every_expectation_with_its_numbers():
    arrived = EVENTS + [{"t": 80.0, "event": "rule_log", "rule": "convoy", "name": "truck_arrived", "fields": {}}]
    [entry] = requirement_evidence([REQ], _runs(arrived), (48.0, 48.0))
    assert entry["status"] == "verified"
    assert "truck_arrived" in entry["detail"] and "sectors" in entry["detail"]


def test_a_state_expectation_after_a_decided_game_reads_its_final_state(tmp_path):
    """A run stopped once the player lost ("decided") still answers a state expectation timed after it."""
    import json

    from genesis.simulate import SimJob, run_job

    level = {"name": "lost", "description": "d", "map": {"name": "open_field"},
             "switches": {"fog_of_war": False, "production": False, "time_limit": 600},
             "conditions": [{"kind": "protect_target", "team": 0, "target": {"team": 0, "tag": "vip"}}],
             "teams": [{"id": 0, "name": "p", "units": [{"type": "commander", "x": 20, "y": 24, "tag": "vip"}]},
                       {"id": 1, "name": "e", "controller": {"type": "ai", "behaviour": "idle"},
                        "units": [{"type": "heavy_tank", "x": 22, "y": 24, "count": 3}]},
                       {"id": 2, "name": "f", "controller": {"type": "ai", "behaviour": "idle"},
                        "units": [{"type": "light_bot", "x": 40, "y": 40}]}]}
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    run = run_job(SimJob(str(path), 0, "idle"))
    assert run.ended_by == "decided" and run.duration < 450
    req = Requirement(id="overrun", text="the enemy holds the field", on="idle",
                      expect=[{"state": {"at": 450, "team": 1, "type": "heavy_tank", "units_min": 3}}])
    [entry] = requirement_evidence([req], [run], (48.0, 48.0), path)
    assert entry["status"] == "verified", entry["detail"]
    assert "the run ended before t=450s" in entry["detail"]


def test_a_failing_message_lists_every_failing_expectation_and_cuts_none_inside_a_word():
    from genesis.checks.context import CheckContext
    from genesis.checks.level_checks import requirement_evidence as evidence_check

    failures = [f"at least 3 rule_log events (name=wave_{i}) between t=0 and t=600: found 0 ({'x' * 300})"
                for i in range(4)]
    entry = {"id": "waves", "testable": True, "passed": False, "status": "failed", "detail": "; ".join(failures),
             "per_run": [{"seed": 0, "passed": False, "failures": failures}]}
    ok, why = evidence_check(CheckContext(evidence=[entry, {**entry, "id": "fronts"}]))
    assert not ok
    for i in range(4):
        assert why.count(f"(name=wave_{i})") == 2
    assert all(part.endswith("…") or part.endswith(")") for part in why.split("; ")[1:])


def test_shorten_cuts_at_a_word_boundary_and_says_so():
    from genesis.checks.messages import shorten

    text = "0 rule_log events (name=wave_three) between t=0 and t=600"
    cut = shorten(text, 30)
    assert len(cut) <= 30 and cut.endswith("…")
    assert text.startswith(cut[:-2].rstrip())            # a prefix of whole words
    assert text[len(cut[:-2].rstrip())] == " "
    assert shorten(text, 500) == text


def test_a_requirement_passed_on_most_runs_shows_a_passing_run_and_the_count():
    arrived = EVENTS + [{"t": 80.0, "event": "rule_log", "rule": "convoy", "name": "truck_arrived", "fields": {}}]
    runs = [SimRun(seed=s, policy="reference", ok=True, winners=[0], losers=[1], events=EVENTS if s == 0 else arrived)
            for s in (0, 1, 2)]
    [entry] = requirement_evidence([REQ], runs, (48.0, 48.0))
    assert entry["status"] == "verified"
    # never seed 0's failing numbers under a verified status
    assert entry["detail"].startswith("2/3 runs, e.g. seed 1: ") and "0 rule_log events" not in entry["detail"]


def test_a_loss_only_a_careless_player_suffers_is_evidenced_on_the_rush_runs(tmp_path):
    """Idle's army, out of reach, is never wiped; rush throws it at the enemy and loses it: a requirement on
    rush gets rush games, and only then."""
    import json

    from genesis.simulate import RUSH_SEEDS, run_job, validation_jobs

    level = {"name": "wiped", "description": "d", "map": {"name": "open_field"},
             "switches": {"fog_of_war": False, "production": False, "time_limit": 120},
             "teams": [{"id": 0, "name": "p", "units": [{"type": "light_bot", "x": 6, "y": 6, "count": 3}]},
                       {"id": 1, "name": "e", "controller": {"type": "ai", "behaviour": "idle"},
                        "units": [{"type": "heavy_tank", "x": 40, "y": 40, "count": 2}]}]}
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    wiped = Requirement(id="army_wiped", text="losing every unit loses", on="rush",
                        expect=[{"event": "death", "where": {"team": 0}, "min": 3}])
    jobs = [j for j in validation_jobs(str(path), [wiped]) if j.policy == "rush"]
    assert [j.seed for j in jobs] == list(RUSH_SEEDS)
    assert not any(j.policy == "rush" for j in validation_jobs(str(path), [wiped.model_copy(update={"on": "idle"})]))
    runs = [run_job(j) for j in jobs]
    [entry] = requirement_evidence([wiped], runs, (48.0, 48.0), path)
    assert entry["status"] == "verified", entry["detail"]
    [idle] = requirement_evidence([wiped.model_copy(update={"on": "idle"})],
                                  [run_job(j.__class__(j.level_path, j.seed, "idle")) for j in jobs], (48.0, 48.0), path)
    assert idle["status"] == "failed"


def test_a_loss_a_scripted_careless_plan_suffers_is_evidenced_on_that_probe(tmp_path):
    """The careless plan the GDD scripts as a probe (here: walk the scout into the turrets) is played blind on
    the rush seeds when a requirement is on it, and its requirement is evidenced there."""
    import json

    from genesis.simulate import RUSH_SEEDS, run_job, validation_jobs

    level = {"name": "walk in", "description": "d", "map": {"name": "open_field"},
             "switches": {"fog_of_war": False, "production": False, "time_limit": 90},
             "teams": [{"id": 0, "name": "p", "units": [{"type": "scout", "x": 6, "y": 6, "tag": "vip"}]},
                       {"id": 1, "name": "e", "controller": {"type": "ai", "behaviour": "idle"},
                        "units": [{"type": "light_turret", "x": 40, "y": 40, "count": 2}]}],
             "metadata": {"variation": {"probes": [{"name": "walk_in", "exploit": "walk into the turrets",
                                                    "orders": [{"t": 0, "kind": "move", "x": 40, "y": 40}]}]}}}
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    lost = Requirement(id="vip_lost", text="the scout can be lost", on="probe:walk_in",
                       expect=[{"event": "death", "where": {"team": 0, "type": "scout"}, "min": 1}])
    jobs = [j for j in validation_jobs(str(path), [lost]) if j.policy.startswith("probe:")]
    assert [(j.policy, j.seed) for j in jobs] == [("probe:walk_in", s) for s in RUSH_SEEDS]
    [entry] = requirement_evidence([lost], [run_job(j) for j in jobs], (48.0, 48.0), path)
    assert entry["status"] == "verified", entry["detail"]
    # a state expectation replays each run to sample it: the probe's run replays with the probe's orders
    gone = Requirement(id="vip_gone", text="no scout is left", on="probe:walk_in",
                       expect=[{"state": {"at": 85, "team": 0, "type": "scout", "units_max": 0}}])
    [entry] = requirement_evidence([gone], [run_job(j) for j in jobs], (48.0, 48.0), path)
    assert entry["status"] == "verified", entry["detail"]
    # a failed requirement says how its run ended and where each side stood then
    never = Requirement(id="turret_lost", text="a turret dies", on="probe:walk_in",
                        expect=[{"event": "death", "where": {"team": 1}, "min": 1}])
    [entry] = requirement_evidence([never], [run_job(j) for j in jobs], (48.0, 48.0), path)
    assert entry["status"] == "failed" and "at the end: team 0 has 0 units, 0 metal; team 1 has 2 units" in entry["detail"]
    missing = run_job(jobs[0].__class__(str(path), 0, "probe:nowhere"))
    assert not missing.ok and "no probe named 'nowhere'" in missing.error
