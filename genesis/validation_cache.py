"""Memoised validation simulations: the engine is deterministic, so a run is a pure function of
what it simulates.

An entry is keyed by the level as the engine loads it (minus the generator stamp, which no system
reads), the hash of each rule script, the engine version (a digest of the engine's own code and
data and of genesis/simulate.py, so any change to them misses), the seed, the policy and the
recording settings (frames, determinism prefix). Entries are zip files written to a temp file and renamed into place, so
readers never see a torn entry; an entry that cannot be read is ignored and rewritten.
"""
from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.replay_media import FRAME_INDEX
from genesis.fileio import atomic_write_bytes
from genesis.simulate import (DEFAULT_TIMEOUT_S, SimJob, SimPool, SimRun, copy_followers, full_game_key, killed_run,
                              run_job, run_many, seed_copy, seed_leaders)

FORMAT = 2
ENGINE_ROOT = Path(__file__).resolve().parent.parent / "engine"
ENGINE_SUFFIXES = (".py", ".lua", ".yaml", ".yml", ".json")
SIMULATE_SOURCE = Path(__file__).resolve().parent / "simulate.py"


def cache_root(kb_root: Path | str | None) -> Path:
    """Where validation runs are memoised: beside the knowledge base the run uses (in a workspace,
    `<workspace>/.genesis/validation-cache`)."""
    from genesis.workspace import current

    kb = Path(kb_root).resolve() if kb_root else current().kb
    return kb.parent / ".genesis" / "validation-cache"


@lru_cache(maxsize=1)
def engine_version() -> str:
    """Digest of every source and data file of the engine package, and of the module that derives what a
    run records from the engine's result (mobility, team stats): a change to either misses."""
    h = hashlib.sha256()
    files = sorted(p for p in ENGINE_ROOT.rglob("*") if p.suffix in ENGINE_SUFFIXES and p.is_file())
    for path in files + [SIMULATE_SOURCE]:
        h.update(path.relative_to(ENGINE_ROOT.parent).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:32]


def level_fingerprint(level_path: str | Path) -> dict[str, Any]:
    """What a simulation of the level depends on besides the engine: the loaded config, map and
    rule scripts (each by hash). Raises EngineError for a level that does not load."""
    from engine import load_level

    level = load_level(level_path)
    config = level.config.model_dump(mode="json")
    (config.get("metadata") or {}).pop("generator", None)
    return {"config": config, "map": level.map.model_dump(mode="json"),
            "rules": {rid: hashlib.sha256(src.encode()).hexdigest() for rid, src in sorted(level.rule_sources.items())}}


def level_hash(level_path: str | Path) -> str:
    """sha256 of `level_fingerprint`: one id for the level as every game of it sees it."""
    return hashlib.sha256(json.dumps(level_fingerprint(level_path), sort_keys=True).encode()).hexdigest()


def job_key(fingerprint: dict[str, Any], job: SimJob) -> str:
    spec = {"format": FORMAT, "engine": engine_version(), "level": fingerprint, "seed": job.seed,
            "policy": job.policy, "frames": bool(job.frames_dir), "gif": bool(job.gif_path), "replay": bool(job.replay_path),
            "prefix_s": job.prefix_s, "prefix_only": job.prefix_only}
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    corrupt: int = 0


class ValidationCache:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.stats = CacheStats()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.zip"

    def _gif_path(self, replay: bytes) -> Path:
        key = hashlib.sha256(engine_version().encode() + b"\0" + replay).hexdigest()
        return self.root / "gifs" / f"{key}.gif"

    def gif(self, replay: bytes) -> bytes | None:
        """The GIF drawn from a replay document with these bytes by this engine, if one was kept."""
        try:
            return self._gif_path(replay).read_bytes()
        except OSError:
            return None

    def put_gif(self, replay: bytes, gif: bytes) -> None:
        atomic_write_bytes(self._gif_path(replay), gif)

    def _rule_tests_path(self, rule_dir: str | Path) -> Path:
        h = hashlib.sha256(engine_version().encode())
        for path in sorted(p for p in Path(rule_dir).iterdir() if p.is_file()):
            h.update(b"\0" + path.name.encode() + b"\0" + path.read_bytes())
        return self.root / "rule-tests" / f"{h.hexdigest()}.json"

    def rule_tests(self, rule_dir: str | Path) -> list[dict] | None:
        """The results of a rule folder's tests (script, meta and tests byte for byte) under this engine."""
        try:
            results = json.loads(self._rule_tests_path(rule_dir).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return results if isinstance(results, list) else None

    def put_rule_tests(self, rule_dir: str | Path, results: list[dict]) -> None:
        """Keep results that came from running the tests: not a killed or crashed harness (the machine's doing)."""
        if any(r.get("name") == "(all)" for r in results):
            return
        atomic_write_bytes(self._rule_tests_path(rule_dir), json.dumps(results).encode("utf-8"))

    def get(self, key: str, job: SimJob) -> SimRun | None:
        """The stored run for `key` with its frames and GIF restored where `job` wants them, or None."""
        path = self._path(key)
        if not path.exists():
            self.stats.misses += 1
            return None
        try:
            with zipfile.ZipFile(path) as zf:
                data = json.loads(zf.read("run.json"))
                if data.get("format") != FORMAT or data.get("key") != key:
                    raise ValueError("entry does not match its key")
                run = SimRun.from_json(data["run"])
                files = {name: zf.read(name) for name in zf.namelist() if name != "run.json"}
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, zipfile.LargeZipFile):
            self.stats.corrupt += 1
            self.stats.misses += 1
            return None
        frames = []
        for name, blob in sorted(files.items()):
            if name.startswith("frames/") and job.frames_dir:
                target = Path(job.frames_dir) / Path(name).name
                atomic_write_bytes(target, blob)
                if target.suffix == ".png":       # the frame index is restored, not listed
                    frames.append(str(target))
            elif name == "replay.gif" and job.gif_path:
                atomic_write_bytes(job.gif_path, blob)
            elif name == "replay.json" and job.replay_path:
                atomic_write_bytes(job.replay_path, blob)
        run.frames, run.cached = frames, True
        self.stats.hits += 1
        return run

    def put(self, key: str, run: SimRun, job: SimJob) -> None:
        """Store a finished run (never a failed or killed one: those may depend on the machine)."""
        if not run.ok or run.cached:
            return
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
            zf.writestr("run.json", json.dumps({"format": FORMAT, "key": key, "run": run.to_json()}))
            for frame in run.frames:
                zf.write(frame, f"frames/{Path(frame).name}")
            index = Path(job.frames_dir or "") / FRAME_INDEX
            if job.frames_dir and index.exists():
                zf.write(index, f"frames/{FRAME_INDEX}")
            for path, name in ((job.gif_path, "replay.gif"), (job.replay_path, "replay.json")):
                if path and Path(path).exists():
                    zf.write(path, name)
        atomic_write_bytes(self._path(key), buf.getvalue())


class CachedBatch:
    """Validation jobs answered from `cache` where it holds them; the others submitted to `pool` at
    once, so the caller may queue more work behind them before it waits for the results. A job of
    `leaders` (job index -> leader index, see `genesis.simulate.seed_leaders`) waits for its leader
    and copies its game when that drew nothing from its seed, else it is simulated then."""

    def __init__(self, jobs: list[SimJob], cache: ValidationCache, pool: SimPool, leaders: dict[int, int] | None = None):
        from engine.errors import EngineError

        prints: dict[str, dict | None] = {}
        self.keys: list[str | None] = []
        for job in jobs:
            if job.level_path not in prints:
                try:
                    prints[job.level_path] = level_fingerprint(job.level_path)
                except EngineError:           # the run reports why the level does not load
                    prints[job.level_path] = None
            fp = prints[job.level_path]
            self.keys.append(job_key(fp, job) if fp is not None else None)
        self.jobs, self.cache, self.pool, self.leaders = jobs, cache, pool, dict(leaders or {})
        self.runs: list[SimRun | None] = [cache.get(k, j) if k else None for k, j in zip(self.keys, jobs)]
        self.todo = [i for i, r in enumerate(self.runs) if r is None and i not in self.leaders]
        self.pending = [pool.submit(run_job, jobs[i]) for i in self.todo]

    def _simulate(self, todo: list[int], pending: list, timeout_s: float) -> None:
        fresh = self.pool.gather([self.jobs[i] for i in todo], pending, timeout_s=timeout_s,
                                 on_timeout=lambda job: killed_run(job, timeout_s))
        for i, run in zip(todo, fresh):
            self.runs[i] = run
            if self.keys[i]:
                self.cache.put(self.keys[i], run, self.jobs[i])

    def results(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> list[SimRun]:
        self._simulate(self.todo, self.pending, timeout_s)
        later = copy_followers(self.runs, self.leaders, lambda run, i: seed_copy(run, self.jobs[i].seed))
        self._simulate(later, [self.pool.submit(run_job, self.jobs[i]) for i in later], timeout_s)
        return list(self.runs)


def run_cached(jobs: list[SimJob], cache: ValidationCache | None, *, workers: int,
               timeout_s: float = DEFAULT_TIMEOUT_S) -> list[SimRun]:
    """`run_many`, answering from `cache` what it already holds and storing what it simulates; a later
    seed of a policy copies the first seed's game when that drew nothing from its seed."""
    if cache is None:
        return run_many(jobs, workers=workers, timeout_s=timeout_s)
    with SimPool(min(workers, max(1, len(jobs)))) as pool:
        return CachedBatch(jobs, cache, pool, seed_leaders(jobs, full_game_key)).results(timeout_s)
