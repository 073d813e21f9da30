"""RTSGameAgent (the paper's baseline agent) as an LLM / VLM player, through litellm.

Between decisions the engine runs each squad's FSM (fight on contact, back to the prior command
when the engagement ends; move_force bypasses it) and keeps the short-term event log (enemy
sightings within allied line of sight, battle events). Every decision interval two calls run in
series, the same model by default: the memory phase consolidates the short-term log into the
long-term memory and selects the relevant entries (`genesis.play.memory`), then the decision phase
reads the text observation, the relevant memory and, for vision models, the minimap plus cameras
on the three largest groups and the home base, and replies with JSON actions for the engine's
action layer. Ablations: `memory=False` (no memory phase), `fsm=False` (no squads: per-unit
orders), `vision=False` (text only). Whatever the model returns, the episode goes on: a failed
call or a reply without usable actions becomes one invalid action with its own code.
"""
from __future__ import annotations

import base64
import dataclasses
import io
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import litellm
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.agent.actions import ERROR_CODES, SCHEMA, SQUAD_ACTIONS
from engine.agent.events import summarize
from engine.agent.knowledge import knowledge_text
from engine.agent.observation import render_text
from engine.catalog import reachable_from
from engine.level import Level
from genesis.llm.client import OutputParseError, extract_json_object
from genesis.llm.deadline import call_with_deadline
from genesis.llm.prompts import render
from genesis.play.agents import Decision
from genesis.play.memory import ENTRY_CHARS, MAX_ENTRIES, MAX_RELEVANT, AgenticMemory

PROMPTS = Path(__file__).resolve().parent / "prompts"
LOCAL_KEY = "sk-local-no-key"     # local OpenAI-compatible servers ignore the key; the SDK wants one

# reply-level error codes (the action layer's own codes cover each action)
REPLY_ERRORS = {
    "llm_error": "the model call failed (timeout, connection or API error, after retries)",
    "unparsable_response": "the reply holds no JSON object / array",
    "bad_response": "the JSON is not {\"actions\": [...]}",
    "too_many_actions": "the reply held more actions than allowed; the extra ones were dropped",
}

_EXAMPLE_VALUES: dict[str, Any] = {
    "builders": [12], "units": [12, 13], "unit_type": "light_bot", "x": 30, "y": 8, "factory": 5, "count": 2,
    "mode": "move", "squad": "alpha",
}
_ACTION_HELP = {
    "build": "a builder raises a building at (x, y); extractors go on metal deposits",
    "produce": "a finished factory queues count units (default 1)",
    "move_units": "direct order for units (they leave their squad); mode: move | move_force | fight | patrol",
    "stop_units": "units drop their orders",
    "assign_squad": "put mobile units into a named squad (created if new)",
    "squad_move": "the squad travels to (x, y), fighting on contact",
    "squad_move_force": "the squad travels to (x, y) ignoring enemies",
    "squad_stop": "the squad halts",
}


class LLMSettings(BaseModel):
    model: str
    api_base: str | None = None
    api_key_env: str | None = None        # name of the env var holding the key (else litellm's defaults)
    vision: bool | None = None            # None: ask litellm whether the model takes images
    temperature: float = 0.2
    max_tokens: int = 800
    timeout: float = 60.0
    num_retries: int = 2
    json_mode: bool = True                # response_format json_object (dropped where unsupported)
    memory: bool = True                   # the memory phase before each decision (False: "w/o memory")
    memory_model: str | None = None       # model of the memory phase (default: the decision model)
    fsm: bool = True                      # squads run by their FSM (False: "w/o FSM", per-unit orders)
    max_actions: int = Field(16, ge=1)
    minimap_size: int = 384
    camera_size: int = 256
    full_roster: bool = False             # False: describe only the unit types that can occur in the level


class AgentReply(BaseModel):
    model_config = ConfigDict(extra="ignore")
    actions: list[Any]
    thoughts: str | None = None


class ReplyError(ValueError):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def _json_candidates(text: str) -> list[str]:
    fenced = re.findall(r"```(?:json|JSON)?\s*\n?(.*?)```", text, flags=re.DOTALL)
    return [*fenced, text]


def parse_reply(text: str) -> AgentReply:
    """The reply as {"actions": [...]}: a JSON object, a bare list of actions or a single action,
    fenced or surrounded by chatter. Raises ReplyError(unparsable_response | bad_response)."""
    if not text.strip():
        raise ReplyError("unparsable_response", "empty reply")
    value: Any = None
    for candidate in _json_candidates(text):
        try:
            value = json.loads(candidate.strip())
            break
        except json.JSONDecodeError:
            continue
    if not isinstance(value, (dict, list)):
        try:
            value = extract_json_object(text)
        except OutputParseError as exc:
            raise ReplyError("unparsable_response", str(exc)) from None
    if isinstance(value, list):
        value = {"actions": value}
    elif "action" in value and "actions" not in value:
        value = {"actions": [value]}
    try:
        return AgentReply.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "<root>"
        raise ReplyError("bad_response", f"{where}: {first['msg']}") from None


def action_catalogue(fsm: bool = True) -> list[dict[str, str]]:
    """One example line per action kind, built from the action layer's schema (no squad actions
    without the FSM)."""
    out = []
    for kind, (required, optional) in SCHEMA.items():
        if not fsm and kind in SQUAD_ACTIONS:
            continue
        example = {"action": kind, **{f: _EXAMPLE_VALUES[f] for f in (*required, *optional)}}
        if kind == "build":
            example["unit_type"] = "metal_extractor"
        out.append({"example": json.dumps(example), "help": _ACTION_HELP.get(kind, "")})
    return out


def level_roster(level: Level) -> Level:
    """The level with its catalog cut to the types that can occur in it: start units, types named by
    its rules / conditions / AI controllers, and with production on whatever those can build (the
    whole roster is ~4k tokens, more than a small model's context). Build options are cut alike."""
    cat, cfg = level.catalog, level.config
    kinds = {p.type for p in level.placements}
    named = json.dumps([r.params for r in cfg.rules] + [c.model_dump() for c in cfg.conditions]
                       + [t.controller.model_dump() for t in cfg.teams], default=str)
    kinds |= {k for k in cat.units if f'"{k}"' in named}
    if cfg.switches.production:
        kinds = reachable_from(cat, roots=tuple(kinds))
    # a factory's build options outside the cut (production off) do not occur in the level either
    units = {k: u.model_copy(update={"builds": [b for b in u.builds if b in kinds]})
             for k, u in cat.units.items() if k in kinds}
    return dataclasses.replace(level, catalog=cat.model_copy(update={"units": units}))


def _png_data_url(image) -> str:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _compact(value: Any, limit: int = 400) -> str:
    text = json.dumps(value, separators=(",", ":"), default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class LLMAgent:
    name = "llm"

    def __init__(self, settings: LLMSettings, level: Level, team: int, decision_interval: float):
        litellm.suppress_debug_info = True
        litellm.telemetry = False
        self.settings = settings
        self.team = team
        self.vision = settings.vision if settings.vision is not None else self._supports_vision(settings.model)
        briefing_level = level if settings.full_roster else level_roster(level)
        knowledge = knowledge_text(briefing_level, team)
        codes = {k: v for k, v in {**ERROR_CODES, **REPLY_ERRORS}.items() if settings.fsm or k != "unknown_squad"}
        self.system_prompt = render(PROMPTS / "system.j2", team=team, knowledge=knowledge,
                                    interval=f"{decision_interval:g}", max_actions=settings.max_actions,
                                    actions=action_catalogue(settings.fsm), error_codes=codes,
                                    fsm=settings.fsm, memory=settings.memory)
        self.memory_prompt = render(PROMPTS / "memory_system.j2", team=team, knowledge=knowledge,
                                    interval=f"{decision_interval:g}", max_entries=MAX_ENTRIES,
                                    entry_chars=ENTRY_CHARS, max_relevant=MAX_RELEVANT)
        self._reset()

    def _supports_vision(self, model: str) -> bool:
        try:
            return bool(litellm.supports_vision(model=model))
        except Exception:  # unknown models: litellm cannot tell, so send text only
            return False

    def _reset(self) -> None:
        self.memory = AgenticMemory(lambda prompt: self._call(prompt, self.memory_prompt, self.settings.memory_model),
                                    lambda **ctx: render(PROMPTS / "memory.j2", **ctx))
        self.last_orders: str | None = None
        self.calls = self.failed_calls = self.prompt_tokens = self.completion_tokens = 0
        self.memory_calls = 0
        self.latency_s = 0.0

    # --- Agent protocol --------------------------------------------------------------------------
    def start(self, sim, iface) -> None:
        self._reset()
        if self.settings.memory:
            iface.keep_events()

    def decide(self, sim, iface, observation: dict) -> Decision:
        relevant: list[str] = []
        memory_record = None
        if self.settings.memory:
            self.memory_calls += 1
            relevant, memory_record = self.memory.consolidate(self._short_term(iface, observation), observation["time"])
        prompt, content = self._user_message(sim, iface, observation, relevant)
        decision = Decision(observation=prompt, memory=memory_record)
        text, usage, failure = self._call(content, self.system_prompt)
        decision.usage = usage
        decision.response = text
        if failure is not None:
            decision.error_code, decision.error = "llm_error", failure
        else:
            try:
                reply = parse_reply(text)
            except ReplyError as exc:
                decision.error_code, decision.error = exc.code, str(exc)
            else:
                decision.actions = reply.actions[: self.settings.max_actions]
                extra = len(reply.actions) - self.settings.max_actions
                if extra > 0:
                    decision.error_code = "too_many_actions"
                    decision.error = f"{extra} action(s) over the limit of {self.settings.max_actions} were dropped"
        self.last_orders = (f"t={observation['time']:g}s: you ordered {_compact(decision.actions, 300)}"
                            + (f"; reply error: {decision.error_code}" if decision.error_code else ""))
        return decision

    def usage(self) -> dict:
        return {"calls": self.calls, "memory_calls": self.memory_calls, "failed_calls": self.failed_calls,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "latency_s": round(self.latency_s, 3)}

    # --- memory ----------------------------------------------------------------------------------
    def _short_term(self, iface, observation: dict) -> list[str]:
        """The event log since the last decision, plus how the agent's last orders fared."""
        lines = []
        if self.last_orders is not None:
            errors = [f"action {e['index']}: {e['code']}" for e in observation.get("last_action_errors", [])]
            lines.append(self.last_orders + (f"; rejected {', '.join(errors)}" if errors else "; all accepted"))
        return lines + (summarize(iface.events.drain()) if iface.events is not None else [])

    # --- the model call --------------------------------------------------------------------------
    def _user_message(self, sim, iface, observation: dict, memory: list[str]) -> tuple[str, Any]:
        images: dict[str, Any] = {}
        if self.vision:
            shots = iface.images(sim, minimap_size=self.settings.minimap_size, camera_size=self.settings.camera_size)
            images["minimap"] = shots["minimap"]
            for name, image in shots["cameras"].items():
                images[f"camera {name}"] = image
        prompt = render(PROMPTS / "decision.j2", memory=memory, observation=render_text(observation),
                        images=list(images))
        if not images:
            return prompt, prompt
        parts = [{"type": "text", "text": prompt}]
        parts += [{"type": "image_url", "image_url": {"url": _png_data_url(img)}} for img in images.values()]
        return prompt, parts

    def _request(self, content: Any, system: str, model: str | None = None) -> dict[str, Any]:
        s = self.settings
        request: dict[str, Any] = {
            "model": model or s.model, "messages": [{"role": "system", "content": system},
                                                    {"role": "user", "content": content}],
            "temperature": s.temperature, "max_tokens": s.max_tokens, "timeout": s.timeout,
            "num_retries": s.num_retries, "drop_params": True,
        }
        if s.json_mode:
            request["response_format"] = {"type": "json_object"}
        if s.api_base:
            request["api_base"] = s.api_base
        key = os.environ.get(s.api_key_env) if s.api_key_env else None
        if key or s.api_base:
            request["api_key"] = key or LOCAL_KEY
        return request

    def _call(self, content: Any, system: str, model: str | None = None) -> tuple[str | None, dict, str | None]:
        """(reply text, usage of this call, failure message or None). Never raises."""
        started = time.perf_counter()
        self.calls += 1
        try:
            # litellm's timeout restarts with every byte: the deadline bounds the call with its retries
            response = call_with_deadline(lambda: litellm.completion(**self._request(content, system, model)),
                                          self.settings.timeout * (self.settings.num_retries + 1),
                                          f"{model or self.settings.model}")
            text = response.choices[0].message.content or ""
        except Exception as exc:  # litellm maps every provider failure onto an exception: it is data here
            latency = time.perf_counter() - started
            self.latency_s += latency
            self.failed_calls += 1
            return None, {"latency_s": round(latency, 3), "ok": False}, f"{type(exc).__name__}: {str(exc)[:300]}"
        latency = time.perf_counter() - started
        self.latency_s += latency
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        return text, {"latency_s": round(latency, 3), "ok": True, "prompt_tokens": prompt_tokens,
                      "completion_tokens": completion_tokens}, None
