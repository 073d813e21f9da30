"""Turns the per-query results into the experiment record: metrics per batch x configuration.

Generation Time follows DESIGN §1 (Stage 1 start -> Stage 4 success) and is averaged over the
queries a configuration completed successfully (`mean_generation_time_s`); `mean_elapsed_s`
averages over every query, counting a failure's time up to the moment it gave up.
"""
from __future__ import annotations

import time
from statistics import mean
from typing import Any

from genesis.experiment.configs import CONFIGS, INFRA_ERROR
from genesis.experiment.queries import Batch
from genesis.experiment.validator import CRITERIA, IDLE_SEEDS, REFERENCE_SEEDS


def _mean(values: list[float]) -> float | None:
    return round(mean(values), 2) if values else None


def metrics(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-configuration figures over the queries with a verdict: a query stopped by an unavailable
    model endpoint says nothing about the configuration and is only counted as an infra error."""
    infra_errors = sum(r.get("status") == INFRA_ERROR for r in rows)
    rows = [r for r in rows if r.get("status") != INFRA_ERROR]
    n = len(rows)
    if not n:
        return {"n": 0, "infra_errors": infra_errors}
    return {
        "n": n,
        "infra_errors": infra_errors,
        "playable": sum(r["playable"] for r in rows),
        "playability": round(sum(r["playable"] for r in rows) / n, 3),
        "claimed_playable_rate": round(sum(r["claimed_playable"] for r in rows) / n, 3),
        "certified": sum(bool(r.get("certified")) for r in rows),
        "certified_rate": round(sum(bool(r.get("certified")) for r in rows) / n, 3),
        "agreement_with_validator": round(sum(r["claimed_playable"] == r["playable"] for r in rows) / n, 3),
        "mean_generation_time_s": _mean([r["generation_time_s"] for r in rows if r["generation_time_s"] is not None]),
        "mean_elapsed_s": _mean([r["elapsed_s"] for r in rows]),
        "calls": sum(r["calls"] for r in rows),
        "calls_per_query": round(sum(r["calls"] for r in rows) / n, 2),
        "tokens": sum(r["prompt_tokens"] + r["completion_tokens"] for r in rows),
        "fast_track_rate": round(sum(r["fast_tracked"] for r in rows) / n, 3),
        "mean_iterations": round(sum(r["iterations"] for r in rows) / n, 2),
        "failed_gdd": sum((r.get("failed_verdicts") or {}).get("gdd", 0) for r in rows),
        "failed_level": sum((r.get("failed_verdicts") or {}).get("level", 0) for r in rows),
        "level_validations": sum(r.get("level_validations", 0) for r in rows),
        "certificate_failures": sum(r.get("certificate_failures", 0) for r in rows),
        "generation_cpu_s": round(sum(r["generation_cpu_s"] for r in rows), 1),
        "validation_cpu_s": round(sum(r["validation_cpu_s"] for r in rows), 1),
    }


def summarise(batches: list[Batch], configs: list[str], results: dict[tuple[str, int, int], dict],
              snapshots: dict[tuple[str, int], dict], *, wall_s: float, workers: int,
              model_cli: dict[str, Any], learned: dict[str, list[dict]] | None = None) -> dict[str, Any]:
    per_config = {}
    for c in configs:
        rows_by_batch = [[results[(c, b, i)] for i in range(len(batch.queries)) if (c, b, i) in results]
                         for b, batch in enumerate(batches)]
        per_config[c] = {
            "label": CONFIGS[c].label,
            "description": CONFIGS[c].description,
            "batches": [{"batch": b + 1, "theme": batches[b].theme, **metrics(rows),
                         **snapshots.get((c, b), {})} for b, rows in enumerate(rows_by_batch)],
            "overall": metrics([r for rows in rows_by_batch for r in rows]),
            "rubric_changes": (learned or {}).get(c, []),
        }
    return {
        "experiment": "self-evolution",
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "model": model_cli.get("model") or "genesis/offline",
        "workers": workers,
        "wall_s": round(wall_s, 1),
        "cpu_s": round(sum(r["generation_cpu_s"] + r["validation_cpu_s"] for r in results.values()), 1),
        "stream": [{"theme": b.theme, "queries": b.queries} for b in batches],
        "validator": {"criteria": CRITERIA, "reference_seeds": list(REFERENCE_SEEDS),
                      "idle_seeds": list(IDLE_SEEDS)},
        "configs": per_config,
        "results": [results[k] for k in sorted(results, key=lambda k: (configs.index(k[0]), k[1], k[2]))],
    }
