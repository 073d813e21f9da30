"""The designer's side of the families no library rule covers: components carrying a typed recipe
that the offline developer composes into new Lua (see genesis/offline/rule_composer.py)."""
from __future__ import annotations

from dataclasses import dataclass

from genesis.models import Concepts, RuleComponent


@dataclass
class Site:
    """Where the design stands: what a recipe needs to place and aim its units."""

    map_ref: dict
    base: tuple[float, float]
    fronts: list[str]
    target_tag: str | None
    strength: float = 1.0
    player: int = 0
    enemy: int = 1


def components(c: Concepts, site: Site) -> tuple[list[RuleComponent], dict[str, list[dict]]]:
    """Recipe components for the request's clauses of these families, and the expectations (by
    requirement id) that evidence them."""
    return [], {}
