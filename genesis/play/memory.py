"""RTSGameAgent's agentic memory: the memory phase that runs before every decision.

Two stores: the short-term event log (engine-side, `engine.agent.events`, drained each decision,
plus the outcome of the agent's own last orders) and the long-term memory (concise entries kept
for the whole game). The memory call (a text-only model, the decision model by default) merges the
short-term log into the long-term memory and selects the entries relevant to the coming decision.
A failed or unusable memory reply keeps the long-term memory as it was and selects its latest
entries; the failure is recorded with the decision, never hidden.
"""
from __future__ import annotations

from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, ValidationError

from genesis.llm.client import OutputParseError, extract_json_object

MAX_ENTRIES = 12
ENTRY_CHARS = 200
MAX_RELEVANT = 6


class MemoryReply(BaseModel):
    model_config = ConfigDict(extra="ignore")
    long_term: list[str]
    relevant: list[str] = []


def _bounded(entries: list[Any], limit: int) -> list[str]:
    out = [str(e).strip()[:ENTRY_CHARS] for e in entries if str(e).strip()]
    return out[:limit]


def parse_memory_reply(text: str) -> MemoryReply:
    """Raises ValueError with a short reason when the reply is not {"long_term": [...], ...}."""
    try:
        value = extract_json_object(text or "")
        reply = MemoryReply.model_validate(value)
    except (OutputParseError, ValidationError) as exc:
        raise ValueError(str(exc).splitlines()[0][:200]) from None
    return MemoryReply(long_term=_bounded(reply.long_term, MAX_ENTRIES),
                       relevant=_bounded(reply.relevant, MAX_RELEVANT))


class AgenticMemory:
    """Long-term memory and the consolidation step. `call(user_prompt) -> (text, usage, failure)`."""

    def __init__(self, call: Callable[[str], tuple[str | None, dict, str | None]], render_prompt: Callable[..., str]):
        self.call = call
        self.render_prompt = render_prompt
        self.long_term: list[str] = []

    def consolidate(self, events: list[str], time: float) -> tuple[list[str], dict]:
        """(relevant entries for the decision, the record of this memory phase)."""
        prompt = self.render_prompt(long_term=self.long_term, events=events, time=f"{time:g}")
        text, usage, failure = self.call(prompt)
        record: dict[str, Any] = {"prompt": prompt, "response": text, "usage": usage, "error": None}
        if failure is None:
            try:
                reply = parse_memory_reply(text)
            except ValueError as exc:
                failure = f"unusable memory reply: {exc}"
            else:
                self.long_term = reply.long_term
                relevant = reply.relevant or self.long_term[-MAX_RELEVANT:]
                record.update(long_term=list(self.long_term), relevant=relevant)
                return relevant, record
        relevant = self.long_term[-MAX_RELEVANT:]
        record.update(error=failure, long_term=list(self.long_term), relevant=relevant)
        return relevant, record
