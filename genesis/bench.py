"""`genesis bench`: generation time with the offline backend, cold KB and fast-tracked.

Runs against a throwaway copy of the seed KB and rubrics so the real ones are never touched.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Callable

from genesis.workspace import copy_seed

COLD_QUERY = "defend two fronts with staggered waves"
SIMILAR_QUERY = "hold two fronts against staggered waves"


def run_bench(progress: Callable | None = None) -> dict:
    from genesis.pipeline.runner import start

    with tempfile.TemporaryDirectory(prefix="genesis-bench-") as tmp:
        kb, rubrics = copy_seed(Path(tmp))
        t0 = time.perf_counter()
        from genesis.kb.store import KnowledgeBase

        KnowledgeBase(kb).rebuild()
        index_s = time.perf_counter() - t0
        figures: dict = {"kb_index_build_s": round(index_s, 2)}
        for label, query in (("cold", COLD_QUERY), ("fast_track", SIMILAR_QUERY)):
            t = time.perf_counter()
            outcome = start(query, out=Path(tmp) / label, kb_root=kb, rubrics_root=rubrics, progress=progress,
                            register=False)
            wall = time.perf_counter() - t
            v = outcome.validation
            figures[label] = {"query": query, "playable": v.get("playable"), "fast_tracked": v.get("fast_tracked"),
                              "wall_s": round(wall, 2), "generation_time_s": v.get("generation_time_s"),
                              "simulation_runs": len(v.get("simulation_runs", []))}
        figures["targets"] = {"cold_max_s": 60, "fast_track_max_s": 10}
        return figures
