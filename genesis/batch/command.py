"""`genesis batch` as an exit code: messages for bad input and Ctrl-C, 0 iff every query is certified."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from genesis.batch.display import RichBatchView
from genesis.batch.queries import BatchFileError
from genesis.batch.runner import BatchInterrupted, BatchSettings, run_batch

EXIT_OK, EXIT_NOT_PLAYABLE, EXIT_BAD_INPUT, EXIT_INFRA, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


def run_command(file: Path, *, workers: int | None, out: Path | None, model_cli: dict[str, Any], console: Console,
                ray_address: str | None = None, shard: str | None = None) -> int:
    from genesis.batch.ray_pool import RayUnavailable
    from genesis.batch.shard import parse_shard
    from genesis.kb.common import KBError
    from genesis.llm.config import ConfigError
    from genesis.workspace import WorkspaceError

    view = RichBatchView(console)
    try:
        settings = BatchSettings(workers=workers, out=out, model_cli=model_cli, ray_address=ray_address,
                                 shard=parse_shard(shard) if shard is not None else None)
        summary, _ = run_batch(file, settings, events=view)
    except (BatchFileError, ConfigError, WorkspaceError, RayUnavailable, KBError) as exc:
        console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt as exc:
        view.stop()
        where = f" in {exc.batch_dir}/" if isinstance(exc, BatchInterrupted) else ""
        console.print(f"\n[yellow]interrupted.[/] Finished queries are kept{where}; nothing half-done counts as "
                      "finished. Run the same command again to generate the rest.")
        return EXIT_INTERRUPTED
    finally:
        view.stop()
    if all(q.usable for q in summary.queries):
        return EXIT_OK
    return EXIT_INFRA if all(q.usable or q.infra_error for q in summary.queries) else EXIT_NOT_PLAYABLE


def merge_command(folders: list[Path], *, out: Path | None, console: Console) -> int:
    """`genesis batch merge DIR...`: exit 0 iff every query of the batch is merged and playable, 1 when
    some are not playable or missing, 2 for folders that do not belong together."""
    from genesis.batch.merge import MergeError, merge

    if out is None:
        parents = {Path(f).resolve().parent for f in folders}
        if len(parents) != 1:
            console.print("[bold red]error:[/] the folders have different parents: say where the merged report goes with --out")
            return EXIT_BAD_INPUT
        out = parents.pop()
    try:
        summary = merge(folders, Path(out))
    except MergeError as exc:
        console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
        return EXIT_BAD_INPUT
    agg = summary.aggregates()
    rate = f"{100 * agg['playability']:.0f}%" if agg["playability"] is not None else "–"
    console.print(f"merged {len(folders)} folders: {len(summary.queries)}/{summary.total_queries} queries, "
                  f"Playability {rate} ({agg['playable']}/{agg['finished']}), status {summary.status} -> "
                  f"{Path(out) / 'batch.html'}", highlight=False)
    if summary.status == "complete" and all(q.playable for q in summary.queries):
        return EXIT_OK
    return EXIT_INFRA if summary.status == "complete" and all(q.playable or q.infra_error for q in summary.queries) \
        else EXIT_NOT_PLAYABLE
