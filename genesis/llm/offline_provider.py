"""The embedded offline backend, reached through litellm as the custom provider `genesis/offline`.

How a call reaches the brain: LLMClient passes
    metadata={"genesis": {"skill": str, "inputs": dict, "schema": dict, "role": str, "stage": str}}
to litellm.completion. litellm hands `metadata` unchanged (same object, no serialisation) to the
custom handler in `litellm_params["metadata"]`, so the brain receives the caller's real inputs
rather than a re-parsed prompt. The messages are ignored: the brain is rule-based and reads the
structured inputs. Its dict becomes the JSON message content; usage is estimated from text
length (~4 characters per token), cost 0.
"""
from __future__ import annotations

import json
import threading
import traceback
from typing import Any, Protocol, runtime_checkable

import litellm
from litellm import CustomLLM
from litellm.llms.custom_llm import CustomLLMError
from litellm.types.utils import Usage

from genesis.llm.config import OFFLINE_MODEL

PROVIDER = OFFLINE_MODEL.split("/", 1)[0]
METADATA_KEY = "genesis"


@runtime_checkable
class OfflineBrain(Protocol):
    def respond(self, skill: str, inputs: dict, schema: dict) -> dict: ...


_brain: OfflineBrain | None = None
_register_lock = threading.Lock()


def set_offline_brain(brain: OfflineBrain | None) -> None:
    """Install the rule-based generator that answers `genesis/offline` calls (None removes it)."""
    global _brain
    if brain is not None and not callable(getattr(brain, "respond", None)):
        raise TypeError(f"{type(brain).__name__} has no respond(skill, inputs, schema) method")
    _brain = brain


def install_embedded_brain() -> None:
    """Register the embedded rule-based brain: the one place outside genesis/offline that imports it."""
    from genesis.offline.brain import OfflineBrain as EmbeddedBrain

    set_offline_brain(EmbeddedBrain())


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


class OfflineProvider(CustomLLM):
    """litellm CustomLLM that forwards (skill, inputs, schema) to the registered brain."""

    def completion(self, model: str, messages: list, api_base: str, custom_prompt_dict: dict,
                   model_response: Any, print_verbose: Any, encoding: Any, api_key: Any,
                   logging_obj: Any, optional_params: dict, acompletion: Any = None,
                   litellm_params: dict | None = None, logger_fn: Any = None, headers: dict | None = None,
                   timeout: Any = None, client: Any = None) -> Any:
        # status_code makes litellm map these to BadRequestError (not retried by the client)
        # instead of a generic APIConnectionError with a "bug in LiteLLM" notice.
        call = ((litellm_params or {}).get("metadata") or {}).get(METADATA_KEY)
        if not isinstance(call, dict) or "skill" not in call:
            raise CustomLLMError(400, "genesis/offline needs metadata={'genesis': {'skill', 'inputs', "
                                      "'schema'}}; call it through genesis.llm.LLMClient")
        brain = _brain
        if brain is None:
            raise CustomLLMError(400, "no offline brain registered: call genesis.llm.set_offline_brain(brain) "
                                      "before using model 'genesis/offline'")
        skill = call["skill"]
        try:
            answer = brain.respond(skill, call.get("inputs") or {}, call.get("schema") or {})
        except Exception as exc:  # the brain's own bug: report where it happened
            where = traceback.extract_tb(exc.__traceback__)[-1]
            raise CustomLLMError(400, f"offline brain failed on skill {skill!r}: {type(exc).__name__}: "
                                      f"{exc} (at {where.filename}:{where.lineno})") from exc
        if not isinstance(answer, dict):
            raise CustomLLMError(400, f"offline brain returned {type(answer).__name__} for skill {skill!r}; "
                                      "respond() must return a dict")
        content = json.dumps(answer, ensure_ascii=False, default=str)
        prompt_text = "".join(m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
                              for m in messages)
        # What a real model would be sent: the messages (they already render the inputs).
        prompt_tokens = estimate_tokens(prompt_text)
        completion_tokens = estimate_tokens(content)
        model_response.choices[0].message.content = content
        model_response.model = OFFLINE_MODEL
        model_response.usage = Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                                     total_tokens=prompt_tokens + completion_tokens)
        return model_response


class DeferredEncoding:
    """litellm's default tokenizer, loaded when first used. litellm hands it to every custom
    provider on every call and loads it (about 0.4 s of CPU) on the first one; the offline provider
    never tokenizes, so an offline generation need not wait for it."""

    def __init__(self) -> None:
        self.loaded = None
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        with self._lock:
            if self.loaded is None:
                from litellm._lazy_imports import get_default_encoding

                self.loaded = get_default_encoding()
        return getattr(self.loaded, name)


def _defer_default_encoding() -> None:
    """Puts a DeferredEncoding where litellm looks for its default tokenizer, unless it is loaded."""
    import litellm.main as litellm_main

    if "encoding" not in vars(litellm_main) and getattr(litellm_main, "_encoding_cache", None) is None:
        litellm_main.encoding = DeferredEncoding()


def register_offline_provider() -> None:
    """Add the `genesis` provider to litellm once (idempotent, keeps other custom providers)."""
    with _register_lock:
        if any(item.get("provider") == PROVIDER for item in litellm.custom_provider_map):
            return
        _defer_default_encoding()
        litellm.custom_provider_map = [*litellm.custom_provider_map,
                                       {"provider": PROVIDER, "custom_handler": OfflineProvider()}]
