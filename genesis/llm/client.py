"""LLMClient: every model call of the pipeline, through litellm, with structured output.

One `complete()` = up to 1 + max_retries attempts. An attempt is retried when the reply is unusable:
not a JSON object valid for the output model, over `max_reply_chars`, or a response of the wrong
shape (no choices, no content, wrong types); the latest rejected reply goes back to the model, cut
to an excerpt, with its error. A timeout is retried the same way; `timeout` bounds each try as a
whole (a reply trickling in byte by byte is cut off at it, and its slot freed). Infrastructure failures (rate
limits, overload, server and connection errors) are retried inside one attempt with exponential
backoff and jitter, never shorter than the server's Retry-After (tenacity); when they outlast
`infra_retries`, `ModelUnavailableError` stops the run as an infrastructure error, which is no
verdict on the scenario; so does a response the server broke (a body that is not a completion, no
choices) on every attempt. Anything else (bad request, a prompt over the context window, auth,
missing offline brain) fails at once: the same request would fail the same way. Hosted requests
hold a per-model slot (`max_concurrency`). Every attempt is counted in `usage` and transcribed.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import io
import itertools
import json
import os
import random
import re
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import httpx
import litellm
import openai
import tenacity
from pydantic import BaseModel, ValidationError

from genesis.llm.config import ModelConfig, RoleConfig
from genesis.llm.deadline import CallDeadlineExceeded, call_with_deadline
from genesis.llm.limits import SlotWaitTimeout, model_slot, retry_after_seconds
from genesis.llm.offline_provider import METADATA_KEY, register_offline_provider
from genesis.llm.schema_text import schema_text
from genesis.llm.transcript import CALL_PLAN, ReplayIndex, ReplayMismatch, Transcript
from genesis.llm.usage import Usage

T = TypeVar("T", bound=BaseModel)

# Retried with backoff inside one attempt: the endpoint, not the reply, is the problem.
_INFRA = (litellm.RateLimitError, litellm.ServiceUnavailableError, litellm.APIConnectionError,
          litellm.InternalServerError, litellm.BadGatewayError)
# Behind a litellm 500, these mean the server or the network failed (not the reply's content).
_TRANSPORT = (httpx.HTTPStatusError, httpx.TransportError, openai.APIStatusError, openai.APIConnectionError,
              ConnectionError)
# Errors a retry cannot fix: the pipeline stops at once instead of spending its iteration budget.
_PERMANENT = {
    litellm.ContextWindowExceededError: "the prompt does not fit the model's context window: use a model with a "
                                        "larger context, or start the local server with a larger one "
                                        "(e.g. llama.cpp --n_ctx 16384)",
    litellm.AuthenticationError: "the model provider rejected the credentials: check the API key",
    litellm.PermissionDeniedError: "the model provider denied access to this model",
    litellm.NotFoundError: "the model or the endpoint does not exist: check --model and --api-base",
}
# The settings themselves are wrong: ModelConfigurationError, exit 2 (the last two come back from litellm as a
# BadRequestError and, for a missing key, an InternalServerError whose message says so).
_CONFIGURATION = {
    litellm.AuthenticationError: _PERMANENT[litellm.AuthenticationError],
    litellm.PermissionDeniedError: _PERMANENT[litellm.PermissionDeniedError],
    litellm.NotFoundError: _PERMANENT[litellm.NotFoundError],
}
_CONFIGURATION_MESSAGES = {
    "LLM Provider NOT provided": "no litellm provider serves this model: name one as PROVIDER/MODEL",
    "Missing credentials": "no API key: set the provider's key in the environment, or api_key_env in genesis.yaml",
}
_PLACEHOLDER_KEY = "sk-local-no-key"  # local OpenAI-compatible servers ignore it; the SDK needs one
_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
REJECTED_EXCERPT_CHARS = 6_000  # how much of a rejected reply goes back to the model
_BACKOFF_INITIAL_S = 1.0


class ModelCallError(RuntimeError):
    """A model call failed for good (after retries, or at once for non-transient errors).

    `permanent` says what to change when no retry of the run can succeed (context too small, bad key, ...)."""

    def __init__(self, role: str, skill: str, model: str, cause: str, attempts: int, permanent: str = "") -> None:
        self.role, self.skill, self.model, self.cause, self.attempts = role, skill, model, cause, attempts
        self.permanent = permanent
        super().__init__(f"model call failed: role={role} skill={skill} model={model} "
                         f"after {attempts} attempt(s): {cause}" + (f" ({permanent})" if permanent else ""))


class ModelUnavailableError(BaseException):
    """The model endpoint stayed rate-limited, overloaded or unreachable through every backoff retry,
    or answered every attempt with a response that is no completion (not JSON, no choices).

    A BaseException, like KeyboardInterrupt: it must pass through every stage's `except Exception`
    (those turn failures into verdicts on the scenario, and this is none); the runner records the
    run as `infra_error`, resumable from its last checkpoint."""

    def __init__(self, role: str, skill: str, model: str, cause: str, tries: int) -> None:
        self.role, self.skill, self.model, self.cause, self.tries = role, skill, model, cause, tries
        super().__init__(f"model endpoint unavailable: role={role} skill={skill} model={model}, "
                         f"{tries} tries with backoff: {cause}")


class ModelConfigurationError(BaseException):
    """The provider refused the settings themselves (credentials, an unknown model or endpoint): no retry and
    no other scenario can succeed. A BaseException, like ModelUnavailableError, so no stage turns it into a
    verdict; the runner reports it as bad configuration."""

    def __init__(self, role: str, model: str, cause: str, hint: str) -> None:
        self.role, self.model, self.cause, self.hint = role, model, cause, hint
        super().__init__(f"model {model!r} (role {role}): {hint} ({cause})")


class OutputParseError(ValueError):
    """The reply held no JSON object that validates against the output model."""


class MalformedResponse(OutputParseError):
    """The response itself has the wrong shape (no choices, no message, content that is not text): the
    server or a proxy broke it, not the model; when every attempt gets one, the endpoint is unusable."""


# strict=False: small local models put raw newlines inside JSON strings, which llama.cpp's grammar allows.
_DECODER = json.JSONDecoder(strict=False)


def _json_objects(text: str) -> tuple[list[dict[str, Any]], str | None]:
    """Top-level JSON objects in `text` (```json fences first), and the first JSON syntax error met.

    Scanning a text stops at its first broken object: what follows may be nested inside it, and a
    nested fragment (say an empty `{}`) must never pass for the answer.
    """
    fenced = re.findall(r"```(?:json|JSON)?\s*\n?(.*?)```", text, flags=re.DOTALL)
    found: list[dict[str, Any]] = []
    first_error: str | None = None
    for candidate in (*fenced, text):
        pos = candidate.find("{")
        while pos != -1:
            try:
                value, end = _DECODER.raw_decode(candidate, pos)
            except json.JSONDecodeError as exc:
                first_error = first_error or f"{exc.msg} at character {exc.pos}"
                break
            if isinstance(value, dict):
                found.append(value)
            pos = candidate.find("{", end)
    return found, first_error


def extract_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in `text`, tolerating ```json fences and chatter around it."""
    found, _ = _json_objects(text)
    if found:
        return found[0]
    snippet = text.strip()[:200] or "<empty reply>"
    raise OutputParseError(f"no JSON object found in the reply: {snippet!r}")


def _validation_details(exc: ValidationError, limit: int = 8) -> str:
    errors = exc.errors()
    details = "; ".join(f"{'.'.join(map(str, e['loc'])) or '<root>'}: {e['msg']}" for e in errors[:limit])
    return details + (f"; and {len(errors) - limit} more" if len(errors) > limit else "")


def parse_output(text: str, output_model: type[T]) -> T:
    """The first top-level JSON object of the reply that validates against `output_model`."""
    found, syntax_error = _json_objects(text)
    if not found:
        snippet = text.strip()[:200] or "<empty reply>"
        if syntax_error:
            raise OutputParseError(f"the reply is not valid JSON ({syntax_error}): {snippet!r}")
        raise OutputParseError(f"no JSON object found in the reply: {snippet!r}")
    failures = []
    for data in found:
        try:
            return output_model.model_validate(data)
        except ValidationError as exc:
            failures.append(exc)
    raise OutputParseError(f"JSON does not match {output_model.__name__}: {_validation_details(failures[0])}") \
        from failures[0]


# litellm stacks class-name prefixes ("litellm.ContextWindowExceededError: litellm.BadRequestError:
# ContextWindowExceededError: OpenAIException - ...") in front of the provider's message.
_ERROR_PREFIX = re.compile(r"^(?:(?:litellm\.)?[A-Za-z]*(?:Error|Exception|Timeout)(?::|\s+-)\s*)+")


def _describe(exc: Exception) -> str:
    """`ExceptionClass: provider message`, without litellm's repeated prefixes."""
    message = str(exc)
    if type(exc).__module__.startswith("litellm"):
        message = _ERROR_PREFIX.sub("", message).strip() or message
    return f"{type(exc).__name__}: {message}"


def _png_bytes(image: bytes | Path | str) -> bytes:
    data = Path(image).read_bytes() if isinstance(image, (str, Path)) else image
    if data.startswith(_PNG_MAGIC):
        return data
    from PIL import Image  # only non-PNG input needs converting

    buf = io.BytesIO()
    Image.open(io.BytesIO(data)).save(buf, format="PNG")
    return buf.getvalue()


def _elide_images(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copy of the messages with each data-URI image replaced by its sha256 (keeps transcripts small)."""
    out = []
    for msg in messages:
        content = msg.get("content")
        if isinstance(content, list):
            parts = []
            for part in content:
                url = part.get("image_url", {}).get("url", "") if part.get("type") == "image_url" else ""
                if url.startswith("data:"):
                    raw = base64.b64decode(url.split(",", 1)[1])
                    part = {"type": "image_url", "image_url": {"url": f"sha256:{hashlib.sha256(raw).hexdigest()}",
                                                               "bytes": len(raw)}}
                parts.append(part)
            msg = {**msg, "content": parts}
        out.append(msg)
    return out


def _configuration_hint(exc: BaseException) -> str:
    """What to change when the provider refused the settings themselves; "" for any other failure."""
    hint = next((hint for cls, hint in _CONFIGURATION.items() if isinstance(exc, cls)), "")
    text = str(exc)
    return hint or next((hint for marker, hint in _CONFIGURATION_MESSAGES.items() if marker in text), "")


def _is_infra(exc: BaseException) -> bool:
    """Rate limit, overload, server or connection failure. litellm also reports a response body it
    could not read as a 500: with no HTTP error or connection failure behind it, that is a malformed
    reply, retried as one."""
    if isinstance(exc, SlotWaitTimeout):
        return True
    if not isinstance(exc, _INFRA):
        return False
    if isinstance(exc, litellm.InternalServerError):
        return any(isinstance(cause, _TRANSPORT) for cause in _causes(exc))
    return True


def _unreadable_response(exc: BaseException) -> bool:
    """litellm could not turn the response body into a completion (wrong types, not JSON, not an object)."""
    return isinstance(exc, litellm.InternalServerError) and not _is_infra(exc)


def _causes(exc: BaseException) -> list[BaseException]:
    """What `exc` was raised from, nearest first (bounded: chains can be cyclic)."""
    found: list[BaseException] = []
    cause = exc.__cause__ or exc.__context__
    while cause is not None and len(found) < 16 and cause not in found:
        found.append(cause)
        cause = cause.__cause__ or cause.__context__
    return found


class _WaitRetryAfter(tenacity.wait.wait_base):
    """Exponential backoff with jitter (1, 2, 4, ... s), never shorter than the server's Retry-After,
    never longer than `maximum` seconds."""

    def __init__(self, maximum: float) -> None:
        self.maximum = maximum
        self.backoff = tenacity.wait_exponential_jitter(initial=_BACKOFF_INITIAL_S, max=maximum, jitter=1)

    def __call__(self, retry_state: tenacity.RetryCallState) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        hinted = retry_after_seconds(exc) if exc is not None else None
        wait = self.backoff(retry_state)
        if hinted is not None:
            wait = max(wait, hinted + random.uniform(0, 1))  # jitter: workers told the same time do not all return at once
        return min(wait, self.maximum)


def _reply(response: Any) -> tuple[str, str | None]:
    """Text and finish reason of the first choice; MalformedResponse for any other shape."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, (list, tuple)) or not choices:
        raise MalformedResponse(f"the response has no choices ({excerpt(repr(choices), 200)})")
    choice = choices[0]
    finish = getattr(choice, "finish_reason", None)
    finish = finish if isinstance(finish, str) else None
    message = getattr(choice, "message", None)
    content = getattr(message, "content", None) if message is not None else None
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        texts = [part.get("text") if isinstance(part, dict) else getattr(part, "text", None) for part in content]
        content = "".join(texts) if texts and all(isinstance(t, str) for t in texts) else content
    if content is None or content == "":  # the model said nothing (e.g. its tokens all went to reasoning)
        raise OutputParseError("the reply is empty" + (f" (finish_reason={finish})" if finish else ""))
    if not isinstance(content, str):
        raise MalformedResponse(f"the reply content is a {type(content).__name__}, not text: "
                                f"{excerpt(repr(content), 200)}")
    return content, finish


def _count(value: Any) -> int:
    """A token count as the provider sent it; anything that is not a count is 0."""
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        return 0


def excerpt(text: str, limit: int) -> str:
    """`text` cut to about `limit` characters: its head and tail, with how much was left out."""
    if len(text) <= limit:
        return text
    head, tail = limit * 3 // 4, limit // 4
    return f"{text[:head]}\n[... {len(text) - head - tail:,} characters cut ...]\n{text[len(text) - tail:]}"


@functools.cache
def _schema_json(model: type[BaseModel]) -> str:
    """The JSON schema of a model, generated once per process (pydantic rebuilds it on every call,
    a large share of a call for the documents that embed a level)."""
    return json.dumps(model.model_json_schema())


# defaults too: a default constrains no reply, and the prompt's copy of the schema states each one;
# a discriminator only names the tag that the oneOf's members already fix with their consts
_ANNOTATIONS = ("description", "title", "examples", "default", "discriminator")


def lean_schema(node: Any) -> Any:
    """A JSON schema without its annotations (descriptions, titles, examples, defaults): what the request's
    response_format carries, since the system message already gives the schema with its descriptions
    (each annotation would be paid for twice). Property and definition names are kept, and so is an optional
    property's null: the prompt says "or null", and a server that turns the schema into a grammar must let a
    model write it."""
    if isinstance(node, list):
        return [lean_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k in _ANNOTATIONS and (k in ("default", "discriminator") or not isinstance(v, dict)):
            continue
        out[k] = ({name: lean_schema(sub) for name, sub in v.items()} if k in ("properties", "$defs", "definitions")
                  and isinstance(v, dict) else lean_schema(v))
    return out


def prompt_size(messages: list[dict[str, Any]], response_format: dict[str, Any]) -> dict[str, int]:
    """What a request carries: `prompt_chars`, its messages' text (images not counted), and `schema_chars`,
    its response_format (which a provider may turn into a grammar or read as prompt)."""
    text = sum(len(m["content"]) if isinstance(m.get("content"), str) else
               sum(len(p.get("text", "")) for p in m.get("content") or [] if p.get("type") == "text")
               for m in messages)
    return {"prompt_chars": text, "schema_chars": len(json.dumps(response_format))}


def _inputs_hash(inputs: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()


class LLMClient:
    """Structured model calls per role, counted, transcribed and optionally replayed."""

    def __init__(self, config: ModelConfig, transcript: Transcript, *, replay: Transcript | None = None) -> None:
        litellm.telemetry = False
        litellm.drop_params = True
        litellm.suppress_debug_info = True
        register_offline_provider()
        self.config = config
        self.transcript = transcript
        self.usage = Usage()
        self._replay = ReplayIndex(replay) if replay is not None else None
        self._call_ids = itertools.count(1)  # next() is atomic: safe if agents run in threads
        self.sleep = time.sleep  # the backoff's sleep; tests record the waits instead

    # ---- public -------------------------------------------------------------------------
    def complete(self, role: str, skill: str, prompt: str | list[dict[str, Any]], output_model: type[T], *,
                 stage: str, inputs: dict[str, Any], images: list[bytes | Path] | None = None,
                 described: frozenset[str] = frozenset(), shown: type[BaseModel] | None = None) -> T:
        """`described`: the models whose fields the prompt itself lists (the prompt's copy of the schema
        leaves their descriptions out); `shown`: the model whose schema the prompt and the request's
        response_format carry, when the prompt asks only for a part of what `output_model` accepts (the
        reply is still validated as `output_model`)."""
        cfg = self.config.for_role(role)
        base = {"call": next(self._call_ids), "role": role, "skill": skill, "stage": stage, "model": cfg.model,
                "backend": self.backend_name(role), "inputs_sha256": _inputs_hash(inputs)}
        schema = json.loads(_schema_json(shown or output_model))
        if self._replay is not None:
            # built in a replay too, so that a replay measures what today's prompts would send (images are
            # neither counted nor read: a replay needs none of the frames)
            return self._complete_from_replay(base, output_model, self._build_messages(prompt, schema, None, described),
                                              schema)
        request_messages = self._build_messages(prompt, schema, images, described)
        messages = request_messages
        attempts = cfg.max_retries + 1
        for attempt in range(1, attempts + 1):
            request = self._request(cfg, messages, schema, output_model, skill=skill, inputs=inputs, role=role,
                                    stage=stage)
            size = prompt_size(messages, request["response_format"])
            record = {**base, "attempt": attempt, "messages": _elide_images(messages), **size}
            started = time.perf_counter()
            try:
                response, started = self._send(cfg, request, record, stage)
            except Exception as exc:  # litellm maps provider failures onto its exception classes
                latency = (time.perf_counter() - started) * 1000
                unreadable = _unreadable_response(exc)
                cause = excerpt(f"malformed response: {_describe(exc)}" if unreadable else _describe(exc), 1_000)
                self.usage.record_call(stage, ok=False, latency_ms=latency, model=cfg.model,
                                       **size)
                final = not (isinstance(exc, (litellm.Timeout, CallDeadlineExceeded)) or unreadable) \
                    or attempt == attempts
                self._log(record, ok=False, final=final, error=cause,
                          error_type="MalformedResponse" if unreadable else type(exc).__name__, latency_ms=latency)
                configuration = _configuration_hint(exc)
                if configuration:
                    raise ModelConfigurationError(role, cfg.model, cause, configuration) from exc
                if final and unreadable:
                    raise ModelUnavailableError(role, skill, cfg.model, cause, attempt) from exc
                if final:
                    permanent = next((hint for cls, hint in _PERMANENT.items() if isinstance(exc, cls)), "")
                    raise ModelCallError(role, skill, cfg.model, cause, attempt, permanent) from exc
                continue

            latency = (time.perf_counter() - started) * 1000
            tokens = self._tokens(response)
            cost = self._cost(cfg, response)
            text, finish_reason = "", None
            try:
                text, finish_reason = _reply(response)
                if len(text) > cfg.max_reply_chars:
                    raise OutputParseError(f"the reply is {len(text):,} characters long; the limit is "
                                           f"{cfg.max_reply_chars:,} (max_reply_chars)")
                output = parse_output(text, output_model)
            except OutputParseError as exc:
                cause = str(exc)
                if finish_reason == "length":
                    cause += (f" (the reply was cut off after {tokens['completion_tokens']} tokens: "
                              f"max_tokens={cfg.max_tokens} or the model's context is too small)")
                self.usage.record_call(stage, ok=False, latency_ms=latency, cost_usd=cost, model=cfg.model,
                                       **size, **tokens)
                final = attempt == attempts
                self._log(record, ok=False, final=final, response_text=excerpt(text, cfg.max_reply_chars),
                          response_chars=len(text), finish_reason=finish_reason, error=cause,
                          error_type=type(exc).__name__, latency_ms=latency, cost_usd=cost, **tokens)
                if final and isinstance(exc, MalformedResponse):
                    raise ModelUnavailableError(role, skill, cfg.model, f"malformed response: {cause}", attempt) \
                        from exc
                if final:
                    raise ModelCallError(role, skill, cfg.model, cause, attempt) from exc
                # Only the latest rejected reply goes back, as an excerpt: the conversation must not
                # outgrow a small context, nor resend a runaway reply on every retry.
                messages = [*request_messages, {"role": "assistant", "content": excerpt(text, REJECTED_EXCERPT_CHARS)},
                            {"role": "user", "content": f"Your reply was rejected: {excerpt(cause, 2_000)}\n"
                                                        "Reply again with only the corrected JSON object."}]
                continue

            self.usage.record_call(stage, ok=True, latency_ms=latency, cost_usd=cost, model=cfg.model,
                                   **size, **tokens)
            self._log(record, ok=True, final=True, response_text=text, finish_reason=finish_reason,
                      output=output.model_dump(mode="json"), latency_ms=latency, cost_usd=cost, **tokens)
            return output
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover

    def _send(self, cfg: RoleConfig, request: dict[str, Any], record: dict[str, Any], stage: str) -> tuple[Any, float]:
        """One litellm call, retried with backoff on infrastructure failures; (response, start time of the
        successful try). Each failed try is counted and transcribed."""
        tries = itertools.count(1)

        def one_try() -> tuple[Any, float]:
            number, started = next(tries), time.perf_counter()
            try:
                if cfg.is_offline:
                    return litellm.completion(**request), started
                with model_slot(cfg.model, cfg.api_base, cfg.max_concurrency,
                                wait_s=cfg.timeout * (cfg.infra_retries + 2)):
                    started = time.perf_counter()  # waiting for a slot is not the model's latency
                    # `timeout` bounds the whole call: litellm's restarts with every byte received
                    return call_with_deadline(lambda: litellm.completion(**request), cfg.timeout,
                                              f"{cfg.model} ({record['role']}/{record['skill']})"), started
            except Exception as exc:
                if _is_infra(exc):
                    latency = (time.perf_counter() - started) * 1000
                    last = number > cfg.infra_retries or isinstance(exc, SlotWaitTimeout)
                    self.usage.record_call(stage, ok=False, latency_ms=latency, model=cfg.model,
                                           prompt_chars=record["prompt_chars"], schema_chars=record["schema_chars"])
                    self._log({**record, "try": number}, ok=False, final=last, error=excerpt(_describe(exc), 1_000),
                              error_type=type(exc).__name__, retry_after_s=retry_after_seconds(exc),
                              latency_ms=latency)
                raise

        retrying = tenacity.Retrying(  # a slot wait already lasted long enough: it is not waited out again
            retry=tenacity.retry_if_exception(lambda e: _is_infra(e) and not isinstance(e, SlotWaitTimeout)),
            stop=tenacity.stop_after_attempt(cfg.infra_retries + 1),
            wait=_WaitRetryAfter(cfg.backoff_max), sleep=self.sleep, reraise=True)
        try:
            return retrying(one_try)
        except Exception as exc:
            if not _is_infra(exc):
                raise
            raise ModelUnavailableError(record["role"], record["skill"], cfg.model, excerpt(_describe(exc), 1_000),
                                        next(tries) - 1) from exc

    # ---- internals ----------------------------------------------------------------------
    @staticmethod
    def _build_messages(prompt: str | list[dict[str, Any]], schema: dict[str, Any],
                        images: list[bytes | Path] | None, described: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else [dict(m) for m in prompt]
        instruction = ("Answer with one JSON object and nothing else. It must validate against the request's JSON "
                       f"schema, which reads:\n{schema_text(schema, described)}")
        if messages and messages[0].get("role") == "system" and isinstance(messages[0].get("content"), str):
            messages[0] = {**messages[0], "content": f"{messages[0]['content']}\n\n{instruction}"}
        else:
            messages.insert(0, {"role": "system", "content": instruction})
        if images:
            last = messages[-1]
            parts = [{"type": "text", "text": last["content"]}] if isinstance(last["content"], str) else list(last["content"])
            for image in images:
                b64 = base64.b64encode(_png_bytes(image)).decode("ascii")
                parts.append({"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64}"}})
            messages[-1] = {**last, "content": parts}
        return messages

    @staticmethod
    def _request(cfg: RoleConfig, messages: list[dict[str, Any]], schema: dict[str, Any],
                 output_model: type[BaseModel], **call: Any) -> dict[str, Any]:
        lean = lean_schema(schema)
        if cfg.structured_output == "json_schema":
            response_format: dict[str, Any] = {"type": "json_schema", "json_schema": {
                "name": output_model.__name__, "schema": lean, "strict": False}}
        elif cfg.api_base:
            # a self-hosted server: llama.cpp-style servers turn a JSON-mode schema into a grammar
            response_format = {"type": "json_object", "schema": lean}
        else:
            # a hosted provider's JSON mode reads no schema (litellm maps only json_schema's to Anthropic,
            # Ollama and Gemini; OpenAI's ignores it), nor does the offline backend: the system message's
            # copy is the one the model reads
            response_format = {"type": "json_object"}
        request: dict[str, Any] = {
            "model": cfg.model, "messages": messages, "response_format": response_format,
            "temperature": cfg.temperature, "timeout": cfg.timeout, "drop_params": True,
            "max_retries": 0,  # retries are ours, so that every attempt is counted and transcribed
        }
        if cfg.max_tokens:
            request["max_tokens"] = cfg.max_tokens
        if cfg.is_offline:
            request["metadata"] = {METADATA_KEY: {**call, "schema": schema}}
            return request
        if cfg.api_base:
            request["api_base"] = cfg.api_base
        if cfg.api_key_env:
            request["api_key"] = os.environ.get(cfg.api_key_env) or None
        elif cfg.api_base:
            request["api_key"] = _PLACEHOLDER_KEY
        return request

    @staticmethod
    def _tokens(response: Any) -> dict[str, int]:
        usage = getattr(response, "usage", None)
        return {key: _count(getattr(usage, key, 0)) for key in ("prompt_tokens", "completion_tokens")}

    @staticmethod
    def _cost(cfg: RoleConfig, response: Any) -> float:
        if cfg.is_offline:
            return 0.0
        try:
            return float(litellm.completion_cost(completion_response=response) or 0.0)
        except Exception:  # unknown / local models have no price entry: cost unknown counts as 0
            return 0.0

    def _log(self, record: dict[str, Any], **fields: Any) -> None:
        entry = {"v": self.call_plan, "ts": datetime.now(timezone.utc).isoformat(timespec="milliseconds"), **record,
                 "replayed": False, "response_text": None, "finish_reason": None, "output": None, "error": None,
                 "error_type": None, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0, **fields}
        entry["latency_ms"] = round(entry.get("latency_ms", 0.0), 1)
        self.transcript.append(entry)

    @property
    def call_plan(self) -> int:
        """The stage call plan this run follows (transcript.CALL_PLAN; a replay keeps its recording's)."""
        return self._replay.call_plan if self._replay is not None else CALL_PLAN

    def backend_name(self, role: str) -> str:
        """What answers `role`: the configured backend, or in a replay the recorded one."""
        if self._replay is not None:
            # A role with no recorded call: a visual review was offline (a model reviewer is called on every level
            # attempt); a PM or developer the run never needed had the designer's backend (--model sets every agent)
            unrecorded = "offline" if role == "vlm" else self._replay.backends.get("designer", "offline")
            return f"replay of {self._replay.backends.get(role, unrecorded)}"
        return self.config.backend_name(role)

    def _complete_from_replay(self, base: dict[str, Any], output_model: type[T], messages: list[dict[str, Any]],
                              schema: dict[str, Any]) -> T:
        """The recorded answer; the log holds the messages today's prompts build (what a model would be sent)."""
        assert self._replay is not None
        index, recorded = self._replay.next(base["role"], base["skill"], base["stage"])
        cfg = self.config.for_role(base["role"])
        size = prompt_size(messages, self._request(cfg, messages, schema, output_model)["response_format"])
        base = {**base, "messages": _elide_images(messages), **size}
        self.usage.record_replay(base["stage"], **size)
        where = f"recorded call #{index + 1} of {base['role']}/{base['skill']}/{base['stage']}"
        if not recorded.get("ok"):
            # The recorded run failed here; replaying it must fail the same way.
            self._log({**base, "attempt": recorded.get("attempt", 1)}, ok=False, final=True, replayed=True,
                      error=recorded.get("error"), error_type=recorded.get("error_type"))
            raise ModelCallError(base["role"], base["skill"], recorded.get("model", base["model"]),
                                 f"(replayed) {recorded.get('error')}", recorded.get("attempt", 1))
        try:
            output = output_model.model_validate(recorded["output"])
        except ValidationError as exc:
            raise ReplayMismatch(f"{where} does not validate as {output_model.__name__}: {_validation_details(exc)}") \
                from exc
        self._log({**base, "attempt": recorded.get("attempt", 1)}, ok=True, final=True, replayed=True,
                  response_text=recorded.get("response_text"), output=recorded["output"])
        return output
