"""Runs the self-evolution experiment: four configurations over the same batches of queries.

Each configuration starts from its own fresh copy of the pristine seed KB and rubrics shipped in the
package (genesis.experiment.seed), never from the workspace's. Tasks (one query
under one configuration) run in worker processes. Only Agent w/ SE carries state from one batch
to the next (KB commits, rubric updates), so its batch b+1 starts when its batch b is finished;
every other task is independent and fills the workers meanwhile (Agent w/ SE goes first: it is
the critical path). Inside a batch Agent w/ SE queries run side by side, as in the paper's
batches; KB commits are locked, so they are safe across processes.
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import shutil
import time
from pathlib import Path
from typing import Any, Callable

from genesis.experiment.configs import CONFIGS, Task, run_task
from genesis.experiment.queries import Batch
from genesis.experiment.summary import summarise

Key = tuple[str, int, int]   # (configuration, batch, query index)


class _Inline:
    """workers=0: run each task in this process when submitted (debugging, small tests)."""

    def submit(self, fn, arg) -> cf.Future:
        fut: cf.Future = cf.Future()
        try:
            fut.set_result(fn(arg))
        except Exception as exc:
            fut.set_exception(exc)
        return fut

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def fresh_copies(out: Path, configs: list[str]) -> dict[str, tuple[Path, Path]]:
    """One copy of the pristine seed KB + rubrics per configuration (never the workspace's). The
    index is built once and copied with the sources (it is keyed by a hash of root-relative source
    paths), not rebuilt four times."""
    from genesis.experiment.seed import pristine_seed
    from genesis.kb.store import KnowledgeBase

    template = out / "_seed"
    shutil.rmtree(template, ignore_errors=True)
    kb, rubrics = pristine_seed(template)
    KnowledgeBase(kb).rebuild()
    copies = {}
    for c in configs:
        dst = out / c
        shutil.rmtree(dst / "kb", ignore_errors=True)
        shutil.rmtree(dst / "rubrics", ignore_errors=True)
        shutil.copytree(kb, dst / "kb", ignore=shutil.ignore_patterns(".lock", "*.lock", ".txn"))
        shutil.copytree(rubrics, dst / "rubrics")
        copies[c] = (dst / "kb", dst / "rubrics")
    shutil.rmtree(template, ignore_errors=True)
    return copies


def crashed(task: Task, exc: Exception) -> dict[str, Any]:
    from dataclasses import asdict

    from genesis.experiment.configs import Generation

    gen = Generation(status="error", claimed_playable=False, generation_time_s=None, elapsed_s=0.0,
                     error=f"worker failed: {type(exc).__name__}: {exc}"[:600])
    return {"config": task.config, "batch": task.batch, "index": task.index, "query": task.query,
            "out_dir": task.out_dir, **asdict(gen), "playable": False, "validator": None, "task_wall_s": 0.0,
            "generation_cpu_s": 0.0, "validation_cpu_s": 0.0}


def _kb_designs(kb: Path) -> int:
    """Stored GDDs (one JSON file each under kb/gdds/): how much the KB has grown."""
    return len(list((kb / "gdds").glob("*.json"))) if (kb / "gdds").is_dir() else 0


def _snapshot(config: str, kb: Path, rubrics: Path) -> dict[str, Any]:
    from genesis.pipeline.evolution import rubric_versions

    uses = CONFIGS[config].uses_rubrics
    return {"rubric_versions": rubric_versions(rubrics) if uses else None,
            "kb_designs": _kb_designs(kb)}


def run_experiment(out: Path, batches: list[Batch], *, configs: list[str] | None = None,
                   model_cli: dict[str, Any] | None = None, workers: int = 2,
                   progress: Callable[[str], None] | None = None,
                   task_fn: Callable[[Task], dict] = run_task) -> dict[str, Any]:
    """Runs every configuration over `batches`; returns the experiment record (see summary.py)."""
    configs = list(configs or CONFIGS)
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        raise ValueError(f"unknown configuration(s) {unknown}; known: {', '.join(CONFIGS)}")
    say = progress or (lambda msg: None)
    t0 = time.perf_counter()
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    copies = fresh_copies(out, configs)
    say(f"fresh KB + rubrics copies for {len(configs)} configurations ({time.perf_counter() - t0:.1f} s)")
    tasks = {(c, b, i): Task(c, b, i, q, str(out / c / f"b{b + 1}-q{i + 1}"), str(copies[c][0]), str(copies[c][1]),
                             dict(model_cli or {}))
             for c in configs for b, batch in enumerate(batches) for i, q in enumerate(batch.queries)}
    order = {c: n for n, c in enumerate(configs)}
    pending = sorted(tasks, key=lambda k: (not CONFIGS[k[0]].evolves, k[1], order[k[0]], k[2]))
    finished: set[tuple[str, int]] = set()
    results: dict[Key, dict] = {}
    snapshots: dict[tuple[str, int], dict] = {}

    def ready(key: Key) -> bool:
        c, b, _ = key
        return not CONFIGS[c].evolves or b == 0 or (c, b - 1) in finished

    executor = _Inline() if workers <= 0 else cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn"))
    in_flight: dict[cf.Future, Key] = {}
    try:
        while pending or in_flight:
            while len(in_flight) < max(1, workers):
                nxt = next((k for k in pending if ready(k)), None)
                if nxt is None:
                    break
                pending.remove(nxt)
                in_flight[executor.submit(task_fn, tasks[nxt])] = nxt
            done, _ = cf.wait(in_flight, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                key = in_flight.pop(fut)
                try:
                    r = fut.result()
                except Exception as exc:  # a worker died: that query scores unplayable, the rest goes on
                    r = crashed(tasks[key], exc)
                results[key] = r
                say(f"{CONFIGS[key[0]].label:<14} batch {key[1] + 1} query {key[2] + 1}: "
                    f"{'PLAYABLE' if r['playable'] else 'not playable'} (own status {r['status']}, "
                    f"{r['elapsed_s']:.1f} s{', fast-tracked' if r['fast_tracked'] else ''})")
                c, b, _ = key
                if all((c, b, i) in results for i in range(len(batches[b].queries))):
                    finished.add((c, b))
                    snapshots[(c, b)] = _snapshot(c, *copies[c])
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
    wall = time.perf_counter() - t0
    learned = {c: rubric_changes(copies[c][1]) for c in configs if CONFIGS[c].uses_rubrics}
    return summarise(batches, configs, results, snapshots, wall_s=wall, workers=workers, model_cli=model_cli or {},
                     learned=learned)


def rubric_changes(rubrics: Path) -> list[dict[str, Any]]:
    """Every rubric version a configuration wrote after the seed's, with its rationale and evidence."""
    from genesis import rubric_store

    return [{"stage": stage, **info.model_dump()} for stage in rubric_store.STAGES
            for info in rubric_store.history(stage, root=rubrics) if info.author != "human"]
