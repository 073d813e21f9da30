"""`genesis review A B`: the command (heavy imports stay inside it, so `genesis --help` stays fast)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape

console = Console(stderr=True, highlight=False, soft_wrap=True)   # see genesis/cli_output.py
EXIT_BAD_INPUT, EXIT_INFRA = 2, 3


def _fail(message: object, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    from engine.errors import clean_text

    console.print(f"[bold red]error:[/] {escape(clean_text(message, 2000))}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def refresh_experiment_page(experiment_dir: Path | None) -> Path | None:
    """Re-render experiment.html so its Human Preference section shows the latest results."""
    if experiment_dir is None or not (experiment_dir / "experiment.json").is_file():
        return None
    from genesis.experiment.report import write_outputs

    try:
        record = json.loads((experiment_dir / "experiment.json").read_text(encoding="utf-8"))
        return write_outputs(record, experiment_dir)[1]
    except (OSError, ValueError, KeyError, TypeError) as exc:   # a damaged record: the review itself is saved
        console.print(f"[yellow]experiment.html not refreshed:[/] {escape(str(exc)[:300])}")
        return None


def review(
    a: Path = typer.Argument(..., metavar="A", help="scenario folder, or experiment configuration folder (e.g. <experiment>/agent_se)"),
    b: Path = typer.Argument(..., metavar="B", help="the folder to compare it with, of the same kind"),
    out: Optional[Path] = typer.Option(None, "--out", help="the review page (default <parent of A>/reviews/<A>-vs-<B>/"
                                                           "review.html); results go to the same name with .json"),
    open_: bool = typer.Option(False, "--open", help="serve the page on 127.0.0.1, open it, save choices as they are made"),
    judge_model: Optional[str] = typer.Option(None, "--judge", help="litellm model that judges every pair too, recorded "
                                              "as a model judgement (genesis/offline: a labelled heuristic)"),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="base URL of an OpenAI-compatible server for --judge"),
    blind: bool = typer.Option(False, "--blind", help="do not show which folder or configuration is A and which is B"),
    port: int = typer.Option(0, "--port", min=0, max=65535, help="port for --open (default: any free one)"),
) -> None:
    """Write a pairwise Human Preference review page for A and B (per query: request, map, replay,
    requirements and evidence; A / B / tie with keys a / b / t)."""
    from genesis.review.page import default_out, write_review
    from genesis.review.pairs import ReviewInputError, collect
    from genesis.review.results import ResultsError

    try:
        rv = collect(a, b)
    except ReviewInputError as exc:
        raise _fail(exc)
    page = out if out is not None else default_out(rv)
    if page.suffix != ".html":
        raise _fail(f"--out {page}: name an .html file (the results go beside it as .json)")
    console.print(f"{len(rv.pairs)} pair(s) to review: A = {escape(rv.a.label)}, B = {escape(rv.b.label)}"
                  + (" (hidden on the page)" if blind else ""))
    try:
        page, results_file = write_review(rv, page, blind)
    except ResultsError as exc:
        raise _fail(exc)
    except OSError as exc:
        raise _fail(f"cannot write {page}: {exc.strerror or exc}")
    if judge_model:
        _judge(rv, results_file, judge_model, api_base)
    refreshed = refresh_experiment_page(rv.experiment_dir)
    typer.echo(page)
    console.print(f"results: {results_file}" + (f"; Human Preference in {refreshed}" if refreshed else ""))
    if open_:
        _serve(page, port, rv.experiment_dir)


def _judge(rv, results_file: Path, model: str, api_base: Optional[str]) -> None:
    from genesis.llm.config import OFFLINE_MODEL, ConfigError
    from genesis.review.judge import judge

    if model == OFFLINE_MODEL:   # no model call: litellm's import is not worth paying for
        unavailable: tuple[type[BaseException], ...] = ()
    else:
        from genesis.llm.client import ModelUnavailableError
        unavailable = (ModelUnavailableError,)

    try:
        results, failures = judge(rv, results_file, model, api_base,
                                  progress=lambda m: console.print(f"[cyan] judge[/] {escape(m)}"))
    except ConfigError as exc:
        raise _fail(exc)
    except unavailable as exc:
        raise _fail(f"{exc} (the judgements made so far are not saved; run --judge again)", EXIT_INFRA)
    mine = [j for j in results.judgements if j.reviewer == model and j.kind != "human"]
    console.print(f"{mine[0].kind if mine else 'model'} judgement by {escape(model)}: {len(mine)} of "
                  f"{len(rv.pairs)} pair(s) judged" + (f", {len(failures)} failed" if failures else ""))


def _serve(page: Path, port: int, experiment_dir: Path | None) -> None:
    import webbrowser

    from genesis.review.server import ReviewServer

    try:
        server = ReviewServer(page, port=port, on_saved=lambda _: refresh_experiment_page(experiment_dir))
    except OSError as exc:
        raise _fail(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}")
    console.print(f"serving {server.url} (choices are saved to {page.with_suffix('.json').name} as they are made); "
                  "Ctrl-C stops")
    if not webbrowser.open(server.url):
        console.print("no web browser found: open the address above by hand")
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        console.print("stopped")
    finally:
        server.httpd.server_close()
