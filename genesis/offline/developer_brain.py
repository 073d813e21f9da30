"""Stage 3 offline: reuse verified library rules and compose new ones from recipes."""
from __future__ import annotations

from typing import Any

from genesis.models import RuleComponent, RuleDraft
from genesis.offline import rule_composer
from genesis.rule_recipe import recipe_params


class NoImplementation(ValueError):
    """The offline backend reuses library rules and composes recipes; a real model can write any rule."""


def write_rule(component: RuleComponent, library: dict[str, Any] | None, map_ref: dict | None = None) -> RuleDraft:
    """Reuses `library` (the component's library rule, or a verified rule composed earlier for a recipe of
    the same shape); else composes the component's recipe into new Lua (tested on `map_ref`)."""
    params = dict(component.params)
    if component.recipe is not None:
        params = {**recipe_params(component.recipe), **params}
    if not library:
        if component.recipe is not None:
            return rule_composer.compose(component.id, component.recipe, component.purpose, component.params,
                                         map_ref)
        raise NoImplementation(
            f"rule component {component.id!r} ({component.purpose}) has no verified library rule and no recipe, "
            "and the offline backend writes new Lua only from a recipe: use a real model (--model) or rephrase "
            "the request")
    declared = (library.get("meta") or {}).get("params") or {}
    unknown = sorted(set(params) - set(declared))
    if unknown:
        raise ValueError(f"rule component {component.id!r}: library rule {library['id']!r} has no params {unknown}; "
                         f"it declares {sorted(declared)}")
    return RuleDraft(id=component.id, reuse=library["id"], params=params)
