"""transcript.jsonl: one JSON object per model-call attempt, and the replay index built from it.

Record fields (written by LLMClient): v (the call plan the run followed, see CALL_PLAN), ts, call, attempt, final, ok, replayed, role, skill,
stage, model, backend, messages (images elided to sha256), inputs_sha256, response_text,
finish_reason ("length" = cut off by max_tokens or the context), output (parsed dict, final
successful attempt), error, error_type, prompt_tokens, completion_tokens, cost_usd, latency_ms.
"""
from __future__ import annotations

import json
import os
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any


# The calls a run makes for its stages: 1 asked each new rule in a call of its own and the visual reviewer
# again on frames it had judged; 2 asks the new rules of a rules visit in one call and reuses the verdict on
# the same frames; 3 reuses without a call a library rule the GDD names with params that rule declares; 4
# assembles a level from its GDD without a call, asking the developer only to correct one the gate sent back,
# and keeps without a call a verified rule whose component a new GDD changed only in params the rule declares.
# A replay follows the plan its recording was made with.
CALL_PLAN = 4


class ReplayMismatch(BaseException):
    """The run asked for a model call the recorded transcript does not hold, or a recorded answer does
    not validate: the transcript is bad input. A BaseException, like ModelUnavailableError, so that no
    stage's `except Exception` turns it into a verdict on the scenario."""


class Transcript:
    """Append-only call log; `path=None` keeps records in memory only (tests, dry runs)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.records: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)

    @classmethod
    def load(cls, path: str | Path) -> "Transcript":
        """Read a recorded transcript (for replay); later appends go to the same file."""
        transcript = cls(path)
        text = Path(path).read_text(encoding="utf-8")
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                transcript.records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not a JSON line: {exc}") from exc
        return transcript

    def append(self, record: dict[str, Any]) -> None:
        line = (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        with self._lock:
            self.records.append(record)
            if self.path is not None:
                # One write() on an O_APPEND descriptor: a line is never interleaved with another
                # writer's line and a crash leaves at most one truncated final line.
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    os.write(fd, line)
                finally:
                    os.close(fd)


class ReplayIndex:
    """Recorded final answers, served in order per (role, skill, stage)."""

    def __init__(self, transcript: Transcript) -> None:
        self._queues: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
        # Only the last attempt of each call decides what complete() returned (or raised).
        finals = [rec for rec in transcript.records if rec.get("final")]
        # A replay may append to the file it replays; its copies must not be served twice.
        # A transcript written only by a replay is itself replayable.
        original = [rec for rec in finals if not rec.get("replayed")]
        for rec in original or finals:
            self._queues[(rec["role"], rec["skill"], rec["stage"])].append(rec)
        self._served: dict[tuple[str, str, str], int] = defaultdict(int)
        self._lock = threading.Lock()
        self._source = transcript.path
        self.call_plan = min((int(rec.get("v", 1)) for rec in original or finals), default=CALL_PLAN)
        # which backend answered each role when the transcript was recorded
        self.backends: dict[str, str] = {}
        for rec in original or finals:
            if rec.get("backend"):
                self.backends.setdefault(rec["role"], rec["backend"])

    def next(self, role: str, skill: str, stage: str) -> tuple[int, dict[str, Any]]:
        key = (role, skill, stage)
        with self._lock:
            index = self._served[key]
            queue = self._queues.get(key, [])
            if index >= len(queue):
                recorded = sorted({f"{r}/{s}/{st} x{len(q)}" for (r, s, st), q in self._queues.items()})
                raise ReplayMismatch(
                    f"replay of {self._source or 'transcript'}: no recorded call #{index + 1} for "
                    f"role={role!r} skill={skill!r} stage={stage!r} (recorded {len(queue)}); "
                    f"recorded calls: {', '.join(recorded) or 'none'}")
            self._served[key] = index + 1
            return index, queue[index]
