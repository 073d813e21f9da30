"""batch.json, batch.html and the history of completed batch runs (for charts across batches)."""
from __future__ import annotations

import json
from pathlib import Path
from statistics import mean
from typing import Any

import jinja2
from markupsafe import Markup
from pydantic import BaseModel, Field

from genesis.batch.records import QueryRecord
from genesis.batch.suite_manifest import write_manifest
from genesis.charts import bar_chart, line_chart
from genesis.fileio import FileLock, atomic_write_json, atomic_write_text

TEMPLATE = Path(__file__).with_name("batch.html.j2")
HISTORY_FILE = "history.jsonl"
HISTORY_CHART_RUNS = 30  # the charts show the most recent runs only, so labels stay readable


class BatchSummary(BaseModel):
    name: str
    file: str
    status: str = Field(description="running, interrupted or complete")
    started: str
    finished: str | None = None
    workers: int
    model: str
    wall_s: float | None = None
    total_queries: int
    queries: list[QueryRecord] = Field(description="finished queries, in file order")
    pending: list[str] = Field(default_factory=list, description="queries not finished yet")
    shard: str | None = Field(None, description="i/n when this folder ran one shard of the file (--shard)")
    queries_digest: str | None = Field(None, description="hash of the file's queries: shards of one file share it")
    backend: str = Field("local", description="local worker processes, or ray (with the cluster address)")
    kb: str | None = Field(None, description="the knowledge base the batch read and committed to (resolved path)")
    merged_from: list[str] = Field(default_factory=list, description="the batch folders `genesis batch merge` gathered")

    def aggregates(self) -> dict[str, Any]:
        """Playability = fraction of queries that gave a playable game, over queries with a verdict (an
        unavailable model endpoint is no verdict: those count apart, as infra_errors); Generation Time
        as in the method (Stage 1 start to Stage 4 success), so it is averaged over playable queries only."""
        done = self.queries
        judged = [q for q in done if not q.infra_error]
        playable = [q for q in judged if q.playable]
        certified = [q for q in judged if q.certified]
        times = [q.generation_time_s for q in playable if q.generation_time_s is not None]
        return {
            "finished": len(judged), "playable": len(playable), "infra_errors": len(done) - len(judged),
            "playability": round(len(playable) / len(judged), 4) if judged else None,
            "certified": len(certified),
            "certified_rate": round(len(certified) / len(judged), 4) if judged else None,
            "by_competency": _by_competency(judged),
            "mean_generation_time_s": round(mean(times), 2) if times else None,
            "generated_now": sum(1 for q in done if q.wall_s is not None),
            "resumed": sum(1 for q in done if q.resumed),
            "fast_tracked": sum(1 for q in done if q.fast_tracked),
            "model_calls": sum(q.model_calls for q in done),
            "tokens": sum(q.tokens for q in done),
            "cost_usd": round(sum(q.cost_usd for q in done if q.cost_usd is not None), 6),
            "cost_unknown": sum(1 for q in done if q.cost_usd is None),   # queries whose model has no price
        }

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump(mode="json")
        for record, q in zip(data["queries"], self.queries):
            record["tokens"] = q.tokens
        return {**data, "aggregate": self.aggregates()}


def _by_competency(judged: list[QueryRecord]) -> dict[str, dict[str, int]]:
    """Per competency: queries, playable and certified (the suite's coverage)."""
    out: dict[str, dict[str, int]] = {}
    for q in judged:
        row = out.setdefault(q.competency or "unknown", {"queries": 0, "playable": 0, "certified": 0})
        row["queries"] += 1
        row["playable"] += q.playable
        row["certified"] += q.certified
    return dict(sorted(out.items()))


def history_path(batch_dir: Path) -> Path:
    return batch_dir.parent / HISTORY_FILE


def read_history(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            continue  # a hand-edited or foreign line must not hide the others
    return records


def append_history(path: Path, record: dict[str, Any]) -> None:
    """Appends one line; readers see the old or the new file, never a torn line (lock + atomic replace)."""
    with FileLock(path.with_name(f".{path.name}.lock")):
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if old and not old.endswith("\n"):
            old += "\n"
        atomic_write_text(path, old + json.dumps(record, sort_keys=True) + "\n")


def history_record(summary: BatchSummary) -> dict[str, Any]:
    agg = summary.aggregates()
    return {"batch": summary.name, "file": summary.file, "finished": summary.finished,
            "queries": summary.total_queries, "playable": agg["playable"], "playability": agg["playability"],
            "certified": agg["certified"], "certified_rate": agg["certified_rate"],
            "mean_generation_time_s": agg["mean_generation_time_s"], "generated_now": agg["generated_now"],
            "wall_s": summary.wall_s, "workers": summary.workers, "model": summary.model}


def _charts(summary: BatchSummary, history: list[dict[str, Any]]) -> dict[str, Markup]:
    runs = history[-HISTORY_CHART_RUNS:]
    first = len(history) - len(runs) + 1
    labels = [f"{first + i}. {r.get('batch', '?')}"[:18] for i, r in enumerate(runs)]
    playability = [None if r.get("playability") is None else round(100 * r["playability"], 1) for r in runs]
    gen_time = [r.get("mean_generation_time_s") for r in runs]
    per_query = {f"{q.index + 1}. {q.slug}"[:14]: q.generation_time_s for q in summary.queries
                 if q.generation_time_s is not None}
    return {
        "playability": Markup(line_chart({"Playability (%)": playability}, labels, "Playability per batch run", "% playable")),
        "generation_time": Markup(line_chart({"Mean generation time (s)": gen_time}, labels,
                                             "Mean generation time per batch run", "seconds")),
        "per_query": Markup(bar_chart(per_query, "Generation time per query (this batch)", "seconds")),
    }


def write_summary(summary: BatchSummary, batch_dir: Path) -> None:
    """batch.json, suite.json (the certified tasks as a benchmark suite) and batch.html."""
    atomic_write_json(batch_dir / "batch.json", summary.to_json())
    write_manifest(summary, batch_dir)
    history = read_history(history_path(batch_dir))
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    html = env.from_string(TEMPLATE.read_text(encoding="utf-8")).render(
        s=summary, agg=summary.aggregates(), charts=_charts(summary, history), history_runs=len(history),
        history_file=f"../{HISTORY_FILE}")
    atomic_write_text(batch_dir / "batch.html", html)
