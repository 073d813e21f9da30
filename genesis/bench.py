"""`genesis bench`: generation time with the offline backend, cold KB and fast-tracked.

Runs against a throwaway copy of the seed KB and rubrics so the real ones are never touched (the
validation cache beside that copy starts empty, so the cold run simulates everything). Reports wall
and CPU time (this process plus its simulation workers), time per stage, the share spent in
validation simulations, validation cache hits and the fast-tracked / cold ratio.
"""
from __future__ import annotations

import resource
import tempfile
import time
from pathlib import Path
from typing import Callable

from genesis.experiment.seed import pristine_seed

COLD_QUERY = "defend two fronts with staggered waves"
SIMILAR_QUERY = "hold two fronts against staggered waves"


def _cpu_s() -> float:
    """CPU seconds of this process and of its finished children (the simulation workers)."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def _figures(query: str, validation: dict, wall: float, cpu: float) -> dict:
    sims = validation.get("validation_simulations") or []
    sim_s = sum(s.get("wall_s", 0.0) for s in sims)
    return {"query": query, "playable": validation.get("playable"), "fast_tracked": validation.get("fast_tracked"),
            "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "generation_time_s": validation.get("generation_time_s"),
            "stage_times_s": validation.get("stage_times_s", {}),
            "simulation_runs": len(validation.get("simulation_runs", [])),
            "simulation_s": round(sim_s, 2), "simulation_share": round(sim_s / wall, 3) if wall else None,
            "validation_cache_hits": sum(s.get("cache_hits", 0) for s in sims),
            "validation_runs": sum(s.get("runs", 0) for s in sims)}


def run_bench(progress: Callable | None = None) -> dict:
    from genesis.pipeline.runner import start

    with tempfile.TemporaryDirectory(prefix="genesis-bench-") as tmp:
        kb, rubrics = pristine_seed(Path(tmp))
        t0 = time.perf_counter()
        from genesis.kb.store import KnowledgeBase

        KnowledgeBase(kb).rebuild()
        index_s = time.perf_counter() - t0
        figures: dict = {"kb_index_build_s": round(index_s, 2)}
        for label, query in (("cold", COLD_QUERY), ("fast_track", SIMILAR_QUERY)):
            t, cpu = time.perf_counter(), _cpu_s()
            outcome = start(query, out=Path(tmp) / label, kb_root=kb, rubrics_root=rubrics, progress=progress,
                            register=False)
            figures[label] = _figures(query, outcome.validation, time.perf_counter() - t, _cpu_s() - cpu)
        cold, fast = figures["cold"], figures["fast_track"]
        figures["fast_to_cold_wall"] = round(fast["wall_s"] / cold["wall_s"], 3)
        figures["fast_to_cold_cpu"] = round(fast["cpu_s"] / cold["cpu_s"], 3)
        figures["targets"] = {"cold_max_s": 60, "fast_track_max_s": 10, "fast_to_cold_max": 0.2}
        return figures
