"""The strategy base: one per file in this package, each driving the reference policy's army."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.agent.reference.policy import ReferencePolicy


class Strategy:
    name = "base"

    def __init__(self, ref: ReferencePolicy):
        self.ref = ref
        self.spec = ref.spec

    def decide(self, sim) -> list[dict]:
        return []
