"""The request's own checks and its folder name: cheap, so the CLI answers a bad query before loading the pipeline."""
from __future__ import annotations

import hashlib
import re

MAX_QUERY_CHARS = 2000


class QueryError(ValueError):
    """The request cannot be processed at all (empty, too long)."""


def check_query(query: str) -> str:
    q = " ".join((query or "").split())
    if not q:
        raise QueryError("the query is empty: describe the scenario you want, e.g. "
                         "genesis new \"defend two fronts with staggered waves\"")
    if len(q) > MAX_QUERY_CHARS:
        raise QueryError(f"the query is {len(q):,} characters long; the limit is {MAX_QUERY_CHARS:,}. "
                         "Summarise the scenario in a few sentences")
    return q


def slugify(text: str) -> str:
    """A folder name for a query: its ASCII words, plus a short hash of the whole query when the
    words lose part of it (letters outside a-z such as accents or other scripts, or more than 60
    characters) or nothing is left, so different queries get different folders."""
    lowered = text.lower()
    words = re.sub(r"[^a-z0-9]+", "-", lowered).strip("-")
    lossy = not words or len(words) > 60 or any(ch.isalnum() and not ch.isascii() for ch in lowered)
    if not lossy:
        return words
    digest = hashlib.sha256(text.strip().encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{words[:51].rstrip('-') or 'scenario'}-{digest}"
