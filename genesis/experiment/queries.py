"""The experiment's query stream: themed batches read from a text file with `## batch: <theme>` headers."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DEFAULT_QUERIES = Path(__file__).with_name("default_queries.txt")
HEADER = "## batch:"


@dataclass
class Batch:
    theme: str
    queries: list[str]


class QueryFileError(ValueError):
    """The query file is malformed; the message names the line."""


def load_stream(path: str | Path | None = None) -> list[Batch]:
    """Batches in file order; `#` lines are comments, blank lines are ignored."""
    path = Path(path) if path else DEFAULT_QUERIES
    batches: list[Batch] = []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if line.lower().startswith(HEADER):
            batches.append(Batch(line[len(HEADER):].strip() or f"batch {len(batches) + 1}", []))
        elif line and not line.startswith("#"):
            if not batches:
                raise QueryFileError(f"{path}:{n}: a query before the first '{HEADER} <theme>' header")
            batches[-1].queries.append(line)
    batches = [b for b in batches if b.queries]
    if not batches:
        raise QueryFileError(f"{path}: no queries (expected '{HEADER} <theme>' headers, one query per line)")
    return batches


def take(batches: list[Batch], n_batches: int, per_batch: int) -> list[Batch]:
    """The first `n_batches` batches with their first `per_batch` queries each."""
    if n_batches < 1 or per_batch < 1:
        raise QueryFileError("--batches and --per-batch must be at least 1")
    if n_batches > len(batches):
        raise QueryFileError(f"{n_batches} batches requested; the query file has {len(batches)}")
    short = [b.theme for b in batches[:n_batches] if len(b.queries) < per_batch]
    if short:
        raise QueryFileError(f"batch(es) {', '.join(short)} have fewer than {per_batch} queries")
    return [Batch(b.theme, b.queries[:per_batch]) for b in batches[:n_batches]]
