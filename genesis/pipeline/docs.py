"""Human-readable renderings of pipeline documents."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from genesis.models import GDD


def _data(value: Any) -> Any:
    return value.model_dump(mode="json", exclude_none=True) if isinstance(value, BaseModel) else value


def plain(value: Any) -> str:
    """A value as prose-like text: `key = value; ...` for mappings, comma lists, numbers without
    trailing zeros, nested mappings and lists in parentheses."""
    value = _data(value)
    if isinstance(value, dict):
        return "; ".join(f"{k} = " + (f"({plain(v)})" if isinstance(_data(v), dict) else plain(v))
                         for k, v in value.items()) or "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(f"({plain(v)})" if isinstance(_data(v), (dict, list, tuple)) else plain(v)
                         for v in value) or "none"
    if isinstance(value, float):
        return f"{value:g}"
    if value is None:
        return "none"
    return str(value)


def map_text(ref: Any) -> str:
    ref = _data(ref) or {}
    if ref.get("name"):
        return f"built-in map `{ref['name']}`"
    if ref.get("file"):
        return f"map file `{ref['file']}`"
    if ref.get("generate"):
        return f"generated map ({plain(ref['generate'])})"
    return plain(ref)


def _controller_text(controller: Any) -> str:
    c = dict(_data(controller) or {})
    kind = c.pop("type", "?")
    behaviour = c.pop("behaviour", None)
    return f"`{kind}`" + (f"/{behaviour}" if behaviour else "") + (f" ({plain(c)})" if c else "")


def _placement_text(u: Any) -> str:
    where = f" at {u.at}" if u.at else (f" at ({u.x:g}, {u.y:g})" if u.x is not None and u.y is not None else "")
    return f"{u.count}x {u.type}{where}" + (f" [{u.tag}]" if u.tag else "")


def gdd_markdown(gdd: GDD, level_changes: list[str] | None = None) -> str:
    """The GDD as markdown; `level_changes` are where the shipped level departs from it."""
    lines = [f"# {gdd.title}", "", f"**Competency:** {gdd.competency.replace('_', ' ')}", "", gdd.summary, "",
             "## Description shown to agents", "", gdd.agent_description, "", "## Setup", "",
             f"- Map: {map_text(gdd.map)}", f"- Fog of war: {'on' if gdd.fog_of_war else 'off'}; production: "
             f"{'on' if gdd.production else 'off'}; time limit: {gdd.time_limit:.0f} s", ""]
    for t in gdd.teams:
        units = ", ".join(_placement_text(u) for u in t.units) or "none at start"
        extras = ([f"allies T{', T'.join(map(str, t.allies))}"] if t.allies else []) + \
                 ([f"{t.metal:g} metal, {t.energy:g} energy"] if t.metal or t.energy else [])
        lines.append(f"- Team {t.id} **{t.name}** ({t.role}, controller {_controller_text(t.controller)}"
                     f"{'; ' + '; '.join(extras) if extras else ''}): {units}")
    lines += ["", "## Rule components", ""]
    for r in gdd.rule_components:
        lines.append(f"- **{r.id}** ({r.kind}{', reuses ' + r.library_rule if r.library_rule else ''}): {r.purpose} "
                     f"— serves {', '.join(r.requirement_ids) or '-'}")
        if r.params:
            lines.append(f"  - params: {plain(r.params)}")
    if gdd.conditions:
        lines += ["", "## Declarative conditions", ""] + [f"- {plain(c)}" for c in gdd.conditions]
    lines += ["", "## Win / loss", ""] + [f"- Win: {w}" for w in gdd.win_paths] + [f"- Loss: {l}" for l in gdd.loss_paths]
    lines += ["", "## Requirements", ""]
    for q in gdd.requirements:
        lines.append(f"- **{q.id}**: {q.text} ({'checked on the ' + q.on + ' run' if q.testable else 'not testable'})")
        lines += [f"  - expect: {plain(e)}" for e in q.expect]
    lines += ["", f"Reference strategy: `{gdd.reference_strategy}`"
              + (f" ({plain(gdd.strategy_params)})" if gdd.strategy_params else ""), ""]
    if gdd.assumptions:
        lines += ["## Assumptions", ""] + [f"- {a}" for a in gdd.assumptions] + [""]
    if level_changes:
        lines += ["## As shipped", "", "The level (level.json) departs from this design:", ""]
        lines += [f"- {c}" for c in level_changes] + [""]
    return "\n".join(lines)
