"""Per-stage counters of model calls: how many, tokens, cost and latency."""
from __future__ import annotations

import threading
from collections import defaultdict

# prompt_chars / schema_chars: characters of the messages / response_formats built, replayed calls included,
# so that a replay measures the prompts of today's templates
_FIELDS = ("calls", "failed_calls", "replayed_calls", "prompt_tokens", "completion_tokens",
           "cost_usd", "latency_ms", "prompt_chars", "schema_chars")
_MODEL_FIELDS = ("calls", "prompt_tokens", "completion_tokens")


class Usage:
    """Thread-safe accumulator; `calls` counts every request sent through litellm (each attempt)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stages: dict[str, dict[str, float]] = defaultdict(lambda: dict.fromkeys(_FIELDS, 0))
        self._models: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(_MODEL_FIELDS, 0))

    def record_call(self, stage: str, *, ok: bool, prompt_tokens: int = 0, completion_tokens: int = 0,
                    cost_usd: float = 0.0, latency_ms: float = 0.0, model: str | None = None,
                    prompt_chars: int = 0, schema_chars: int = 0) -> None:
        with self._lock:
            if model is not None:   # what the cost estimate prices, per model
                per = self._models[model]
                per["calls"] += 1
                per["prompt_tokens"] += prompt_tokens
                per["completion_tokens"] += completion_tokens
            row = self._stages[stage]
            row["calls"] += 1
            row["failed_calls"] += 0 if ok else 1
            row["prompt_tokens"] += prompt_tokens
            row["completion_tokens"] += completion_tokens
            row["cost_usd"] += cost_usd
            row["latency_ms"] += latency_ms
            row["prompt_chars"] += prompt_chars
            row["schema_chars"] += schema_chars

    def record_replay(self, stage: str, prompt_chars: int = 0, schema_chars: int = 0) -> None:
        """A response served from a recorded transcript: no model was called."""
        with self._lock:
            self._stages[stage]["replayed_calls"] += 1
            self._stages[stage]["prompt_chars"] += prompt_chars
            self._stages[stage]["schema_chars"] += schema_chars

    def by_stage(self) -> dict[str, dict[str, float]]:
        with self._lock:
            return {stage: _rounded(row) for stage, row in self._stages.items()}

    def by_model(self) -> dict[str, dict[str, int]]:
        with self._lock:
            return {model: dict(row) for model, row in self._models.items()}

    def record(self) -> dict:
        """What validation.json keeps: per stage, the total, and the cost estimate (genesis.llm.cost)."""
        from genesis.llm.cost import cost_estimate

        return {"by_stage": self.by_stage(), "total": self.total(), "cost": cost_estimate(self.by_model())}

    def total(self) -> dict[str, float]:
        with self._lock:
            total = dict.fromkeys(_FIELDS, 0)
            for row in self._stages.values():
                for key in _FIELDS:
                    total[key] += row[key]
            return _rounded(total)


def _rounded(row: dict[str, float]) -> dict[str, float]:
    out = dict(row)
    out["latency_ms"] = round(out["latency_ms"], 1)
    out["cost_usd"] = round(out["cost_usd"], 6)
    return out
