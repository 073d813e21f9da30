"""Human-readable renderings of pipeline documents, and the rule API reference given to the developer."""
from __future__ import annotations

from genesis.models import GDD

RULE_API_DOC = """\
Globals a script may define: on_start(), on_unit_destroyed(u), on_unit_created(u); u = {id, type, team, x, y, hp, tag, category}.
Registration: every(seconds, fn), at(seconds, fn), on_area_entered(x, y, radius, fn [, team]).
Queries: time(), units(team [, {type=, tag=, category=}]), unit(id), resources(team), param(name [, default]),
map_size() -> w, h, spawn_point(name) -> x, y, teams(), random(), random_int(a, b).
Actions: spawn(team, type, x, y [, count [, tag]]) -> ids, order(ids, kind, x, y) with kind move|move_force|fight|stop|patrol,
give_resources(team, metal, energy), set_controller(team, spec), win(team, reason), lose(team, reason),
message(text [, team]), mark(x, y, label [, color]), log(event, fields).
Rule library (predefined table lib): lib.point(p) -> x, y or nil (p: spawn name, {x, y} or {x=, y=}; nil off the map),
lib.label(p) -> string, lib.list(v) -> list (wraps a scalar), lib.composition(spec) -> {{type, count}, ...}
(spec: "type", {type = count} or {{type=, count=}}), lib.target_position(tag, team, fallback) -> x, y
(first living unit of team tagged tag, else the point fallback, else the map centre),
lib.spawn_groups(team, groups, x, y [, tag]) -> ids."""


def gdd_markdown(gdd: GDD) -> str:
    lines = [f"# {gdd.title}", "", f"**Competency:** {gdd.competency.replace('_', ' ')}", "", gdd.summary, "",
             "## Description shown to agents", "", gdd.agent_description, "", "## Setup", "",
             f"- Map: `{gdd.map}`", f"- Fog of war: {'on' if gdd.fog_of_war else 'off'}; production: "
             f"{'on' if gdd.production else 'off'}; time limit: {gdd.time_limit:.0f} s", ""]
    for t in gdd.teams:
        units = ", ".join(f"{u.count}x {u.type}" + (f" [{u.tag}]" if u.tag else "") for u in t.units) or "none at start"
        lines.append(f"- Team {t.id} **{t.name}** ({t.role}, controller `{t.controller.get('type')}`"
                     f"{'/' + t.controller['behaviour'] if 'behaviour' in t.controller else ''}): {units}")
    lines += ["", "## Rule components", ""]
    for r in gdd.rule_components:
        lines.append(f"- **{r.id}** ({r.kind}{', reuses ' + r.library_rule if r.library_rule else ''}): {r.purpose} "
                     f"— serves {', '.join(r.requirement_ids) or '-'}")
    if gdd.conditions:
        lines += ["", "## Declarative conditions", ""] + [f"- `{c}`" for c in gdd.conditions]
    lines += ["", "## Win / loss", ""] + [f"- Win: {w}" for w in gdd.win_paths] + [f"- Loss: {l}" for l in gdd.loss_paths]
    lines += ["", "## Requirements", ""]
    for q in gdd.requirements:
        lines.append(f"- **{q.id}**: {q.text} ({'checked on the ' + q.on + ' run' if q.testable else 'not testable'})")
    lines += ["", f"Reference strategy: `{gdd.reference_strategy}`", ""]
    return "\n".join(lines)
