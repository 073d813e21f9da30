"""Validation runs: memoised by what they simulate, determinism by a replayed prefix, early stops."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from genesis import validation_cache as vc
from genesis.checks.context import CheckContext
from genesis.checks.level_checks import determinism, terminates
from genesis.simulate import SimJob, SimRun, generation_processes, process_budget, run_job


def _level(tmp_path: Path, rule_source: str = "function on_start() end\n", teams: list[dict] | None = None,
           conditions: list[dict] | None = None) -> Path:
    rows = ["." * 32 for _ in range(32)]
    (tmp_path / "map.json").write_text(json.dumps({"name": "m", "width": 32, "height": 32, "rows": rows, "spawns": []}))
    (tmp_path / "rule.lua").write_text(rule_source)
    level = {"name": "t", "description": "test level", "map": {"file": "map.json"},
             "teams": teams or [
                 {"id": 0, "name": "p", "controller": {"type": "agent"},
                  "units": [{"type": "light_bot", "x": 6.5, "y": 16.5, "count": 3}]},
                 {"id": 1, "name": "e", "units": [{"type": "assault_bot", "x": 26.5, "y": 16.5, "count": 3}],
                  "controller": {"type": "ai", "behaviour": "waves", "target": {"team": 0}, "interval": 5}}],
             "conditions": conditions or [{"kind": "last_survivor"}],
             "rules": [{"id": "r", "script": "rule.lua"}],
             "switches": {"fog_of_war": False, "time_limit": 120},
             "metadata": {"generator": {"query": "q", "run_id": "a"}}}
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    return path


def _run(job: SimJob, **extra) -> SimRun:
    return SimRun(seed=job.seed, policy=job.policy, ok=True, winners=[0], losers=[1], reason="won",
                  ended_by="condition", duration=12.0, trace_hash="h", events=[{"t": 0.0, "event": "spawn"}], **extra)


def test_a_stored_run_is_reused_only_for_the_same_level_rules_engine_seed_and_policy(tmp_path, monkeypatch):
    path = _level(tmp_path)
    cache = vc.ValidationCache(tmp_path / "cache")
    job = SimJob(str(path), 0, "reference")
    key = vc.job_key(vc.level_fingerprint(path), job)
    assert cache.get(key, job) is None
    cache.put(key, _run(job), job)
    hit = cache.get(key, job)
    assert hit is not None and hit.cached and hit.trace_hash == "h" and hit.events == [{"t": 0.0, "event": "spawn"}]
    # the generator stamp is no input of the simulation: a fast-tracked copy of the level hits
    data = json.loads(path.read_text())
    data["metadata"]["generator"] = {"query": "another query", "run_id": "b"}
    path.write_text(json.dumps(data))
    assert vc.job_key(vc.level_fingerprint(path), job) == key
    # everything the simulation does depend on misses
    assert vc.job_key(vc.level_fingerprint(path), SimJob(str(path), 1, "reference")) != key
    assert vc.job_key(vc.level_fingerprint(path), SimJob(str(path), 0, "idle")) != key
    (tmp_path / "rule.lua").write_text("function on_start() message('hi') end\n")
    assert vc.job_key(vc.level_fingerprint(path), job) != key
    (tmp_path / "rule.lua").write_text("function on_start() end\n")
    assert vc.job_key(vc.level_fingerprint(path), job) == key
    monkeypatch.setattr(vc, "engine_version", lambda: "another engine")
    assert vc.job_key(vc.level_fingerprint(path), job) != key


def test_failed_runs_are_not_stored_and_corrupt_entries_are_ignored_then_rewritten(tmp_path):
    path = _level(tmp_path)
    cache = vc.ValidationCache(tmp_path / "cache")
    job = SimJob(str(path), 0, "reference")
    key = vc.job_key(vc.level_fingerprint(path), job)
    cache.put(key, SimRun(seed=0, policy="reference", ok=False, error="simulation killed after 180 s wall clock"), job)
    assert cache.get(key, job) is None
    entry = cache._path(key)
    entry.parent.mkdir(parents=True, exist_ok=True)
    entry.write_bytes(b"PK\x03\x04 torn")
    assert cache.get(key, job) is None and cache.stats.corrupt == 1
    cache.put(key, _run(job), job)
    assert cache.get(key, job).trace_hash == "h"
    assert not list(entry.parent.glob("*.tmp"))


def test_frames_and_gif_come_back_where_the_new_run_wants_them(tmp_path):
    path = _level(tmp_path)
    old = SimJob(str(path), 0, "reference", frames_dir=str(tmp_path / "a" / "frames"), gif_path=str(tmp_path / "a" / "replay.gif"))
    Path(old.frames_dir).mkdir(parents=True)
    frame = Path(old.frames_dir) / "frame_0000.png"
    frame.write_bytes(b"png bytes")
    Path(old.gif_path).write_bytes(b"gif bytes")
    cache = vc.ValidationCache(tmp_path / "cache")
    key = vc.job_key(vc.level_fingerprint(path), old)
    cache.put(key, _run(old, frames=[str(frame)]), old)
    new = SimJob(str(path), 0, "reference", frames_dir=str(tmp_path / "b" / "frames"), gif_path=str(tmp_path / "b" / "replay.gif"))
    assert vc.job_key(vc.level_fingerprint(path), new) == key
    hit = cache.get(key, new)
    assert hit.frames == [str(tmp_path / "b" / "frames" / "frame_0000.png")]
    assert Path(hit.frames[0]).read_bytes() == b"png bytes" and Path(new.gif_path).read_bytes() == b"gif bytes"
    assert vc.job_key(vc.level_fingerprint(path), SimJob(str(path), 0, "reference")) != key  # no frames wanted


def test_run_cached_simulates_once_and_answers_the_second_time_from_the_cache(tmp_path):
    path = _level(tmp_path)
    cache = vc.ValidationCache(tmp_path / "cache")
    jobs = [SimJob(str(path), 0, "idle"), SimJob(str(path), 0, "reference", prefix_s=2.0, prefix_only=True)]
    first = vc.run_cached(jobs, cache, workers=1)
    assert [r.cached for r in first] == [False, False] and all(r.ok for r in first)
    again = vc.run_cached(jobs, cache, workers=1)
    assert [r.cached for r in again] == [True, True] and cache.stats.hits == 2
    assert [r.trace_hash for r in again] == [r.trace_hash for r in first]
    assert again[1].prefix_hash == first[1].prefix_hash


def test_a_replayed_prefix_hashes_like_the_same_stretch_of_the_full_game(tmp_path):
    path = _level(tmp_path)
    full = run_job(SimJob(str(path), 3, "reference", prefix_s=2.0))
    replay = run_job(SimJob(str(path), 3, "reference", prefix_s=2.0, prefix_only=True))
    other = run_job(SimJob(str(path), 3, "reference", prefix_s=3.0, prefix_only=True))
    assert full.ok and replay.ended_by == "replay" and replay.duration == pytest.approx(2.0)
    assert full.duration > 2.0 and full.prefix_t == pytest.approx(2.0)
    assert replay.prefix_hash == full.prefix_hash != other.prefix_hash
    full.replay_prefix_hash = replay.prefix_hash
    ok, detail = determinism(CheckContext(runs=[full]))
    assert ok and "replayed for its first 2 s" in detail
    full.replay_prefix_hash = other.prefix_hash
    ok, detail = determinism(CheckContext(runs=[full]))
    assert not ok and "different trace hashes" in detail
    assert determinism(CheckContext(runs=[SimRun(seed=0, policy="reference", ok=True)]))[0] is False


def test_a_run_stops_once_every_agent_team_has_lost_and_says_why(tmp_path):
    # three teams, last survivor: a rule declares the overrun player lost while the two others are still apart
    teams = [{"id": 0, "name": "p", "controller": {"type": "agent"}, "units": [{"type": "light_bot", "x": 4.5, "y": 4.5}]},
             {"id": 1, "name": "e", "units": [{"type": "assault_bot", "x": 8.5, "y": 4.5, "count": 4}],
              "controller": {"type": "ai", "behaviour": "waves", "target": {"team": 0}, "interval": 2}},
             {"id": 2, "name": "far", "units": [{"type": "light_bot", "x": 28.5, "y": 28.5}],
              "controller": {"type": "ai", "behaviour": "waves", "target": {"team": 1}, "first_at": 100}}]
    rule = "function on_unit_destroyed(u) if u.team == 0 and #units(0) == 0 then lose(0, 'wiped out') end end\n"
    path = _level(tmp_path, rule, teams=teams)
    run = run_job(SimJob(str(path), 0, "idle"))
    assert run.ok and run.ended_by == "decided" and run.losers == [0] and run.winners == []
    assert run.decided.startswith("every agent team had lost at") and run.duration < 120 and run.reason == "r: wiped out"
    assert terminates(CheckContext(runs=[run]))[0]


def test_generations_share_one_process_budget():
    assert process_budget() >= 1
    assert generation_processes(1) == process_budget()
    assert generation_processes(process_budget() * 4) == 1


def _seed_jobs(path: Path) -> list[SimJob]:
    return [SimJob(str(path), s, "reference") for s in (0, 1, 2)] + [SimJob(str(path), s, "idle") for s in (0, 1)]


def test_later_seeds_copy_a_game_that_drew_nothing_from_its_seed_and_the_copies_are_true(tmp_path):
    path = _level(tmp_path)
    runs = vc.run_cached(_seed_jobs(path), vc.ValidationCache(tmp_path / "cache"), workers=1)
    assert [r.same_as_seed for r in runs] == [None, 0, 0, None, 0]
    assert runs[0].seed_independent and runs[1].wall_s == 0.0 and [r.seed for r in runs] == [0, 1, 2, 0, 1]
    for copy in (runs[2], runs[4]):             # what simulating that seed really gives
        played = run_job(SimJob(str(path), copy.seed, copy.policy))
        assert (played.trace_hash, played.winners, played.duration) == (copy.trace_hash, copy.winners, copy.duration)
    assert runs[1].summary()["same_as_seed"] == 0


def test_later_seeds_are_simulated_when_the_first_drew_from_its_seed(tmp_path):
    path = _level(tmp_path, rule_source="function on_start()\n  spawn(1, 'light_bot', 26.5, 16.5, random_int(1, 6))\nend\n")
    runs = vc.run_cached(_seed_jobs(path), vc.ValidationCache(tmp_path / "cache"), workers=1)
    assert all(r.same_as_seed is None and not r.seed_independent and r.ok for r in runs)
    assert len({r.trace_hash for r in runs[:3]}) > 1


def test_the_replay_gif_is_drawn_by_a_worker_kept_by_the_replays_bytes_and_drawn_here_without_a_pool(tmp_path):
    from genesis.replay_gif import ReplayGif
    from genesis.simulate import SimPool

    path = _level(tmp_path)
    replay = tmp_path / "replay.json"
    assert run_job(SimJob(str(path), 0, "idle", replay_path=str(replay))).ok
    cache = vc.ValidationCache(tmp_path / "cache")
    with SimPool(1) as pool:
        drawn = ReplayGif(replay, pool, cache)
        assert drawn.pending is not None
        drawn.write(tmp_path / "a.gif", timeout_s=60)
        again = ReplayGif(replay, pool, cache)
        assert again.pending is None                   # kept: the same replay, the same engine
        again.write(tmp_path / "b.gif", timeout_s=60)
        lost = ReplayGif(tmp_path / "replay.json", pool, vc.ValidationCache(tmp_path / "other"))
        pool.close()                                   # its worker is gone: drawn in this process
        lost.write(tmp_path / "c.gif", timeout_s=60)
    gifs = [(tmp_path / n).read_bytes() for n in ("a.gif", "b.gif", "c.gif")]
    assert gifs[0][:6] == b"GIF89a" and gifs[0] == gifs[1] == gifs[2]


def test_rule_test_results_are_kept_by_the_folders_bytes_and_a_killed_harness_is_not(tmp_path):
    folder = tmp_path / "rule"
    folder.mkdir()
    (folder / "rule.lua").write_text("function on_start() end\n")
    (folder / "test.yaml").write_text("tests: []\n")
    cache = vc.ValidationCache(tmp_path / "cache")
    assert cache.rule_tests(folder) is None
    results = [{"name": "t", "passed": False, "details": ["no wave came"], "error": None}]
    cache.put_rule_tests(folder, results)
    assert cache.rule_tests(folder) == results
    (folder / "rule.lua").write_text("function on_start() end\n-- changed\n")
    assert cache.rule_tests(folder) is None
    cache.put_rule_tests(folder, [{"name": "(all)", "passed": False, "details": [], "error": "killed after 120 s"}])
    assert cache.rule_tests(folder) is None
