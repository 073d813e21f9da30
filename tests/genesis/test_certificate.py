"""The validity certificate: a level whose objective the seed moves and that only a reactive agent
wins is valid; the same level without the draw plays one game on every seed; a declared fixed drill
passes; a probe, a rush or a turtle that wins every seed is caught; cheap rungs stop at their first
loss; the difficulty band follows the ladder; a trivial level and a level nobody can win are flagged."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import Simulation, load_level
from engine.agent import make_policy
from engine.agent.open_loop import OpenLoopPolicy, RushPolicy, TurtlePolicy, order_schedule
from genesis.certificate import CHEAP, certify, scenario_certificate
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


# The target of `_spot_level` appears at one of these spots, drawn by its rule from the seed: the
# draws of seeds 0..4 pick spots 5, 2, 5, 3, 4 (with three draws burnt first: 1, 5, 2, 5, 4).
SPOTS = [[6.5, 42.5], [42.5, 42.5], [24.5, 43.5], [5.5, 24.5], [43.5, 24.5]]
SPOT_RULE = """-- the target appears at one of the candidate spots, drawn from the seed
function on_start()
  local spots = param("spots", {})
  for _ = 1, param("burn", 0) do random() end
  local s = spots[PICK]
  spawn(1, "metal_storage", s[1], s[2], 1, "target")
end
"""
# visits every spot in turn: a blind plan that finds the target wherever the seed put it (an exploit probe)
SWEEP = {"name": "sweep", "exploit": "visit every candidate spot in turn",
         "orders": [{"t": 20.0 * i, "kind": "fight", "x": x, "y": y}
                    for i, (x, y) in enumerate([SPOTS[4], SPOTS[1], SPOTS[2], SPOTS[0], SPOTS[3]])]}
CAMP = {"name": "camp_east", "exploit": "wait at the east spot", "orders": [{"t": 0, "kind": "fight", "x": 43.5, "y": 24.5}]}


def _spot_level(folder: Path, *, draw: bool = True, burn: int = 0, time_limit: float = 120.0, guard: bool = True,
                spots: list = SPOTS, fixed_by: str | None = None, probes: list[dict] = ()) -> Path:
    """Six tanks in the middle of the map must destroy a storage that appears at a spot the seed draws
    (the last spot without the draw); three heavy tanks hold the north, nearer than any spot, so a
    rush at the nearest enemy dies there. The reference attacks the target wherever it sees it."""
    folder.mkdir(parents=True, exist_ok=True)
    rule = SPOT_RULE.replace("PICK", "random_int(1, #spots)")
    if not draw:        # a script that never mentions random cannot draw: its games are copied at once
        rule = "\n".join(line for line in SPOT_RULE.replace("PICK", "#spots").splitlines() if "random" not in line)
    (folder / "rule.lua").write_text(rule)
    guards = [{"type": "heavy_tank", "x": 24.5, "y": 8.5, "count": 3, "spread": 2.0}] if guard else []
    level = {
        "schema_version": 1, "name": "drawn target", "description": "Destroy the storage wherever it appears.",
        "map": {"name": "open_field"},
        "teams": [{"id": 0, "name": "You", "controller": {"type": "agent"},
                   "units": [{"type": "light_tank", "x": 24.5, "y": 24.5, "count": 6, "spread": 2.0}]},
                  {"id": 1, "name": "Enemy", "controller": {"type": "ai", "behaviour": "hold"}, "units": guards}],
        "switches": {"fog_of_war": False, "production": False, "time_limit": time_limit},
        "conditions": [{"kind": "destroy_target", "team": 0, "target": {"team": 1, "tag": "target"},
                        "deadline": time_limit}],
        "rules": [{"id": "target_spot", "script": "rule.lua", "params": {"spots": spots, "burn": burn}}],
        "metadata": {"reference": {"strategy": "attack", "target_tag": "target", "target_team": 1},
                     "variation": {"fixed_by": fixed_by, "probes": list(probes)}},
    }
    path = folder / "level.json"
    path.write_text(json.dumps(level))
    return path


def test_a_level_whose_target_the_seed_places_is_valid_and_its_cheap_rungs_stop_at_their_first_loss(tmp_path):
    cert = certify(_spot_level(tmp_path))
    assert cert.valid, cert.model_dump()
    assert cert.seeds == [0, 1, 2, 3, 4] and not cert.errors and cert.copied_seeds == []
    # every later seed places the target elsewhere (seed 2 once drew seed 0's spot: a random_int defect)
    assert cert.checks["seeds_matter"].detail == "the reference played another game than on seed 0 on seeds 1, 2, 3, 4"
    # the blind replay never finds the target, and stops once it lost three seeds
    assert cert.rungs["open_loop"].seeds_played == [1, 2, 3] and cert.rungs["open_loop"].seeds_won == []
    assert "won 0/3 seeds" in cert.checks["open_loop"].detail and cert.checks["open_loop"].passed
    # each cheap rung stops at its first loss: the rush dies on the guard, the turtle never leaves
    for name in ("rush", "turtle"):
        assert cert.rungs[name].seeds_played == [0] and cert.rungs[name].seeds_won == []
        assert cert.rungs[name].stopped == "stopped at its first loss (seed 0)"
    assert cert.rungs["random"].seeds_played == [0, 1] and cert.rungs["random"].seeds_won == [0]
    assert cert.rungs["rush"].units_lost == 6.0 and cert.rungs["random"].win_duration_s > 0
    assert cert.ladder["random"] == 0.5 and cert.ladder["reference"] == 1.0 and cert.ladder["idle"] == 0.0
    assert cert.rungs["reference"].seeds_won == [0, 1, 2, 3, 4] and cert.rungs["idle"].seeds_played == [0, 1, 2, 3, 4]
    assert cert.difficulty == "easy"            # random play won one seed
    # taped + replayed reference, 4 more reference and 5 idle games, then only what the rungs played
    cheap = sum(len(cert.rungs[n].seeds_played) for n in (*CHEAP, "open_loop"))
    assert cert.games_played == 11 + cheap == 18 and cert.games_copied == 0 and cert.games_reused == 0
    assert cert.games_played < 11 + 4 * 5                                    # without the early stops
    assert cert.levers == [] and cert.wall_s > 0


def test_without_the_draw_the_level_plays_one_game_on_every_seed(tmp_path):
    cert = certify(_spot_level(tmp_path, draw=False))
    assert not cert.valid
    matter = cert.checks["seeds_matter"]
    assert not matter.passed and matter.detail.startswith("the level plays the same game on every seed")
    assert not cert.checks["open_loop"].passed and "same game on every seed" in cert.checks["open_loop"].detail
    assert any(lever.startswith("declare a seeded variation") for lever in cert.levers)
    assert any(lever.startswith("vary what the reference has to react to") for lever in cert.levers)
    # the games drew nothing from their seeds: the later seeds are copies, not played again
    assert "reference seeds 1, 2, 3, 4: the game of seed 0 (it drew nothing from its seed)" in cert.copied_seeds
    assert cert.games_copied >= 8


def test_a_declared_fixed_drill_passes_the_variation_checks(tmp_path):
    clause = "the enemy storage always stands at the east gate"
    cert = certify(_spot_level(tmp_path, draw=False, fixed_by=clause))
    for name in ("seeds_matter", "open_loop"):
        assert cert.checks[name].passed and cert.checks[name].detail == f"fixed drill: {clause}"
    assert cert.fixed_by == clause and cert.valid, cert.model_dump()
    # the blind replay still plays (one game: the others are copies) and ranks the level
    assert cert.rungs["open_loop"].seeds_won == [1, 2, 3] and cert.difficulty == "easy"


def test_a_probe_that_wins_every_seed_is_named(tmp_path):
    cert = certify(_spot_level(tmp_path, probes=[SWEEP, CAMP]))
    check = cert.checks["no_cheap_win"]
    assert not check.passed and not cert.valid
    assert check.detail.startswith("probe:sweep (visit every candidate spot in turn) won every seed, e.g. seed 0: won in")
    assert "camp_east" not in check.detail
    assert cert.rungs["probe:sweep"].seeds_won == [0, 1, 2, 3, 4] and cert.ladder["probe:sweep"] == 1.0
    assert cert.rungs["probe:camp_east"].seeds_played == [0, 1] and cert.rungs["probe:camp_east"].seeds_won == [0]
    assert any(lever.startswith("close the exploit of probe sweep (visit every candidate spot in turn)")
               for lever in cert.levers)
    assert cert.difficulty == "easy"


def test_a_rush_that_wins_every_seed_fails_the_level(tmp_path):
    cert = certify(_spot_level(tmp_path, guard=False))         # nothing stands between the army and the target
    check = cert.checks["no_cheap_win"]
    assert not check.passed and not cert.valid
    assert check.detail.startswith("rush won every seed, e.g. seed 0: won in") and "turtle" not in check.detail
    assert any(lever.startswith("make a blind rush lose") for lever in cert.levers)
    assert cert.checks["seeds_matter"].passed and cert.checks["open_loop"].passed


def test_a_turtle_that_wins_every_seed_fails_the_level(tmp_path):
    # the target appears within ten tiles of the army, beyond its weapons' reach: sitting still loses,
    # holding the start posts and shooting what comes near wins
    near = [[24.5, 33.5], [33.5, 24.5], [15.5, 24.5], [30.5, 31.5], [18.5, 31.5]]
    cert = certify(_spot_level(tmp_path, spots=near))
    assert cert.checks["idle_loses"].passed
    assert "turtle won every seed" in cert.checks["no_cheap_win"].detail and not cert.valid
    assert cert.rungs["turtle"].seeds_won == [0, 1, 2, 3, 4]
    assert any(lever.startswith("make sitting at the start lose") for lever in cert.levers)


def test_the_turtle_holds_its_posts_and_fights_only_near_them(tmp_path):
    path = _spot_level(tmp_path, spots=[[24.5, 33.5]], time_limit=30.0)
    result = Simulation(load_level(path), seed=0, policies={0: TurtlePolicy(team=0)}).run()
    assert 0 in result.winners                                  # the storage 9 tiles away is attacked
    far = _spot_level(tmp_path / "far", spots=[[24.5, 43.5]], time_limit=30.0)
    result = Simulation(load_level(far), seed=0, policies={0: TurtlePolicy(team=0)}).run()
    assert 0 not in result.winners                              # 19 tiles away it is not
    assert not [e for e in result.trace if e["event"] == "order" and e.get("team") == 0]


@pytest.mark.parametrize("burn, band", [(1, "medium"), (0, "hard")])
def test_the_difficulty_band_follows_the_ladder(tmp_path, burn, band):
    # 60 s: too short for random play; with one draw burnt first seed 1 puts the target on seed 0's spot,
    # where the blind replay finds it; with none, no later seed puts it there
    cert = certify(_spot_level(tmp_path, burn=burn, time_limit=60.0))
    assert cert.valid, cert.model_dump()
    assert cert.difficulty == band
    assert not any(cert.rungs[n].seeds_won for n in ("idle", *CHEAP))
    assert cert.rungs["open_loop"].seeds_won == ([1] if band == "medium" else [])


def test_an_invalid_probe_is_an_error_of_the_level(tmp_path):
    cert = certify(_spot_level(tmp_path, probes=[{"name": "empty", "exploit": "nothing", "orders": []}]))
    assert not cert.valid and any(e.startswith("probe #1: not a valid probe") for e in cert.errors)
    assert not any(name.startswith("probe:") for name in cert.rungs)


def test_a_trivial_level_is_flagged_and_its_blind_replay_wins_everywhere(tmp_path):
    # six tanks against one scout standing next to them: anything that moves wins, at once
    path = _level(tmp_path, [{"type": "light_tank", "at": "west", "count": 6, "spread": 2.0}],
                  [{"type": "light_bot", "x": 14.5, "y": 24.5, "tag": "target"}])
    cert = certify(path)
    assert cert.checks["replay"].passed and cert.checks["reference_wins"].passed and cert.checks["idle_loses"].passed
    assert not cert.checks["open_loop"].passed                  # nothing varies between seeds
    assert not cert.checks["seeds_matter"].passed and not cert.checks["no_cheap_win"].passed
    assert cert.trivial and not cert.impossible and not cert.valid and cert.difficulty == "trivial"
    assert cert.ladder["random"] == 1.0 and cert.ladder["idle"] == 0.0
    assert any("random agent wins every seed" in f for f in cert.flags)
    assert any("under 10%" in f for f in cert.flags)


def test_a_level_no_agent_can_win_is_flagged_impossible(tmp_path):
    # one scout against a heavy tank line guarding the target, 40 s to break it
    path = _level(tmp_path, [{"type": "scout", "at": "west"}],
                  [{"type": "heavy_tank", "at": "east", "count": 6, "spread": 2.0},
                   {"type": "metal_storage", "x": 44.5, "y": 24.5, "tag": "target"}], time_limit=40.0)
    cert = certify(path)
    assert cert.impossible and not cert.valid and cert.difficulty == "impossible"
    assert cert.ladder == {"idle": 0.0, "random": 0.0, "rush": 0.0, "turtle": 0.0, "open_loop": 0.0, "reference": 0.0}
    assert not cert.checks["reference_wins"].passed
    assert any(lever.startswith("make the level winnable") for lever in cert.levers)
    assert any(lever.startswith("weaken the enemy or strengthen the player") for lever in cert.levers)


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
    turtle = Simulation(level, seed=0, policies={0: TurtlePolicy(team=0)}).run(until=60)
    assert turtle.trace_hash != rush.trace_hash


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
def test_multi_front_defense_varies_with_the_seed_and_defeats_a_blind_replay():
    cert = certify(LEVELS / "MFD" / "level.json")
    assert not cert.errors and not cert.flags
    assert cert.ladder["idle"] < cert.ladder["reference"] == 1.0
    for name in ("replay", "reference_wins", "idle_loses", "seeds_matter", "open_loop"):
        assert cert.checks[name].passed, (name, cert.checks[name].detail)
    # a rush at the nearest enemy charges the raiders' Bot Lab in the west while a wave takes a storage
    assert cert.checks["no_cheap_win"].passed and cert.ladder["rush"] == 0.0
    assert cert.valid and cert.difficulty == "hard"


def test_the_report_shows_the_certificate(tmp_path):
    from genesis.report import write_report

    cert = {"valid": False, "seeds": [0, 1], "replay_hash": "ab" * 32, "trivial": True, "impossible": False,
            "checks": {"open_loop": {"passed": False, "detail": "blind replay won 2/2 seeds"}},
            "ladder": {"idle": 0.0, "random": 1.0, "rush": 1.0, "reference": 1.0},
            "flags": ["trivial: the random agent wins every seed"], "errors": [], "difficulty": "trivial",
            "rungs": {"rush": {"seeds_played": [0, 1], "seeds_won": [0], "win_duration_s": 12.0, "units_lost": 1.5,
                               "stopped": "stopped at its first loss (seed 1)"}},
            "levers": ["make a blind rush lose: stronger defenders"], "games_played": 9, "games_copied": 4,
            "games_reused": 5, "wall_s": 3.5}
    (tmp_path / "validation.json").write_text(json.dumps({"playable": True, "status": "playable", "certificate": cert}))
    html = write_report(tmp_path, map_picture=False).read_text()
    section = html[html.index('id="certificate"'):]
    assert "blind replay won 2/2 seeds" in section and "trivial: the random agent wins every seed" in section
    assert "random <b>100%</b>" in section
    assert "Difficulty band: <b>trivial</b>" in section and "9 games played, 4 copied, 5 reused in 3.5 s" in section
    assert "<li>make a blind rush lose: stronger defenders</li>" in section
    assert "<td>12 s</td><td>1.5</td>" in section and "stopped at its first loss (seed 1)" in section
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
    assert set(cert["checks"]) == {"replay", "reference_wins", "idle_loses", "seeds_matter", "no_cheap_win", "open_loop"}
    assert cert["checks"]["replay"]["passed"] and cert["checks"]["reference_wins"]["passed"]
    assert {"idle", "random", "rush", "turtle", "open_loop", "reference"} <= set(cert["ladder"]) == set(cert["rungs"])
    assert cert["difficulty"] and cert["games_reused"] == 5
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
    assert cert["wall_s"] > 0
    assert {**cert, "wall_s": 0} == expected.model_copy(update={"wall_s": 0}).model_dump()
    assert cert["checks"]["replay"]["passed"] is False


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
    assert any(c.startswith("rush seeds 1, 2, 3, 4: the game of seed 0") for c in cert.copied_seeds)
    # the blind replay plays the seeds after the first first, and stops once it won three
    assert "open_loop seeds 2, 3: the game of seed 1 (it drew nothing from its seed)" in cert.copied_seeds
    assert not any(c.startswith("random") for c in cert.copied_seeds)      # a random agent draws every game
    assert cert.rungs["random"].seeds_played == [0, 1, 2, 3, 4]            # and wins every one
    assert "the same game on every seed" in cert.checks["open_loop"].detail
    assert "the same game on every seed" in cert.checks["seeds_matter"].detail
    assert cert.games_copied >= 4 * 4 + 2       # reference, idle, rush and turtle: 4 each; the blind replay: 2
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
        assert copied == ([] if drew else ["idle seeds 2, 3, 4: the game of seed 0 (it drew nothing from its seed)"])
        assert cert.checks["idle_loses"].detail == "idle won 0/5 seeds"
        assert cert.games_reused == 2


_REAL_RUN = None


def _hang_turtle(job):
    """A worker that hangs on the turtle's games (the pool forks: its children see the patched module)."""
    import time

    if job.agent == "turtle":
        time.sleep(120)
    return _REAL_RUN(job)


def test_games_lost_with_a_closed_pool_are_played_again_and_a_hanging_game_is_killed(tmp_path, monkeypatch):
    import genesis.certificate as certificate
    from genesis.simulate import SimPool

    path = _spot_level(tmp_path, time_limit=60.0, burn=1)    # seed 1 shares seed 0's spot: medium
    with SimPool(2) as pool:
        games = certificate.CertificateGames(path, pool)
        pool.close()                                    # every queued game is lost: `finish` plays them again
        cert = games.finish()
    assert cert.valid and not cert.errors and cert.difficulty == "medium", cert.model_dump()

    global _REAL_RUN
    _REAL_RUN = certificate.run_cert_job
    monkeypatch.setattr(certificate, "run_cert_job", _hang_turtle)
    with SimPool(2) as pool:
        cert = certificate.CertificateGames(path, pool, timeout_s=3.0).finish()
    assert cert.errors == ["turtle seed 0: killed after 3 s wall clock without a result"] and not cert.valid
    assert cert.rungs["turtle"].seeds_played == [0] and cert.rungs["turtle"].seeds_won == []
    # the games the kill took down with the pool were played again
    assert cert.rungs["reference"].seeds_won == [0, 1, 2, 3, 4] and cert.rungs["idle"].seeds_played == [0, 1, 2, 3, 4]
    assert cert.rungs["rush"].seeds_played == [0] and cert.checks["seeds_matter"].passed


def test_a_lost_game_is_told_with_when_and_to_whom_the_player_lost_its_units(tmp_path):
    import genesis.certificate as certificate

    # two light bots attack a target guarded by four heavy tanks: the reference loses both to team 1
    path = _level(tmp_path, [{"type": "light_bot", "at": "west", "count": 2, "spread": 1.0}],
                  [{"type": "light_bot", "x": 40.5, "y": 24.5, "tag": "target"},
                   {"type": "heavy_tank", "x": 38.5, "y": 22.5, "count": 4, "spread": 1.5}], time_limit=120.0)
    run = certificate.run_cert_job(certificate.CertJob(str(path), 0, "reference"))
    assert run.ok and not run.won and run.units_lost == 2
    assert run.losses.startswith("2 light_bot ") and run.losses.endswith("(by team 1)"), run.losses
    assert f"its losses: {run.losses}" in certificate._summary(run)
