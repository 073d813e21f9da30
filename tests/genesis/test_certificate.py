"""The validity certificate: a trivial level is flagged, a level nobody can win is flagged, the
blind open-loop replay reproduces its recorded game and is caught when a level has no variance."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import Simulation, load_level
from engine.agent import make_policy
from engine.agent.open_loop import OpenLoopPolicy, RushPolicy, order_schedule
from genesis.certificate import certify, scenario_certificate
from tests.genesis.pipeline_fixtures import seed_dirs  # noqa: F401 (fixture)

LEVELS = Path(__file__).resolve().parents[2] / "kb" / "levels"


def _level(tmp_path: Path, own: list[dict], enemy: list[dict], time_limit: float = 300.0,
           jitter: float = 0.0) -> Path:
    level = {
        "schema_version": 1, "name": "certificate test", "description": "Destroy the enemy target.",
        "map": {"name": "open_field"},
        "teams": [{"id": 0, "name": "You", "controller": {"type": "agent"}, "units": own},
                  {"id": 1, "name": "Enemy", "controller": {"type": "ai", "behaviour": "hold"}, "units": enemy}],
        "switches": {"fog_of_war": False, "production": False, "time_limit": time_limit, "spawn_jitter": jitter},
        "conditions": [{"kind": "destroy_target", "team": 0, "target": {"team": 1, "tag": "target"},
                        "deadline": time_limit}],
        "metadata": {"reference": {"strategy": "attack", "target_tag": "target", "target_team": 1}},
    }
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    return path


def test_a_trivial_level_is_flagged_and_its_blind_replay_wins_everywhere(tmp_path):
    # six tanks against one scout standing next to them: anything that moves wins, at once
    path = _level(tmp_path, [{"type": "light_tank", "at": "west", "count": 6, "spread": 2.0}],
                  [{"type": "light_bot", "x": 14.5, "y": 24.5, "tag": "target"}])
    cert = certify(path)
    assert cert.checks["replay"].passed and cert.checks["reference_wins"].passed and cert.checks["idle_loses"].passed
    assert not cert.checks["open_loop"].passed                  # nothing varies between seeds
    assert cert.trivial and not cert.impossible and not cert.valid
    assert cert.ladder["random"] == 1.0 and cert.ladder["idle"] == 0.0
    assert any("random agent wins every seed" in f for f in cert.flags)
    assert any("under 10%" in f for f in cert.flags)


def test_a_level_no_agent_can_win_is_flagged_impossible(tmp_path):
    # one scout against a heavy tank line guarding the target, 40 s to break it
    path = _level(tmp_path, [{"type": "scout", "at": "west"}],
                  [{"type": "heavy_tank", "at": "east", "count": 6, "spread": 2.0},
                   {"type": "metal_storage", "x": 44.5, "y": 24.5, "tag": "target"}], time_limit=40.0)
    cert = certify(path)
    assert cert.impossible and not cert.valid
    assert cert.ladder == {"idle": 0.0, "random": 0.0, "rush": 0.0, "reference": 0.0}
    assert not cert.checks["reference_wins"].passed


def test_open_loop_replays_the_recorded_game_and_rush_attacks():
    level = load_level(LEVELS / "MFD" / "level.json")
    recorded = Simulation(level, seed=0, policies={0: make_policy("reference", team=0, seed=0)}).run(until=60)
    schedule = order_schedule(recorded.trace, 0)
    assert schedule and all(s["order"]["kind"] for s in schedule)
    replay = Simulation(level, seed=0, policies={0: OpenLoopPolicy(team=0, schedule=schedule)}).run(until=60)
    assert replay.trace_hash == recorded.trace_hash             # blind, yet the same game on its own seed
    rush = Simulation(level, seed=0, policies={0: RushPolicy(team=0)}).run(until=60)
    fights = [e for e in rush.trace if e["event"] == "order" and e.get("team") == 0 and e.get("kind") == "fight"]
    assert fights                                               # the rush engaged the first wave


def test_prior_runs_are_reused_and_only_playable_scenarios_get_a_certificate(tmp_path, monkeypatch):
    monkeypatch.setenv("GENESIS_CERTIFICATE", "on")
    assert scenario_certificate(tmp_path, {"status": "not_playable"}) is None
    assert scenario_certificate(tmp_path, {"status": "playable"}) is None        # no level.json
    path = _level(tmp_path, [{"type": "light_tank", "at": "west", "count": 6, "spread": 2.0}],
                  [{"type": "light_bot", "x": 14.5, "y": 24.5, "tag": "target"}])
    # a made-up prior reference run whose hash cannot match: the replay check must catch it
    prior = [{"seed": 0, "policy": "reference", "ok": True, "winners": [0], "duration": 5.0, "trace_hash": "f" * 64}]
    cert = scenario_certificate(path.parent, {"status": "playable", "runs": prior})
    assert cert is not None and cert["checks"]["replay"]["passed"] is False


@pytest.mark.slow
def test_multi_front_defense_gets_a_valid_certificate():
    cert = certify(LEVELS / "MFD" / "level.json")
    assert cert.valid, cert.model_dump()
    assert cert.ladder["idle"] < cert.ladder["reference"] == 1.0


def test_the_report_shows_the_certificate(tmp_path):
    from genesis.report import write_report

    cert = {"valid": False, "seeds": [0, 1], "replay_hash": "ab" * 32, "trivial": True, "impossible": False,
            "checks": {"open_loop": {"passed": False, "detail": "blind replay won 2/2 seeds"}},
            "ladder": {"idle": 0.0, "random": 1.0, "rush": 1.0, "reference": 1.0},
            "flags": ["trivial: the random agent wins every seed"], "errors": []}
    (tmp_path / "validation.json").write_text(json.dumps({"playable": True, "status": "playable", "certificate": cert}))
    html = write_report(tmp_path, map_picture=False).read_text()
    section = html[html.index('id="certificate"'):]
    assert "blind replay won 2/2 seeds" in section and "trivial: the random agent wins every seed" in section
    assert "random <b>100%</b>" in section
    glance = html[html.index("At a glance"):html.index('id="certificate"')]
    assert 'Validity certificate</span>' in glance and "FAIL" in glance and "failing: open_loop" in glance
    assert "trivial: the random agent wins every seed" in glance


@pytest.mark.slow
def test_a_generated_scenario_carries_its_certificate(tmp_path, seed_dirs, monkeypatch):
    from genesis.pipeline.runner import start

    import genesis.certificate as certificate

    def from_scratch(*a, **kw):
        raise AssertionError("the certificate's games should have started behind the validation runs")

    monkeypatch.setattr(certificate, "certify", from_scratch)
    monkeypatch.setenv("GENESIS_CERTIFICATE", "on")
    kb, rubrics = seed_dirs
    out = start("defend two fronts with staggered waves", out=tmp_path / "a", kb_root=kb, rubrics_root=rubrics)
    assert out.status == "playable", out.validation.get("reason")
    cert = json.loads((out.out_dir / "validation.json").read_text())["certificate"]
    assert set(cert["checks"]) == {"replay", "reference_wins", "idle_loses", "open_loop"}
    assert cert["checks"]["replay"]["passed"] and cert["checks"]["reference_wins"]["passed"]
    assert set(cert["ladder"]) == {"idle", "random", "rush", "reference"}
    assert 'id="certificate"' in (out.out_dir / "report.html").read_text()


def test_the_suite_switch_is_recorded_not_hidden(tmp_path, monkeypatch):
    monkeypatch.setenv("GENESIS_CERTIFICATE", "off")
    path = _level(tmp_path, [{"type": "light_tank", "at": "west"}], [{"type": "light_bot", "at": "east", "tag": "target"}])
    assert scenario_certificate(path.parent, {"status": "playable"}) == {"skipped": "GENESIS_CERTIFICATE=off"}


def test_a_certificate_is_kept_per_level_and_engine(tmp_path, monkeypatch):
    import genesis.certificate as certificate

    folder = tmp_path / "scenario"
    folder.mkdir()
    _level(folder, [{"type": "light_tank", "at": "west"}], [{"type": "light_bot", "x": 40.5, "y": 24.5, "tag": "target"}])
    made = []

    def fake_certify(level_path, **kw):
        made.append(level_path)
        return certificate.Certificate(valid=True, seeds=[0, 1, 2], replay_hash="h", checks={}, ladder={"idle": 0.0},
                                       trivial=False, impossible=False, flags=[], errors=[])

    monkeypatch.setattr(certificate, "certify", fake_certify)
    monkeypatch.setenv("GENESIS_CERTIFICATE", "on")
    state = {"status": "playable"}
    first = scenario_certificate(folder, state, cache_dir=tmp_path / "cache")
    again = scenario_certificate(folder, state, cache_dir=tmp_path / "cache")
    assert len(made) == 1 and again == {**first, "cached": True}
    level = json.loads((folder / "level.json").read_text())
    level["switches"]["time_limit"] = level["switches"]["time_limit"] + 10      # another level: certified anew
    (folder / "level.json").write_text(json.dumps(level))
    scenario_certificate(folder, state, cache_dir=tmp_path / "cache")
    assert len(made) == 2


def _trivial_level(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return _level(folder, [{"type": "light_tank", "at": "west", "count": 6, "spread": 2.0}],
                  [{"type": "light_bot", "x": 14.5, "y": 24.5, "tag": "target"}])


def test_games_started_early_judge_like_a_certificate_made_at_the_end(tmp_path, monkeypatch):
    import genesis.certificate as certificate
    from genesis.simulate import SimPool

    monkeypatch.setenv("GENESIS_CERTIFICATE", "on")
    path = _trivial_level(tmp_path / "a")
    prior = [{"seed": 0, "policy": "reference", "ok": True, "winners": [0], "duration": 5.0, "trace_hash": "f" * 64}]
    expected = certify(path, prior=prior)
    from_scratch = []
    monkeypatch.setattr(certificate, "certify", lambda *a, **kw: from_scratch.append(a) or expected)
    with SimPool(2) as pool:
        games = certificate.CertificateGames(path, pool, reused={("reference", 0)})
        # the prior seed-0 game is reused: none is queued, its caller tapes it (here it does not, and the
        # prior has no determinism replay, so `finish` plays it to tape and replay it)
        assert ("reference", 0) not in [(games.jobs[i].agent, games.jobs[i].seed) for i in games.todo]
        cert = scenario_certificate(path.parent, {"status": "playable", "runs": prior}, started=games)
    assert not from_scratch
    assert cert == expected.model_dump() and cert["checks"]["replay"]["passed"] is False


def test_started_games_are_not_used_for_another_level_other_prior_runs_or_a_closed_pool(tmp_path, monkeypatch):
    import genesis.certificate as certificate
    from genesis.simulate import SimPool

    monkeypatch.setenv("GENESIS_CERTIFICATE", "on")
    path = _trivial_level(tmp_path / "a")
    from_scratch = []
    made = certificate.Certificate(valid=True, seeds=[0, 1, 2], replay_hash="h", checks={}, ladder={"idle": 0.0},
                                   trivial=False, impossible=False, flags=[], errors=[])
    monkeypatch.setattr(certificate, "certify", lambda *a, **kw: from_scratch.append(kw.get("prior")) or made)
    prior = [{"seed": 0, "policy": "reference", "ok": True, "winners": [0], "duration": 5.0, "trace_hash": "f" * 64}]
    with SimPool(1) as pool:
        games = certificate.CertificateGames(path, pool)                      # planned without prior runs
        assert scenario_certificate(path.parent, {"status": "playable", "runs": prior}, started=games)["valid"]
        assert from_scratch == [prior]
        games = certificate.CertificateGames(path, pool, reused={("reference", 0)})
        level = json.loads(path.read_text())
        level["switches"]["time_limit"] = 200.0                              # the level changed since
        path.write_text(json.dumps(level))
        assert not games.covers(path)
        scenario_certificate(path.parent, {"status": "playable", "runs": prior}, started=games)
        assert len(from_scratch) == 2
        games = certificate.CertificateGames(path, pool, reused={("reference", 0)})
        pool.close()                                                          # its games were killed
        assert not games.alive()
        scenario_certificate(path.parent, {"status": "playable", "runs": prior}, started=games)
        assert len(from_scratch) == 3


def test_a_level_that_plays_one_game_on_every_seed_says_so_and_plays_it_once(tmp_path):
    path = _level(tmp_path, [{"type": "light_tank", "at": "west", "count": 6, "spread": 2.0}],
                  [{"type": "light_bot", "x": 14.5, "y": 24.5, "tag": "target"}])
    cert = certify(path)
    assert any(c.startswith("rush seeds 1, 2: the game of seed 0") for c in cert.copied_seeds)
    assert any(c.startswith("open_loop seeds 1, 2") for c in cert.copied_seeds)
    assert not any(c.startswith("random") for c in cert.copied_seeds)      # a random agent draws every game
    assert "the same game on every seed" in cert.checks["open_loop"].detail
    jittered = certify(_level(tmp_path, [{"type": "light_tank", "at": "west", "count": 6, "spread": 2.0}],
                              [{"type": "light_bot", "x": 14.5, "y": 24.5, "tag": "target"}], jitter=2.0))
    assert jittered.copied_seeds == [] and "same game" not in jittered.checks["open_loop"].detail


def test_a_reused_validation_game_tapes_the_open_loop_and_its_prefix_replay_is_the_replay_check(tmp_path, monkeypatch):
    import genesis.certificate as certificate
    from genesis.simulate import SimJob, SimPool, run_job

    path = _trivial_level(tmp_path / "a")
    played = run_job(SimJob(str(path), 0, "reference", prefix_s=2.0))
    played.replay_prefix_hash = run_job(SimJob(str(path), 0, "reference", prefix_s=2.0, prefix_only=True)).prefix_hash
    prior = [played.summary()]
    with SimPool(2) as pool:
        games = certificate.CertificateGames(path, pool, reused={("reference", 0)})
        games.tape(played.events)
        cert = games.finish(prior)
    assert "replayed in another process left the same trace" in cert.checks["replay"].detail and cert.checks["replay"].passed
    scratch = certify(path)
    assert cert.replay_hash == scratch.replay_hash and cert.ladder == scratch.ladder
    assert cert.checks["open_loop"].detail.split(";")[0] == scratch.checks["open_loop"].detail.split(";")[0]
    # a prefix that did not replay the same way fails the check
    prior[0]["determinism"]["replay_prefix_hash"] = "0" * 64
    with SimPool(2) as pool:
        games = certificate.CertificateGames(path, pool, reused={("reference", 0)})
        games.tape(played.events)
        assert not games.finish(prior).checks["replay"].passed


def test_a_later_seed_of_a_reused_validation_game_copies_it_only_when_that_game_drew_nothing(tmp_path):
    import genesis.certificate as certificate
    from genesis.simulate import SimPool

    path = _level(tmp_path, [{"type": "light_tank", "at": "west", "count": 6, "spread": 2.0}],
                  [{"type": "light_bot", "x": 14.5, "y": 24.5, "tag": "target"}])
    idle = [certificate.run_cert_job(certificate.CertJob(str(path), s, "idle")) for s in (0, 1)]
    assert all(r.ok and r.seed_independent for r in idle)
    for drew in (False, True):
        prior = [{"seed": r.seed, "policy": "idle", "ok": True, "winners": [0] if r.won else [], "duration": r.duration,
                  "trace_hash": r.trace_hash, "seed_independent": not drew} for r in idle]
        with SimPool(2) as pool:
            games = certificate.CertificateGames(path, pool, reused={("idle", 0), ("idle", 1)})
            assert ("idle", 2) not in [(games.jobs[i].agent, games.jobs[i].seed) for i in games.todo]
            cert = games.finish(prior)
        copied = [c for c in cert.copied_seeds if c.startswith("idle")]
        assert copied == ([] if drew else ["idle seed 2: the game of seed 0 (it drew nothing from its seed)"])
        assert cert.checks["idle_loses"].detail == "idle won 0/3 seeds"
