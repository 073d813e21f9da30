"""`genesis rubrics ...`: the stage rubrics' versions, in the workspace's rubrics folder (or $GENESIS_RUBRICS_DIR).

The rubric store (pydantic models) is imported inside each command so `genesis --help` stays fast.
"""
from __future__ import annotations

from typing import Optional

import typer
from rich.table import Table

from genesis.cli_output import fail, out

app = typer.Typer(help="Show, compare and roll back the stage rubrics.", no_args_is_help=True, rich_markup_mode=None)
STAGE_HELP = "gdd, rules or level"


def _bad_rubrics(e: Exception) -> None:
    """A missing or malformed rubric, or an unusable workspace, is bad configuration: exit 2."""
    fail(str(e), code=2)


@app.command()
def show(stage: str = typer.Argument(..., help=STAGE_HELP),
         version: Optional[int] = typer.Option(None, "--version", "-v", help="an earlier version")) -> None:
    """List a rubric's criteria."""
    from genesis import rubric_store
    from genesis.workspace import WorkspaceError

    try:
        rubric = rubric_store.load(stage, version)
    except (rubric_store.RubricError, WorkspaceError) as e:
        _bad_rubrics(e)
    table = Table("id", "kind", "mandatory", "origin", "since", "text", title=f"{stage} rubric v{rubric.version}")
    for c in rubric.criteria:
        table.add_row(c.id, c.kind, "yes" if c.mandatory else "no", c.origin, f"v{c.version}", c.text)
    out.print(table)


@app.command()
def history(stage: Optional[str] = typer.Argument(None, help=f"{STAGE_HELP}; all when omitted")) -> None:
    """Every version of the rubrics with its changes, rationale and the replay evidence that adopted it."""
    from genesis import rubric_store
    from genesis.workspace import WorkspaceError

    table = Table("stage", "version", "date", "author", "changes", "rationale", "evidence", title="rubric history")
    try:
        for name in [stage] if stage else rubric_store.STAGES:
            for info in rubric_store.history(name):
                table.add_row(name, f"v{info.version}", info.date, info.author, ", ".join(info.changes), info.rationale,
                              "; ".join(info.evidence))
    except (rubric_store.RubricError, WorkspaceError) as e:
        _bad_rubrics(e)
    out.print(table)


@app.command()
def diff(stage: str, v1: int, v2: int) -> None:
    """Unified diff between two versions of a rubric."""
    from rich.syntax import Syntax

    from genesis import rubric_store
    from genesis.workspace import WorkspaceError

    try:
        text = rubric_store.diff(stage, v1, v2)
    except (rubric_store.RubricError, WorkspaceError) as e:
        _bad_rubrics(e)
    out.print(Syntax(text, "diff") if text else f"{stage} v{v1} and v{v2} are identical")


@app.command()
def rollback(stage: str, version: int) -> None:
    """Make the criteria of VERSION current again, as a new version (history is kept)."""
    from genesis import rubric_store
    from genesis.fileio import LockTimeout
    from genesis.workspace import WorkspaceError

    try:
        rubric = rubric_store.rollback(stage, version)
    except (rubric_store.RubricError, WorkspaceError) as e:
        _bad_rubrics(e)
    except LockTimeout as e:
        fail(str(e))
    out.print(f"{stage} rubric is now v{rubric.version} (the criteria of v{version})")
