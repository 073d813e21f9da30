"""Stages 3 and 4 offline: reuse verified library rules, compose new ones from recipes, and assemble
the level config."""
from __future__ import annotations

from typing import Any

from genesis.models import GDD, RuleComponent, RuleDraft
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


def assemble_level(gdd: GDD, rules: list[dict[str, Any]]) -> dict[str, Any]:
    """The level from the GDD; `rules` are the stage-3 rules as {id, params}."""
    teams = []
    for t in gdd.teams:
        units = []
        for u in t.units:
            entry: dict[str, Any] = {"type": u.type, "count": u.count, "spread": u.spread}
            if u.at is not None:
                entry["at"] = u.at
            else:
                entry["x"], entry["y"] = u.x, u.y
            if u.tag:
                entry["tag"] = u.tag
            units.append(entry)
        teams.append({"id": t.id, "name": t.name, "allies": t.allies,
                      "controller": t.controller.model_dump(mode="json"),
                      "resources": {"metal": t.metal, "energy": t.energy}, "units": units})
    return {
        "schema_version": 1,
        "name": gdd.title,
        "description": gdd.agent_description,
        "map": gdd.map.model_dump(mode="json", exclude_none=True),
        "teams": teams,
        "rules": [{"id": r["id"], "script": f"rules/{r['id']}.lua", "params": r["params"]} for r in rules],
        "switches": {"fog_of_war": gdd.fog_of_war, "production": gdd.production, "time_limit": gdd.time_limit},
        "conditions": [c.model_dump(mode="json", exclude_none=True) for c in gdd.conditions],
        "metadata": {"reference": {"strategy": gdd.reference_strategy, **gdd.strategy_params}},
    }
