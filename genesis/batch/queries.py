"""Reads a batch file: one query per line, `#` comments and blank lines ignored."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from genesis.pipeline.runner import slugify


RESERVED_NAMES = ("logs",)  # folders the batch itself writes beside the scenario folders


class BatchFileError(ValueError):
    """The batch file is missing, unreadable or holds no query."""


@dataclass(frozen=True)
class BatchQuery:
    index: int      # position among the file's queries, 0-based
    line: int       # line number in the file, for messages
    query: str      # the line as written (whitespace-collapsed)
    slug: str       # scenario folder name inside the batch folder, unique within the batch


def read_queries(path: Path) -> list[BatchQuery]:
    path = Path(path)
    if not path.is_file():
        raise BatchFileError(f"batch file {path} does not exist (give a text file with one query per line)")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise BatchFileError(f"cannot read batch file {path}: {err}") from None
    queries: list[BatchQuery] = []
    used: set[str] = set(RESERVED_NAMES)
    for number, raw in enumerate(text.splitlines(), start=1):
        query = " ".join(raw.split())
        if not query or query.startswith("#"):
            continue
        slug, n = slugify(query), 1
        while slug in used:  # the same query twice (or two with one slug) gets -2, -3, ...
            n += 1
            slug = f"{slugify(query)}-{n}"
        used.add(slug)
        queries.append(BatchQuery(len(queries), number, query, slug))
    if not queries:
        raise BatchFileError(f"batch file {path} holds no query (one per line; lines starting with # are comments)")
    return queries
