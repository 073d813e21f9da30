"""`genesis rubrics ...`: the stage rubrics' versions (root: $GENESIS_RUBRICS_DIR or <repo>/rubrics)."""
from __future__ import annotations

from typing import Optional

import typer
from rich.syntax import Syntax
from rich.table import Table

from genesis import rubric_store
from genesis.cli_output import fail, out
from genesis.fileio import LockTimeout
from genesis.rubric_store import STAGES, RubricError

app = typer.Typer(help="Show, compare and roll back the stage rubrics.", no_args_is_help=True)


@app.command()
def show(stage: str = typer.Argument(..., help=f"one of {', '.join(STAGES)}"),
         version: Optional[int] = typer.Option(None, "--version", "-v", help="an earlier version")) -> None:
    """List a rubric's criteria."""
    try:
        rubric = rubric_store.load(stage, version)
    except RubricError as e:
        fail(str(e))
    table = Table("id", "kind", "mandatory", "origin", "since", "text", title=f"{stage} rubric v{rubric.version}")
    for c in rubric.criteria:
        table.add_row(c.id, c.kind, "yes" if c.mandatory else "no", c.origin, f"v{c.version}", c.text)
    out.print(table)


@app.command()
def history(stage: Optional[str] = typer.Argument(None, help="one stage; all when omitted")) -> None:
    """Every version of the rubrics with its changes and rationale."""
    table = Table("stage", "version", "date", "author", "changes", "rationale", title="rubric history")
    try:
        for name in [stage] if stage else STAGES:
            for info in rubric_store.history(name):
                table.add_row(name, f"v{info.version}", info.date, info.author, ", ".join(info.changes), info.rationale)
    except RubricError as e:
        fail(str(e))
    out.print(table)


@app.command()
def diff(stage: str, v1: int, v2: int) -> None:
    """Unified diff between two versions of a rubric."""
    try:
        text = rubric_store.diff(stage, v1, v2)
    except RubricError as e:
        fail(str(e))
    out.print(Syntax(text, "diff") if text else f"{stage} v{v1} and v{v2} are identical")


@app.command()
def rollback(stage: str, version: int) -> None:
    """Make the criteria of VERSION current again, as a new version (history is kept)."""
    try:
        rubric = rubric_store.rollback(stage, version)
    except (RubricError, LockTimeout) as e:
        fail(str(e))
    out.print(f"{stage} rubric is now v{rubric.version} (the criteria of v{version})")
