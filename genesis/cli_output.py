"""Where the maintenance commands (`genesis kb`, `genesis rubrics`) write, and how they fail."""
from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console

out = Console()
err = Console(stderr=True)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print `error: message` on stderr and exit with `code` (no traceback)."""
    err.print(f"[red]error:[/red] {message}", markup=True, highlight=False)
    raise typer.Exit(code)
