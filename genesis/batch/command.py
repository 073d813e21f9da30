"""`genesis batch` as an exit code: messages for bad input and Ctrl-C, 0 iff every query is playable."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from genesis.batch.display import RichBatchView
from genesis.batch.queries import BatchFileError
from genesis.batch.runner import BatchInterrupted, BatchSettings, run_batch

EXIT_OK, EXIT_NOT_PLAYABLE, EXIT_BAD_INPUT, EXIT_INFRA, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


def run_command(file: Path, *, workers: int | None, out: Path | None, model_cli: dict[str, Any], console: Console) -> int:
    from genesis.llm.config import ConfigError
    from genesis.workspace import WorkspaceError

    view = RichBatchView(console)
    try:
        settings = BatchSettings(out=out, model_cli=model_cli) if workers is None else \
            BatchSettings(workers=workers, out=out, model_cli=model_cli)
        summary, _ = run_batch(file, settings, events=view)
    except (BatchFileError, ConfigError, WorkspaceError) as exc:
        console.print(f"[bold red]error:[/] {exc}")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt as exc:
        view.stop()
        where = f" in {exc.batch_dir}/" if isinstance(exc, BatchInterrupted) else ""
        console.print(f"\n[yellow]interrupted.[/] Finished queries are kept{where}; nothing half-done counts as "
                      "finished. Run the same command again to generate the rest.")
        return EXIT_INTERRUPTED
    finally:
        view.stop()
    if all(q.playable for q in summary.queries):
        return EXIT_OK
    return EXIT_INFRA if all(q.playable or q.infra_error for q in summary.queries) else EXIT_NOT_PLAYABLE
