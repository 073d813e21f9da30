"""What every agent shares: a model client and the prompt templates beside the agents."""
from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from genesis.llm import render
from genesis.prompt_facts import FACTS

PROMPTS = Path(__file__).parent / "prompts"
T = TypeVar("T", bound=BaseModel)


class Agent:
    role = ""

    def __init__(self, client):
        self.client = client

    def ask(self, skill: str, output_model: type[T], *, stage: str, inputs: dict[str, Any], images=None,
            role: str | None = None) -> T:
        template = PROMPTS / f"{skill.replace('.', '_')}.j2"
        prompt = render(template, **inputs, facts=FACTS)
        return self.client.complete(role or self.role, skill, prompt, output_model, stage=stage, inputs=inputs, images=images)
