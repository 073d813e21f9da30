"""The strategy base: one per file in this package, each driving the reference policy's army."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.agent.reference.policy import ReferencePolicy


class Strategy:
    """The behaviour (each subclass's docstring) is what the prompts tell a designer, so it must say
    what the code does; `params` maps each strategy_param the strategy reads to its meaning."""

    name = "base"
    params: dict[str, str] = {}

    @classmethod
    def describe(cls) -> dict:
        return {"name": cls.name, "behaviour": " ".join((cls.__doc__ or "").split()), "params": dict(cls.params)}

    def __init__(self, ref: ReferencePolicy):
        self.ref = ref
        self.spec = ref.spec

    def decide(self, sim) -> list[dict]:
        return []
