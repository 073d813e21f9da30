"""The `genesis` command line."""
from __future__ import annotations

import typer

app = typer.Typer(help="Generate validated RTS mini-games from free-form requests.", no_args_is_help=True)


@app.command()
def new(query: str = typer.Argument(..., help="what the scenario should test")) -> None:
    """Generate a scenario from QUERY."""
    typer.echo("genesis new: the generation pipeline is not built yet.", err=True)
    raise typer.Exit(code=2)


@app.command()
def version() -> None:
    """Print the version."""
    from genesis import __version__

    typer.echo(__version__)
