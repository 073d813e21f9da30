"""The live view of `genesis batch`: a rich progress bar with ETA and one line per finished query."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape

from genesis.pipeline.finalize import clause_tally_text
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from genesis.batch.queries import BatchQuery
from genesis.batch.records import QueryRecord
from genesis.batch.summary import BatchSummary


class RichBatchView:
    def __init__(self, console: Console):
        self.console = console
        self.progress = Progress(TextColumn("[bold cyan]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=console)
        self.task = None
        self.running: set[int] = set()

    def begin(self, summary: BatchSummary, batch_dir: Path, to_run: int) -> None:
        skipped = sum(1 for q in summary.queries if q.resumed)
        self.console.print(f"[bold]batch[/] {summary.total_queries} queries -> {batch_dir}/ "
                           f"({summary.workers} worker{'s' if summary.workers != 1 else ''}, model {summary.model})")
        if skipped:
            self.console.print(f"   {skipped} already finished by an earlier run: skipped")
        for q in summary.queries:
            if q.status == "invalid_query":
                self.console.print(f"  {q.index + 1:>3}. [bold red]NOT PLAYABLE[/] {escape(q.query[:70])} — {escape(q.reason)}")
        self.progress.start()
        # the bar counts only this run's queries, so the ETA is not skewed by skipped ones
        self.task = self.progress.add_task("generating", total=to_run)

    def query_started(self, query: BatchQuery) -> None:
        self.running.add(query.index)
        self._describe()

    def query_finished(self, record: QueryRecord) -> None:
        self.running.discard(record.index)
        label = escape(record.verdict or ("PLAYABLE" if record.playable else "NOT PLAYABLE"))
        verdict = ("[bold yellow]INFRA ERROR[/]" if record.infra_error else f"[bold green]{label}[/]" if record.usable
                   else f"[bold yellow]{label}[/]" if record.playable else f"[bold red]{label}[/]")
        took = f"{record.wall_s:.0f} s" if record.wall_s is not None else ""
        extra = ", fast-tracked" if record.fast_tracked else ""
        if record.infra_retries:  # an outage it came through: visible here, not only in batch.json
            extra += f", after {record.infra_retries} infra retr{'y' if record.infra_retries == 1 else 'ies'}"
        reason = "" if record.usable else f" — {escape(record.reason[:160])}"
        if record.usable and set(record.clauses) - {"honoured"}:   # a task that builds only part of its request
            extra += f"; {escape(clause_tally_text(record.clauses))}"
        self.progress.console.print(f"  {record.index + 1:>3}. {verdict} {escape(record.query[:70])}  ({took}{extra}){reason}")
        self.progress.advance(self.task)
        self._describe()

    def _describe(self) -> None:
        self.progress.update(self.task, description=f"generating ({len(self.running)} running)")

    def end(self, summary: BatchSummary, batch_dir: Path) -> None:
        self.stop()
        agg = summary.aggregates()
        rate = f"{100 * agg['playability']:.0f}%" if agg["playability"] is not None else "–"
        mean = f"{agg['mean_generation_time_s']} s" if agg["mean_generation_time_s"] is not None else "–"
        certified = f"{100 * agg['certified_rate']:.0f}%" if agg["certified_rate"] is not None else "–"
        self.console.print(f"[bold]Playability {rate}[/] ({agg['playable']}/{agg['finished']}), [bold]certified "
                           f"{certified}[/] ({agg['certified']}/{agg['finished']}), mean generation time {mean}, "
                           f"wall time {summary.wall_s} s")
        unknown = f" + {agg['cost_unknown']} queries of unknown cost" if agg["cost_unknown"] else ""
        self.console.print(f"   {agg['model_calls']} model calls, {agg['tokens']} tokens, estimated cost "
                           f"${agg['cost_usd']:.4f}{unknown}")
        if agg["infra_errors"]:
            self.console.print(f"   [yellow]{agg['infra_errors']} queries stopped on an unavailable model endpoint[/] "
                               "(not counted; run the same command again to retry them)")
        self.console.print(f"   summary: {batch_dir / 'batch.html'}  ({batch_dir / 'batch.json'})")

    def stop(self) -> None:
        self.progress.stop()
