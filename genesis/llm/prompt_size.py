"""How many characters of prompt a transcript's model calls carried, per role, skill and stage.

A replay's transcript holds the messages today's templates build for each recorded call, so replaying
a recording and reading its transcript here measures the prompts as they are now.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any


def call_size(record: dict[str, Any]) -> tuple[int, int]:
    """(prompt_chars, schema_chars) of one call; a record written before they were counted gives its
    messages' text and no schema (its response_format was not recorded)."""
    if "prompt_chars" in record:
        return int(record["prompt_chars"]), int(record.get("schema_chars", 0))
    return sum(len(m["content"]) if isinstance(m.get("content"), str) else
               sum(len(p.get("text", "")) for p in m.get("content") or [] if p.get("type") == "text")
               for m in record.get("messages") or []), 0


def prompt_sizes(records: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """{role/skill/stage: {calls, prompt_chars, schema_chars}} over every attempt sent (or, in a replay,
    served); a transcript both recorded and replayed counts only the replay."""
    replayed = [r for r in records if r.get("replayed")]
    sent = replayed or [r for r in records if r.get("messages")]
    by_key: dict[str, dict[str, int]] = defaultdict(lambda: {"calls": 0, "prompt_chars": 0, "schema_chars": 0})
    for rec in sent:
        row = by_key[f"{rec['role']}/{rec['skill']}/{rec['stage']}"]
        prompt, schema = call_size(rec)
        row["calls"] += 1
        row["prompt_chars"] += prompt
        row["schema_chars"] += schema
    return dict(by_key)


def prompt_size_table(records: list[dict[str, Any]]) -> str:
    """The sizes as text: one line per role/skill/stage, largest first, and the total."""
    rows = sorted(prompt_sizes(records).items(), key=lambda kv: -kv[1]["prompt_chars"])
    total = {k: sum(r[k] for _, r in rows) for k in ("calls", "prompt_chars", "schema_chars")}
    width = max([len(k) for k, _ in rows] + [16])
    lines = [f"{'role/skill/stage':<{width}}  calls  prompt chars  schema chars"]
    lines += [f"{key:<{width}}  {r['calls']:>5}  {r['prompt_chars']:>12,}  {r['schema_chars']:>12,}" for key, r in rows
              + [("total", total)]]
    return "\n".join(lines)
