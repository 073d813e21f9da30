"""Where the maintenance commands (`genesis kb`, `genesis rubrics`) write, and how they fail.

Results go to stdout, errors to stderr; rich colours only the markup we write (no guessed numbers or paths)
and never hard-wraps a line, so output piped to a file or a script keeps whole ids and paths."""
from __future__ import annotations

import json
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.measure import Measurement

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print `error: message` on stderr and exit with `code` (no traceback)."""
    err.print(f"[red]error:[/red] {message}", markup=True, highlight=False)
    raise typer.Exit(code)


def print_table(table) -> None:
    """A table at the terminal's width, or, when stdout is not a terminal, at its own full width (no cell is
    cut to fit 80 columns)."""
    if out.is_terminal:
        out.print(table)
        return
    saved = out.width
    out.width = Measurement.get(out, out.options.update(width=10**5), table).maximum
    try:
        out.print(table)
    finally:
        out.width = saved


def print_json(data: Any) -> None:
    """One JSON document on stdout (`--json`): plain text, never coloured or wrapped."""
    typer.echo(json.dumps(data, ensure_ascii=False, default=str))
