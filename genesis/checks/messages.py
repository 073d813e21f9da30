"""Check messages bounded in length without losing an item: every item stays listed, and a long one
is shortened at a word boundary, so no failing expectation hides behind a cut."""
from __future__ import annotations

ELLIPSIS = " …"
EVIDENCE_CHARS = 1_200   # a requirement-evidence message, over all failing requirements
RULE_TEST_CHARS = 900    # a failing rule test's expectations
MIN_ITEM_CHARS = 60   # below this an item no longer says what failed; the total may then exceed the limit


def shorten(text: str, limit: int) -> str:
    """`text` cut at the last word boundary that fits `limit` characters (with a trailing ellipsis)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[:max(1, limit - len(ELLIPSIS)) + 1]
    cut = head.rfind(" ")
    return (head[:cut] if cut > 0 else head[:-1]).rstrip(" ,;:(") + ELLIPSIS


def bounded_join(items: list[str], limit: int, sep: str = "; ") -> str:
    """All `items` joined by `sep` in about `limit` characters: short items stay whole and the long ones
    share what is left, each cut at a word boundary."""
    items = [" ".join(i.split()) for i in items]
    joined = sep.join(items)
    if len(joined) <= limit or not items:
        return joined
    budget = max(MIN_ITEM_CHARS, (limit - len(sep) * (len(items) - 1)) // len(items))
    short = [i for i in items if len(i) <= budget]
    long_count = len(items) - len(short)
    spare = limit - len(sep) * (len(items) - 1) - sum(map(len, short))
    share = max(MIN_ITEM_CHARS, spare // long_count) if long_count else budget
    return sep.join(i if len(i) <= budget else shorten(i, share) for i in items)


def evidence_detail(entry: dict, limit: int) -> str:
    """A requirement's evidence detail in about `limit` characters: on a failure, every failing
    expectation of its first failing seed."""
    failing = next((p for p in entry.get("per_run") or [] if not p.get("passed")), None)
    if entry.get("status") != "failed" or not (failing or {}).get("failures"):
        return shorten(str(entry.get("detail", "")), limit)
    # the failing expectations first: a long account of how the run ended is what gets cut
    head = f"seed {failing['seed']}: "
    tail = f" ({shorten(failing['ended'], limit // 3)})" if failing.get("ended") else ""
    return head + bounded_join(failing["failures"], limit - len(head) - len(tail)) + tail


def failing_run_head(run: dict) -> str:
    """"seed 2 (the run ended at 95 s: ...): ", the head of a failed requirement's detail."""
    return f"seed {run['seed']}" + (f" ({run['ended']})" if run.get("ended") else "") + ": "
