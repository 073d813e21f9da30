"""How many characters of prompt a transcript's model calls carried, per call and per role, skill and stage.

A replay's transcript holds the messages today's templates build for each recorded call, so replaying
a recording and reading its transcript here measures the prompts as they are now.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any


def call_chars(record: dict[str, Any]) -> int:
    """The call's `prompt_chars` (messages and response_format); for a record written before it was
    counted, the characters of its messages' text."""
    if "prompt_chars" in record:
        return int(record["prompt_chars"])
    return sum(len(m["content"]) if isinstance(m.get("content"), str) else
               sum(len(p.get("text", "")) for p in m.get("content") or [] if p.get("type") == "text")
               for m in record.get("messages") or [])


def prompt_sizes(records: list[dict[str, Any]]) -> dict[str, Any]:
    """{calls, chars, by_call: [(call, role/skill/stage, chars)], by_key: {role/skill/stage: {calls, chars}}} over
    every attempt sent (or, in a replay, served); a transcript both recorded and replayed counts only the replay."""
    replayed = [r for r in records if r.get("replayed")]
    sent = replayed or [r for r in records if r.get("messages")]
    by_key: dict[str, dict[str, int]] = defaultdict(lambda: {"calls": 0, "chars": 0})
    by_call = []
    for rec in sent:
        key, chars = f"{rec['role']}/{rec['skill']}/{rec['stage']}", call_chars(rec)
        by_key[key]["calls"] += 1
        by_key[key]["chars"] += chars
        by_call.append((rec.get("call"), key, chars))
    return {"calls": len(sent), "chars": sum(c for *_, c in by_call), "by_call": by_call, "by_key": dict(by_key)}


def prompt_size_table(records: list[dict[str, Any]]) -> str:
    """The sizes as text: one line per role/skill/stage, largest first, and the total."""
    sizes = prompt_sizes(records)
    rows = sorted(sizes["by_key"].items(), key=lambda kv: -kv[1]["chars"])
    width = max([len(k) for k, _ in rows] + [5])
    lines = [f"{'role/skill/stage':<{width}}  calls  chars"]
    lines += [f"{key:<{width}}  {row['calls']:>5}  {row['chars']:>9,}" for key, row in rows]
    lines.append(f"{'total':<{width}}  {sizes['calls']:>5}  {sizes['chars']:>9,}")
    return "\n".join(lines)
