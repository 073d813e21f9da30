"""`genesis rubrics ...`: the stage rubrics' versions, in the workspace's rubrics folder (or $GENESIS_RUBRICS_DIR).

The rubric store (pydantic models) is imported inside each command so `genesis --help` stays fast.
"""
from __future__ import annotations

from typing import Optional

import typer
from rich.table import Table

from genesis.cli_output import fail, out, print_json, print_table

app = typer.Typer(help="Show, compare and roll back the stage rubrics.", no_args_is_help=True, rich_markup_mode=None)
STAGE_HELP = "gdd, rules or level"


def _bad_rubrics(e: Exception) -> None:
    """A missing or malformed rubric, or an unusable workspace, is bad configuration: exit 2."""
    fail(str(e), code=2)


@app.command()
def show(stage: str = typer.Argument(..., help=STAGE_HELP),
         version: Optional[str] = typer.Option(None, "--version", "-v", help="an earlier version (v3 or 3)"),
         as_json: bool = typer.Option(False, "--json", help="print the rubric as JSON")) -> None:
    """List a rubric's criteria."""
    from genesis import rubric_store
    from genesis.workspace import WorkspaceError

    try:
        rubric = rubric_store.load(stage, None if version is None else _version(version))
    except (rubric_store.RubricError, WorkspaceError) as e:
        _bad_rubrics(e)
    if as_json:
        print_json(rubric.model_dump(mode="json"))
        return
    table = Table("id", "kind", "mandatory", "origin", "since", "text", title=f"{stage} rubric v{rubric.version}")
    for c in rubric.criteria:
        table.add_row(c.id, c.kind, "yes" if c.mandatory else "no", c.origin, f"v{c.version}", c.text)
    print_table(table)


@app.command()
def history(stage: Optional[str] = typer.Argument(None, help=f"{STAGE_HELP}; all when omitted"),
            as_json: bool = typer.Option(False, "--json", help="print the versions as JSON")) -> None:
    """Every version of the rubrics with its changes, rationale and the replay evidence that adopted it."""
    from genesis import rubric_store
    from genesis.workspace import WorkspaceError

    try:
        rows = [(name, info) for name in ([stage] if stage else rubric_store.STAGES)
                for info in rubric_store.history(name)]
    except (rubric_store.RubricError, WorkspaceError) as e:
        _bad_rubrics(e)
    if as_json:
        print_json([{"stage": name, "version": info.version, "date": info.date, "author": info.author,
                     "changes": list(info.changes), "rationale": info.rationale, "evidence": list(info.evidence)}
                    for name, info in rows])
        return
    table = Table("stage", "version", "date", "author", "changes", "rationale", "evidence", title="rubric history")
    for name, info in rows:
        table.add_row(name, f"v{info.version}", info.date, info.author, ", ".join(info.changes), info.rationale,
                      "; ".join(info.evidence))
    print_table(table)


def _version(text: str) -> int:
    """A version as `rubrics history` prints it (v3) or as a number (3)."""
    digits = text[1:] if text[:1] in ("v", "V") else text
    if not digits.isdigit():
        raise typer.BadParameter(f"{text!r} is not a version (e.g. v3 or 3)")
    return int(digits)


VERSION_HELP = "a version, as `rubrics history` prints it (v3) or a number (3)"


@app.command()
def diff(stage: str = typer.Argument(..., help=STAGE_HELP),
         v1: str = typer.Argument(..., help=VERSION_HELP), v2: str = typer.Argument(..., help=VERSION_HELP)) -> None:
    """Unified diff between two versions of a rubric."""
    from rich.syntax import Syntax

    from genesis import rubric_store
    from genesis.workspace import WorkspaceError

    first, second = _version(v1), _version(v2)
    try:
        text = rubric_store.diff(stage, first, second)
    except (rubric_store.RubricError, WorkspaceError) as e:
        _bad_rubrics(e)
    out.print(Syntax(text, "diff") if text else f"{stage} v{first} and v{second} are identical")


@app.command()
def rollback(stage: str = typer.Argument(..., help=STAGE_HELP),
             version: str = typer.Argument(..., help=VERSION_HELP)) -> None:
    """Make the criteria of VERSION current again, as a new version (history is kept)."""
    from genesis import rubric_store
    from genesis.fileio import LockTimeout
    from genesis.workspace import WorkspaceError

    number = _version(version)
    try:
        rubric = rubric_store.rollback(stage, number)
    except (rubric_store.RubricError, WorkspaceError) as e:
        _bad_rubrics(e)
    except LockTimeout as e:
        fail(str(e))
    out.print(f"{stage} rubric is now v{rubric.version} (the criteria of v{number})")
