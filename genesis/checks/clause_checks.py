"""The brief's clause accounting: its clauses cover the request in order, every honoured or partial clause
names requirements the brief has, a partial one says what was built, and every clause not (fully) honoured
says why and shows in "Not honoured"."""
from __future__ import annotations

import re

from genesis.checks.context import CheckContext
from genesis.models import Brief, ClauseAccount


def relocate(query: str, clauses: list[ClauseAccount]) -> list[ClauseAccount]:
    """The clauses with offsets taken from where their text stands in the request, in order (a model
    copies text well and counts characters badly); a clause whose text is not found keeps its offsets."""
    out, at = [], 0
    for c in clauses:
        if query[c.start:c.end] != c.text or c.start < at:
            found = query.find(c.text, at) if c.text else -1
            if found >= 0:
                c = c.model_copy(update={"start": found, "end": found + len(c.text)})
        out.append(c)
        at = max(at, c.end)
    return out


def clause_problems(brief: Brief) -> list[str]:
    """What is wrong with the brief's clause accounting ([] when nothing is)."""
    query, clauses = brief.query, brief.clauses
    if not clauses:
        return [] if not brief.is_game else ["`clauses` is empty: split the request into clauses and give each "
                                             "a status"]
    problems = []
    covered = [False] * len(query)
    at = 0
    for i, c in enumerate(clauses):
        if query[c.start:c.end] != c.text:
            problems.append(f"clause {i + 1} {c.text!r} is not the request's text at {c.start}..{c.end}")
            continue
        if c.start < at:
            problems.append(f"clause {i + 1} {c.text!r} overlaps or comes before the clause preceding it")
        at = max(at, c.end)
        covered[c.start:c.end] = [True] * (c.end - c.start)
    missing = [m.group(0) for m in re.finditer(r"\w+", query) if not all(covered[m.start():m.end()])]
    if missing:
        problems.append("words of the request in no clause: " + ", ".join(dict.fromkeys(missing)))
    have = {r.id for r in brief.requirements}
    unsupported = " ".join(brief.unsupported)
    for c in clauses:
        unknown = [rid for rid in c.requirement_ids if rid not in have]
        if unknown:
            problems.append(f"clause {c.text.strip()!r} names requirements the brief does not have: {unknown}")
        if c.status in ("honoured", "partial") and not c.requirement_ids:
            problems.append(f"{c.status} clause {c.text.strip()!r} lists no requirement that checks it")
        if c.status == "partial" and not c.built.strip():
            problems.append(f"partial clause {c.text.strip()!r} does not say in `built` what was built")
        if c.status != "honoured" and not c.why.strip():
            problems.append(f"{c.status} clause {c.text.strip()!r} does not say why")
        if c.status in ("partial", "not_honoured") and brief.is_game and c.why.strip() not in unsupported \
                and c.text.strip(" ,;:.!?") not in unsupported:
            problems.append(f"{c.status.replace('_', ' ')} clause {c.text.strip()!r} is missing from `unsupported`")
    return problems


def brief_clauses(ctx: CheckContext) -> tuple[bool, str]:
    if ctx.brief is None:
        return False, "no brief"
    problems = clause_problems(ctx.brief)
    if problems:
        return False, "; ".join(problems)
    counts = {s: sum(c.status == s for c in ctx.brief.clauses) for s in ("honoured", "partial", "assumed",
                                                                          "not_honoured")}
    return True, ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in counts.items()) + " clause(s) cover the request"


CHECKS = {"brief_clauses": brief_clauses}
