"""The `genesis` command line."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from genesis.kb.cli import app as kb_app
from genesis.rubric_cli import app as rubrics_app

app = typer.Typer(help="Generate validated RTS mini-games from free-form requests.", no_args_is_help=True,
                  pretty_exceptions_enable=False)
app.add_typer(kb_app, name="kb")
app.add_typer(rubrics_app, name="rubrics")
console = Console(stderr=True)

EXIT_NOT_PLAYABLE, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 1, 2, 130


def _progress(stage: str, message: str) -> None:
    console.print(f"[bold cyan]{stage:>6}[/] {message}")


def _report(outcome) -> int:
    v = outcome.validation
    if outcome.status == "playable":
        console.print(f"[bold green]PLAYABLE[/] {outcome.out_dir}/  (backend: {v['backend']['designer']}, "
                      f"{v['generation_time_s']} s{', fast-tracked' if v.get('fast_tracked') else ''})")
        for e in v.get("requirements", []):
            mark = {True: "[green]✓[/]", False: "[red]✗[/]", None: "·"}[e.get("passed")]
            console.print(f"   {mark} {e['text']}: {e['detail']}")
        for u in v.get("unsupported", []):
            console.print(f"   [yellow]not honoured:[/] {u}")
        console.print(f"   report: {outcome.out_dir / 'report.html'}")
        return 0
    label = "REFUSED" if outcome.status == "refused" else "NOT PLAYABLE"
    console.print(f"[bold red]{label}[/] {v.get('reason', '')}")
    console.print(f"   artifacts kept in {outcome.out_dir}/ (validation.json, report.html)")
    return EXIT_NOT_PLAYABLE


def _interactive_loop(outcome, progress):
    from genesis.pipeline.runner import resume

    while outcome.status == "waiting":
        answers = [typer.prompt(q, default="") for q in outcome.questions or []]
        outcome = resume(outcome.run_id, answers=answers, progress=progress)
    return outcome


def _model_flags(model: Optional[str], vlm_model: Optional[str], api_base: Optional[str]) -> dict:
    return {k: v for k, v in {"model": model, "vlm_model": vlm_model, "api_base": api_base}.items() if v}


@app.command()
def new(
    query: str = typer.Argument(..., help="what the scenario should test, in plain English"),
    out: Optional[Path] = typer.Option(None, "--out", help="scenario folder (default generated/<slug>/)"),
    model: Optional[str] = typer.Option(None, "--model", help="litellm model for every agent, e.g. ollama/llama3"),
    vlm_model: Optional[str] = typer.Option(None, "--vlm-model", help="litellm vision model for the visual review"),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="base URL of an OpenAI-compatible server"),
    interactive: bool = typer.Option(False, "--interactive", help="answer clarifying questions in Stage 1"),
    seed: int = typer.Option(0, "--seed"),
    replay: Optional[Path] = typer.Option(None, "--replay", help="re-run from a recorded transcript.jsonl, no model"),
) -> None:
    """Generate a scenario from QUERY and validate it. Exit 0 iff it is playable."""
    from genesis.pipeline.runner import start

    _run_to_exit(lambda: start(query, out=out, model_cli=_model_flags(model, vlm_model, api_base), seed=seed,
                               interactive=interactive, progress=_progress, replay=replay))


@app.command()
def resume(run_id: str = typer.Argument(..., help="run id (from run.json) or the scenario folder")) -> None:
    """Continue a run that was interrupted or killed, from its last checkpoint."""
    from genesis.pipeline.runner import resume as resume_run

    _run_to_exit(lambda: resume_run(run_id, progress=_progress))


def _run_to_exit(run) -> None:
    """Runs a generation (new or resumed) and turns every outcome into a message and an exit code."""
    from genesis.llm.config import ConfigError
    from genesis.pipeline.runner import PipelineError, QueryError

    try:
        outcome = _interactive_loop(run(), _progress)
    except (QueryError, ConfigError, FileNotFoundError) as exc:
        console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(EXIT_BAD_INPUT)
    except PipelineError as exc:
        console.print(f"[bold red]NOT PLAYABLE[/] the pipeline failed: {exc}")
        raise typer.Exit(EXIT_NOT_PLAYABLE)
    except KeyboardInterrupt:
        console.print("\n[yellow]interrupted.[/] Nothing was committed to the knowledge base. Continue with "
                      "[bold]genesis resume RUN_ID[/] (the id is in the scenario folder's run.json).")
        raise typer.Exit(EXIT_INTERRUPTED)
    raise typer.Exit(_report(outcome))


@app.command()
def bench(as_json: bool = typer.Option(False, "--json", help="print only the JSON figures")) -> None:
    """Benchmark generation with the offline backend: cold KB, then a fast-tracked query."""
    from genesis.bench import run_bench

    figures = run_bench(progress=None if as_json else _progress)
    print(json.dumps(figures, indent=None if as_json else 2))


@app.command()
def version() -> None:
    """Print the version."""
    from genesis import __version__

    typer.echo(__version__)


def main() -> None:  # pragma: no cover - console entry point
    sys.exit(app())
