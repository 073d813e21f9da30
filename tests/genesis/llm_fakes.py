"""Test helpers for genesis.llm: scripted replies that still go through the real litellm.completion."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

# Before the first `import litellm` anywhere in the test process, or litellm fetches its price map
# from the network. Test files import litellm from here for that reason.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
import litellm  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"


def recorded_replies() -> dict[str, str]:
    """Model replies captured as text (fenced JSON, chatter, garbage...) in fixtures/replies.json."""
    return json.loads((FIXTURES / "replies.json").read_text(encoding="utf-8"))


class ScriptedLiteLLM:
    """Replaces litellm.completion; each call forwards to the real one with the next mock_response.

    mock_response may be text or an exception instance (litellm raises it as a provider would).
    `calls` keeps every kwargs dict the client sent.
    """

    def __init__(self, replies: list[Any]) -> None:
        self.replies = list(replies)
        self.calls: list[dict[str, Any]] = []
        self._real = litellm.completion

    def __call__(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        if not self.replies:
            raise AssertionError("the client made more model calls than the script has replies")
        return self._real(**kwargs, mock_response=self.replies.pop(0))

    def install(self, monkeypatch) -> "ScriptedLiteLLM":
        monkeypatch.setattr(litellm, "completion", self)
        return self


def timeout_error(model: str = "openai/test") -> Exception:
    return litellm.Timeout(message="request timed out", model=model, llm_provider="openai")
