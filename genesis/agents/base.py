"""What every agent shares: a model client and the prompt templates beside the agents."""
from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from genesis.llm.prompts import render_parts
from genesis.prompt_facts import FACTS, recording_described

PROMPTS = Path(__file__).parent / "prompts"
T = TypeVar("T", bound=BaseModel)


class Agent:
    role = ""

    def __init__(self, client):
        self.client = client

    def ask(self, skill: str, output_model: type[T], *, stage: str, inputs: dict[str, Any], images=None,
            role: str | None = None, template: str | None = None, shown: type[BaseModel] | None = None) -> T:
        """`template`: a variant prompt of the skill (default: the skill's own); `shown`: the model whose schema
        the prompt shows, when the answers this prompt asks for are a part of `output_model`'s."""
        template = PROMPTS / f"{(template or skill).replace('.', '_')}.j2"
        with recording_described() as described:
            static, task = render_parts(template, **inputs, facts=FACTS)
        # the static part first and whole: the prefix providers cache across the calls of a skill
        prompt = [{"role": "system", "content": static}, {"role": "user", "content": task}] if static else task
        schema = {k: v for k, v in (("described", frozenset(described)), ("shown", shown)) if v}  # only when used
        return self.client.complete(role or self.role, skill, prompt, output_model, stage=stage, inputs=inputs,
                                    images=images, **schema)
