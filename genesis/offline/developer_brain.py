"""Stage 3 offline: reuse verified library rules and compose new ones from recipes."""
from __future__ import annotations

from typing import Any

import yaml

from genesis.models import RuleComponent, RuleDraft, RuleMetaDraft, RuleTest
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
    if unknown and (shipped := _shipped_rule(library["id"], set(params))) is not None:
        return shipped.model_copy(update={"id": component.id, "params": params})
    if unknown:
        raise ValueError(f"rule component {component.id!r}: library rule {library['id']!r} has no params {unknown}; "
                         f"it declares {sorted(declared)}")
    return RuleDraft(id=component.id, reuse=library["id"], params=params)


def _shipped_rule(rule_id: str, params: set[str]) -> RuleDraft | None:
    """The rule of this id as this version ships it, as a new rule (tested like any other) when it declares
    `params`: a workspace made by an older version keeps the older library rule, which may lack them."""
    from genesis.workspace import seed_kb

    folder = seed_kb() / "rules" / rule_id
    try:
        meta = yaml.safe_load((folder / "meta.yaml").read_text(encoding="utf-8"))
        tests = yaml.safe_load((folder / "test.yaml").read_text(encoding="utf-8"))
        source = (folder / "rule.lua").read_text(encoding="utf-8")
    except (OSError, yaml.YAMLError):
        return None
    if not params <= set(meta.get("params") or {}):
        return None
    return RuleDraft(id=rule_id, source=source, tests=[RuleTest.model_validate(t) for t in tests.get("tests", [])],
                     meta=RuleMetaDraft(**{k: meta[k] for k in ("title", "description", "params", "concepts")
                                           if k in meta}))
