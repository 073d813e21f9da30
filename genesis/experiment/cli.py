"""`genesis experiment ...`: typer sub-app (heavy imports stay inside the command)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

app = typer.Typer(help="Experiments from the RTSGameBench paper.", no_args_is_help=True, rich_markup_mode=None)
console = Console(stderr=True, highlight=False, soft_wrap=True)   # see genesis/cli_output.py


@app.command("self-evolution")
def self_evolution(
    batches: int = typer.Option(5, "--batches", help="how many batches of the query stream to run"),
    per_batch: int = typer.Option(5, "--per-batch", help="queries per batch"),
    queries: Optional[Path] = typer.Option(None, "--queries", help="query file with '## batch: <theme>' headers "
                                           "(default: genesis/experiment/default_queries.txt)"),
    model: Optional[str] = typer.Option(None, "--model", help="litellm model for every agent (default: offline)"),
    workers: int = typer.Option(2, "--workers", help="worker processes (0 = run in this process)"),
    out: Optional[Path] = typer.Option(None, "--out", help="output folder (default <workspace>/generated/experiment/)"),
) -> None:
    """Agent w/ SE, Agent w/o SE, E2E and E2E w/ verify on the same batches; Playability judged by one
    independent validator. Writes OUT/experiment.json and OUT/experiment.html."""
    from genesis.experiment.queries import QueryFileError, load_stream, take
    from genesis.experiment.report import write_outputs
    from genesis.experiment.runner import run_experiment
    from genesis.workspace import WorkspaceError, ensure

    if out is None:
        try:
            out = ensure().generated / "experiment"
        except WorkspaceError as exc:
            console.print(f"[red]error:[/] {exc}")
            raise typer.Exit(2) from None
    try:
        stream = take(load_stream(queries), batches, per_batch)
    except (QueryFileError, OSError) as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    record = run_experiment(out, stream, model_cli={"model": model} if model else None, workers=workers,
                            progress=lambda msg: console.print(msg))
    json_path, html_path = write_outputs(record, out)
    for c in record["configs"].values():
        o = c["overall"]
        gen = o["mean_generation_time_s"]
        console.print(f"{c['label']:<14} playability {o['playable']}/{o['n']}  mean gen. time "
                      f"{'—' if gen is None else f'{gen:.1f} s'}  calls {o['calls']}  fast-track {o['fast_track_rate']:.0%}")
    console.print(f"wall time {record['wall_s']:.0f} s (task CPU time {record['cpu_s']:.0f} s) -> {json_path}, {html_path}")
