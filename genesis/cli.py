"""The `genesis` command line."""
from __future__ import annotations

import json
import os
from enum import Enum
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape

from genesis.experiment.cli import app as experiment_app
from genesis.kb.cli import app as kb_app
from genesis.rubric_cli import app as rubrics_app
from genesis.review.cli import review as review_command

# Plain (click) help: typer's rich help formatting alone costs more start-up time than the whole CLI.
app = typer.Typer(help="Generate validated RTS mini-games from free-form requests.", no_args_is_help=True,
                  rich_markup_mode=None, context_settings={"help_option_names": ["-h", "--help"]},
                  pretty_exceptions_enable=False)
app.add_typer(kb_app, name="kb")
app.add_typer(rubrics_app, name="rubrics")
app.add_typer(experiment_app, name="experiment")
app.command("review")(review_command)
# Progress and verdicts go to stderr, results to stdout; no hard wrap (a path split over two lines of a log
# cannot be copied) and no colouring of numbers or paths rich would guess at.
console = Console(stderr=True, soft_wrap=True, highlight=False)

class Difficulty(str, Enum):
    easy = "easy"
    medium = "medium"
    hard = "hard"


EXIT_NOT_PLAYABLE, EXIT_BAD_INPUT, EXIT_INFRA, EXIT_NOT_CERTIFIED, EXIT_INTERRUPTED = 1, 2, 3, 4, 130


def _print_version(value: bool) -> None:
    if value:
        from genesis import __version__

        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def main_options(
    workspace: Optional[Path] = typer.Option(
        None, "--workspace", "-w", help="workspace folder (KB, rubrics, generated/, genesis.yaml); default: "
        "$GENESIS_WORKSPACE, else the nearest folder with a genesis.yaml, else the per-user data folder"),
    version_: bool = typer.Option(False, "--version", "-V", is_eager=True, callback=_print_version,
                                  help="print the version and exit"),
) -> None:
    """Generate validated RTS mini-games from free-form requests."""
    if workspace is not None:
        # Through the environment, so batch and experiment worker processes use the same workspace.
        os.environ["GENESIS_WORKSPACE"] = str(workspace.expanduser().resolve())


@app.command()
def init(folder: Path = typer.Argument(Path("."), help="the folder to make a workspace (created if missing)")) -> None:
    """Make FOLDER a workspace: a knowledge base and rubrics seeded from the shipped ones, generated/, genesis.yaml."""
    from genesis.workspace import WorkspaceError, init as init_workspace

    try:
        ws, new_one = init_workspace(folder)
    except WorkspaceError as exc:
        console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(EXIT_BAD_INPUT)
    console.print(f"{'created' if new_one else 'already a'} workspace {ws.root}: knowledge base {ws.kb}, "
                  f"rubrics {ws.rubrics}, scenarios go to {ws.generated}/", markup=False)
    here = Path.cwd().resolve()
    cd = "" if ws.root == here else f"cd {_shell_word(os.path.relpath(ws.root, here))} && "
    console.print(f"next: {cd}genesis new \"defend two fronts with staggered waves\"  (then genesis report "
                  "generated/defend-two-fronts-with-staggered-waves --open; see genesis --help)", markup=False)
    typer.echo(ws.root)


def _shell_word(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _bad_input(message: object) -> typer.Exit:
    """Print `error: message` (control characters escaped, capped, no markup) and give exit 2."""

    from engine.errors import clean_text

    console.print(f"[bold red]error:[/] {escape(clean_text(message, 2000))}", highlight=False)
    return typer.Exit(EXIT_BAD_INPUT)


def _progress(stage: str, message: str) -> None:
    console.print(f"[bold cyan]{stage:>6}[/] {escape(message)}")


def unbuilt_lines(validation: dict) -> list[tuple[str, str]]:
    """What of the request the level does not build, each under its clause's status ("partly honoured" or "not
    honoured"), then what the brief lists beyond its clauses."""
    out, said = [], set()
    for c in validation.get("clauses") or []:
        if c.get("status") in ("partial", "not_honoured"):
            why = c.get("why") or ""
            out.append(("partly honoured" if c["status"] == "partial" else "not honoured",
                        f"\"{c['text'].strip(' ,;:.!?')}\": {why}"))
            said.add(why)
    out += [("not honoured", u) for u in validation.get("unsupported", [])
            if u not in said and not any(u.endswith(f": {w}") for w in said if w)]
    return out


def _report(outcome) -> int:
    v = outcome.validation
    if outcome.status in ("playable", "not_certified"):
        verdict = v.get("verdict") or "PLAYABLE"
        colour = "green" if verdict == "CERTIFIED" else "yellow" if verdict.startswith("PLAYABLE") else "red"
        cert = v.get("certificate") or {}
        band = f", difficulty {cert['difficulty']}" if cert.get("valid") and cert.get("difficulty") else ""
        console.print(f"[bold {colour}]{escape(verdict)}[/] {outcome.out_dir}/  (backend: {v['backend']['designer']}, "
                      f"{v['generation_time_s']} s{', fast-tracked' if v.get('fast_tracked') else ''}{band})")
        from genesis.pipeline.finalize import clause_tally, clause_tally_text

        tally = clause_tally(v.get("clauses") or [])
        if tally:   # what of the request the level builds: a certified level may still build only part of it
            shade = "green" if set(tally) == {"honoured"} else "yellow"
            console.print(f"   [{shade}]request: {escape(clause_tally_text(tally))}[/]")
        for e in v.get("requirements", []):
            mark = {True: "[green]✓[/]", False: "[red]✗[/]", None: "·"}[e.get("passed")]
            # details quote lists such as ['sw', 'n'], which rich would read as markup and drop
            console.print(f"   {mark} {escape(e['text'])}: {escape(e['detail'])}")
        for label, line in unbuilt_lines(v):
            console.print(f"   [yellow]{label}:[/] {escape(line)}")
        _print_certificate(cert)
        from genesis.llm.cost import cost_text

        usage = v.get("usage") or {}
        total = usage.get("total") or {}
        console.print(f"   model usage: {total.get('calls', 0)} calls, {total.get('prompt_tokens', 0)} prompt + "
                      f"{total.get('completion_tokens', 0)} completion tokens, cost {escape(cost_text(usage.get('cost')))}")
        console.print(f"   report: {outcome.out_dir / 'report.html'}")
        if verdict == "NOT CERTIFIED":
            console.print("   the level plays but is not a valid benchmark task: it was not committed to the knowledge base")
            return EXIT_NOT_CERTIFIED
        return 0
    if outcome.status == "infra_error":
        console.print(f"[bold yellow]INFRA ERROR[/] {escape(v.get('reason', ''))}")
        return EXIT_INFRA
    label = "REFUSED" if outcome.status == "refused" else "NOT PLAYABLE"
    console.print(f"[bold red]{label}[/] {escape(v.get('reason', ''))}")
    if outcome.record is not None:
        console.print(f"   no scenario folder was kept; the refusal is recorded in {outcome.record}", markup=False)
    else:
        console.print(f"   artifacts kept in {outcome.out_dir}/ (validation.json, report.html)", markup=False)
    return EXIT_NOT_PLAYABLE


def _print_certificate(cert: dict | None) -> None:
    """The validity certificate's verdict: each failing check's detail, each flag, and the levers."""
    if not cert:
        return
    if cert.get("skipped"):
        console.print(f"   [yellow]·[/] validity certificate skipped ({escape(str(cert['skipped']))})")
        return
    if cert.get("valid"):
        band = f", difficulty {cert['difficulty']}" if cert.get("difficulty") else ""
        console.print(f"   [green]✓[/] validity certificate: valid{band} (" + escape("; ".join(
            f"{name}: {c.get('detail', '')}" for name, c in (cert.get("checks") or {}).items())) + ")")
        return
    from genesis.checks.certificate_checks import certificate_reason

    # a band rates a benchmark task: an uncertified level has none, only where its ladder stood
    ladder = f"; its ladder alone would read {cert['difficulty']}, not a difficulty" if cert.get("difficulty") else ""
    console.print(f"   [red]✗[/] validity certificate: not valid ({escape(certificate_reason(cert))}){ladder}")


def _interactive_loop(outcome, progress):
    from genesis.pipeline.runner import resume

    while outcome.status == "waiting":
        answers = [typer.prompt(q, default="", err=True) for q in outcome.questions or []]  # stdout is the result
        outcome = resume(outcome.run_id, answers=answers, progress=progress)
    return outcome


def _model_flags(model: Optional[str], vlm_model: Optional[str], api_base: Optional[str]) -> dict:
    return {k: v for k, v in {"model": model, "vlm_model": vlm_model, "api_base": api_base}.items() if v}


@app.command()
def new(
    query: str = typer.Argument(..., help="what the scenario should test, in plain English"),
    out: Optional[Path] = typer.Option(None, "--out", help="scenario folder (default <workspace>/generated/<slug>/); "
                                                           "refused when it holds other files, unless --force"),
    force: bool = typer.Option(False, "--force", help="write into an --out folder that holds other files"),
    model: Optional[str] = typer.Option(None, "--model", help="litellm model for every agent, e.g. ollama/llama3"),
    vlm_model: Optional[str] = typer.Option(None, "--vlm-model", help="litellm vision model for the visual review"),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="base URL of an OpenAI-compatible server"),
    interactive: bool = typer.Option(False, "--interactive", help="answer clarifying questions in Stage 1"),
    seed: int = typer.Option(0, "--seed", help="a label for the run, recorded in run.json (validation and the "
                                               "certificate play the level on seeds 0-4 whatever it is)"),
    replay: Optional[Path] = typer.Option(None, "--replay", help="re-run from a recorded transcript.jsonl, no model"),
    difficulty: Optional[Difficulty] = typer.Option(
        None, "--difficulty", case_sensitive=False,
        help="the certificate's difficulty band the level must reach (overrides the request's own words): easy "
             "(a cheap policy wins some seed), medium (none does; the blind replay wins some), hard (neither)"),
    min_recurrence: Optional[int] = typer.Option(None, "--min-recurrence", min=1,
                                                 help="runs that must fail the same way before the retrospective "
                                                      "proposes a rubric change (default: genesis.yaml's "
                                                      "min_recurrence, else 2)"),
    as_json: bool = typer.Option(False, "--json", help="print the result as one JSON object on stdout"),
) -> None:
    """Generate a scenario from QUERY, validate and certify it. Exit 0 iff it is certified (4: plays, not certified).

    Progress and the verdict go to stderr; stdout gets the scenario folder (or --json's object), so
    DIR=$(genesis new "...") works."""
    # Checked before the pipeline (and its libraries) is loaded: a bad request or setting is answered at once.
    from genesis.input_files import InputFileError, check_replay_file
    from genesis.llm.config import ConfigError
    from genesis.pipeline.query import QueryError, check_query
    from genesis.pipeline.run_checks import checked_config
    from genesis.pipeline.runs import OutFolderError, check_out_folder
    from genesis.rubric_store import RubricError
    from genesis.workspace import WorkspaceError, current, ensure

    model_cli = _model_flags(model, vlm_model, api_base)
    try:
        checked = check_query(query)
        ws = current()
        if out is not None and not force:
            check_out_folder(out, checked)
        if replay is not None:
            check_replay_file(replay)
        config = checked_config(model_cli, replay, ensure(ws).rubrics)
    except (QueryError, WorkspaceError, OutFolderError, InputFileError, RubricError, ConfigError) as exc:
        raise _bad_input(exc)

    options = {k: v for k, v in {"min_recurrence": min_recurrence,
                                  "difficulty": difficulty.value if difficulty else None}.items() if v}
    with _pipeline() as runner:
        _run_to_exit(lambda: runner.start(query, out=out, model_cli=model_cli, seed=seed, interactive=interactive,
                                          progress=_progress, replay=replay, options=options or None, config=config),
                     as_json)


def _pipeline():
    """The pipeline's runner module, loaded and kept out of the garbage collector's walks (see import_gc)."""
    import importlib

    from genesis.import_gc import long_lived

    return long_lived(lambda: importlib.import_module("genesis.pipeline.runner"))


@app.command()
def resume(run_id: str = typer.Argument(..., help="run id (from run.json) or the scenario folder"),
           as_json: bool = typer.Option(False, "--json", help="print the result as one JSON object on stdout")) -> None:
    """Continue a run that was interrupted or killed, from its last checkpoint."""
    from genesis.pipeline.runs import find_run
    from genesis.workspace import WorkspaceError

    try:
        find_run(run_id)   # before the pipeline is loaded: an unknown run is answered at once
    except (FileNotFoundError, WorkspaceError) as exc:
        raise _bad_input(exc)
    with _pipeline() as runner:
        _run_to_exit(lambda: runner.resume(run_id, progress=_progress), as_json)


def _run_to_exit(run, as_json: bool = False) -> None:
    """Runs a generation (new or resumed) and turns every outcome into a message, a result and an exit code."""
    from genesis.llm.config import ConfigError
    from genesis.pipeline.folder_lock import FolderBusy
    from genesis.pipeline.runner import PipelineError, QueryError, ReplayError
    from genesis.rubric_store import RubricError
    from genesis.workspace import WorkspaceError

    try:
        outcome = _interactive_loop(run(), _progress)
    except (QueryError, ConfigError, FileNotFoundError, RubricError, WorkspaceError, ReplayError,
            FolderBusy) as exc:
        raise _bad_input(exc)
    except PipelineError as exc:
        console.print(f"[bold red]NOT PLAYABLE[/] the pipeline failed: {escape(str(exc))}")
        raise typer.Exit(EXIT_NOT_PLAYABLE)
    except KeyboardInterrupt:
        console.print("\n[yellow]interrupted.[/] Nothing was committed to the knowledge base. Continue with "
                      "[bold]genesis resume RUN_ID[/] (the id is in the scenario folder's run.json).")
        raise typer.Exit(EXIT_INTERRUPTED)
    code = _report(outcome)
    from genesis.cli_result import result_of

    result = result_of(outcome, code)
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False))
    elif result["folder"]:
        typer.echo(result["folder"])
    raise typer.Exit(code)


@app.command()
def bench(as_json: bool = typer.Option(False, "--json", help="print only the JSON figures"),
          rounds: int = typer.Option(3, "--rounds", min=1, max=20,
                                     help="rounds, each in a fresh process; the median round is judged")) -> None:
    """Benchmark generation with the offline backend: cold KB, then a fast-tracked query."""
    from genesis.bench import BenchError, run_bench

    try:
        figures = run_bench(progress=None if as_json else _progress, rounds=rounds)
    except BenchError as exc:
        console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
        raise typer.Exit(EXIT_INFRA)
    print(json.dumps(figures, indent=None if as_json else 2))


@app.command()
def play(
    scenario: Path = typer.Argument(..., help="scenario folder, kb/levels/<ID> folder or level.json"),
    agent: str = typer.Option("reference", "--agent", help="idle | random | reference | llm"),
    seeds: int = typer.Option(1, "--seeds", help="play seeds 0..N-1"),
    team: Optional[int] = typer.Option(None, "--team", help="team to play (default: the level's agent team)"),
    model: Optional[str] = typer.Option(None, "--model", help="litellm model for --agent llm"),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="base URL of an OpenAI-compatible server"),
    vision: Optional[bool] = typer.Option(None, "--vision/--no-vision",
                                          help="send minimap + cameras (default: if the model takes images)"),
    no_fsm: bool = typer.Option(False, "--no-fsm", help="llm ablation: no squads / FSM, per-unit orders only"),
    no_memory: bool = typer.Option(False, "--no-memory", help="llm ablation: no memory phase"),
    decision_interval: Optional[float] = typer.Option(None, "--decision-interval",
                                                      help="game seconds between decisions (1; llm 15 combat / 60 planning)"),
    out: Optional[Path] = typer.Option(None, "--out",
                                       help="trajectories .jsonl file or output folder (default DIR/play/<agent>/)"),
    as_json: bool = typer.Option(False, "--json", help="print the metrics as JSON"),
) -> None:
    """Play a scenario with an agent over N seeds; print win rate, game times, damage efficiency, AT, rank score."""
    from engine.errors import EngineError
    from genesis.play import PlayError, play as play_scenario
    from genesis.play.table import print_outcome

    llm = None
    if agent == "llm" and model:
        from genesis.play.llm_agent import LLMSettings

        llm = LLMSettings(model=model, api_base=api_base, vision=vision, fsm=not no_fsm, memory=not no_memory)
    try:
        outcome = play_scenario(scenario, agent, seeds, team=team, decision_interval=decision_interval,
                                llm_settings=llm, out=out,
                                progress=None if as_json else lambda m: console.print(f"[bold cyan]  play[/] {m}"))
    except (PlayError, EngineError, OSError) as exc:
        raise _bad_input(exc)
    print_outcome(outcome, as_json)


@app.command("eval")
def eval_(
    suite: Path = typer.Argument(..., help="suite folder (scenario folders with level.json, e.g. a batch folder) "
                                           "or one scenario folder"),
    agents: list[str] = typer.Option(..., "--agent", help="idle | random | rush | turtle | reference | module:Class "
                                                          "(an engine.agent.Policy subclass); repeatable"),
    seeds: int = typer.Option(3, "--seeds", help="play seeds 0..N-1 of every task"),
    out: Optional[Path] = typer.Option(None, "--out", help="results folder (default SUITE/eval/); "
                                                           "a results.json there is resumed"),
    workers: Optional[int] = typer.Option(None, "--workers", min=1, help="game processes (default: the usable cores)"),
    as_json: bool = typer.Option(False, "--json", help="print the results file's summaries as JSON"),
) -> None:
    """Evaluate agents on a suite: win rate (Wilson 95 % CI), game times, DE, units lost per task, competency
    and overall; results.json, leaderboard.html and leaderboard.csv. Exit 1 if a game failed."""
    from genesis.eval import EvalError, evaluate
    from genesis.eval.table import print_eval

    try:
        outcome = evaluate(suite, agents, seeds, out=out, workers=workers,
                           progress=None if as_json else lambda m: console.print(f"[bold cyan]  eval[/] {escape(m)}"))
    except (EvalError, OSError) as exc:
        raise _bad_input(exc)
    except KeyboardInterrupt:
        console.print("\n[yellow]interrupted.[/] The finished games are in results.json; the same command resumes.")
        raise typer.Exit(EXIT_INTERRUPTED)
    print_eval(outcome, as_json)
    raise typer.Exit(1 if outcome.failures else 0)


@app.command()
def batch(
    file: Path = typer.Argument(..., help="text file with one query per line (# comments and blank lines ignored); "
                                          "or `merge` followed by batch folders"),
    folders: Optional[list[Path]] = typer.Argument(None, help="with `merge`: the shard folders to gather", show_default=False),
    workers: Optional[int] = typer.Option(None, "--workers", min=1,
                                          help="queries generated at once (default: one per 2 cores, as each runs its "
                                               "validation simulations in 2 processes; on Ray: cluster CPUs / 2)"),
    model: Optional[str] = typer.Option(None, "--model", help="litellm model for every agent, e.g. ollama/llama3"),
    out: Optional[Path] = typer.Option(None, "--out",
                                       help="batch folder (default <workspace>/generated/batches/<file name>/); "
                                            "with merge: where the merged report goes (default: the folders' parent)"),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="base URL of an OpenAI-compatible server"),
    ray: bool = typer.Option(False, "--ray", help="run each query as a task on a Ray cluster: --ray-address, else "
                                                  "$RAY_ADDRESS, else a local cluster started for the batch"),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", metavar="ADDRESS",
                                              help="the Ray cluster (e.g. ray://head:10001 or auto); implies --ray"),
    shard: Optional[str] = typer.Option(None, "--shard", metavar="i/n",
                                        help="run only queries i, i+n, i+2n, ... (0-based; for Slurm arrays) into "
                                             "<batch folder>/shard-i-of-n/; gather with `genesis batch merge`"),
) -> None:
    """Generate a scenario for every query in FILE; re-running skips finished ones. Exit 0 iff all certified.

    `genesis batch merge DIR...` gathers the shard folders of one batch into one report."""
    from genesis.batch.command import merge_command, run_command

    if str(file) == "merge" and folders:
        raise typer.Exit(merge_command(folders, out=out, console=console))
    if folders:
        raise _bad_input(f"unexpected arguments after {file}: {' '.join(map(str, folders))} "
                         "(one batch file; `genesis batch merge DIR...` gathers batch folders)")
    raise typer.Exit(run_command(file, workers=workers, out=out, model_cli=_model_flags(model, None, api_base),
                                 console=console, ray_address=ray_address or ("local" if ray else None), shard=shard))


@app.command()
def report(
    folder: Path = typer.Argument(..., help="a scenario folder written by `genesis new`"),
    open_: bool = typer.Option(False, "--open", help="open the report in the web browser"),
) -> None:
    """Rebuild FOLDER/report.html (and map.png) from the folder's files alone."""
    from genesis.report import ScenarioFolderError, open_report, write_report

    try:
        path = write_report(folder)
    except (ScenarioFolderError, OSError) as exc:
        raise _bad_input(exc)
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        # the folder's files are hand-edited or damaged in a way the report cannot show
        raise _bad_input(f"{folder}: cannot build the report from its files ({type(exc).__name__}: {exc})")
    typer.echo(path)
    if open_ and not open_report(path):
        console.print("no web browser found: open the file above by hand")


@app.command()
def mcp(roots: Optional[list[Path]] = typer.Option(None, "--root", help="folder of scenario folders (repeatable; "
                                                   "default: the KB's levels and generated/)")) -> None:
    """Serve the scenarios to agents over MCP (stdio): list, reset, observe, act, step, metrics."""
    from genesis.mcp.server import default_roots, serve

    missing = [str(r) for r in roots or [] if not r.is_dir()]
    if missing:
        console.print(f"[bold red]error:[/] no such folder: {', '.join(missing)}")
        raise typer.Exit(EXIT_BAD_INPUT)
    serve(roots or default_roots())


@app.command()
def prompts(transcript: Path = typer.Argument(..., help="a transcript.jsonl (of a run or of its replay)")) -> None:
    """Characters of prompt per role, skill and stage in TRANSCRIPT; a replay's transcript measures today's
    prompts on the recorded answers."""
    from genesis.llm.prompt_size import prompt_size_table
    from genesis.llm.transcript import Transcript

    try:
        records = Transcript.load(transcript).records
    except (OSError, ValueError) as exc:
        raise _bad_input(exc)
    typer.echo(prompt_size_table(records))


@app.command()
def version() -> None:
    """Print the version."""
    from genesis import __version__

    typer.echo(__version__)


def main() -> None:
    """The `genesis` command: runs the CLI, then exits without the interpreter's teardown (see process_exit)."""
    from genesis.process_exit import exit_now

    try:
        app()
    except SystemExit as exc:
        exit_now(exc.code)
    exit_now(0)


if __name__ == "__main__":      # `python -m genesis.cli`, as `genesis`
    main()
