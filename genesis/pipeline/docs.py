"""Human-readable renderings of pipeline documents."""
from __future__ import annotations

from genesis.models import GDD

def gdd_markdown(gdd: GDD) -> str:
    lines = [f"# {gdd.title}", "", f"**Competency:** {gdd.competency.replace('_', ' ')}", "", gdd.summary, "",
             "## Description shown to agents", "", gdd.agent_description, "", "## Setup", "",
             f"- Map: `{gdd.map.model_dump(mode='json', exclude_none=True)}`", f"- Fog of war: {'on' if gdd.fog_of_war else 'off'}; production: "
             f"{'on' if gdd.production else 'off'}; time limit: {gdd.time_limit:.0f} s", ""]
    for t in gdd.teams:
        units = ", ".join(f"{u.count}x {u.type}" + (f" [{u.tag}]" if u.tag else "") for u in t.units) or "none at start"
        behaviour = getattr(t.controller, "behaviour", None)
        lines.append(f"- Team {t.id} **{t.name}** ({t.role}, controller `{t.controller.type}`"
                     f"{'/' + behaviour if behaviour else ''}): {units}")
    lines += ["", "## Rule components", ""]
    for r in gdd.rule_components:
        lines.append(f"- **{r.id}** ({r.kind}{', reuses ' + r.library_rule if r.library_rule else ''}): {r.purpose} "
                     f"— serves {', '.join(r.requirement_ids) or '-'}")
    if gdd.conditions:
        lines += ["", "## Declarative conditions", ""] + [f"- `{c.model_dump(mode='json', exclude_none=True)}`" for c in gdd.conditions]
    lines += ["", "## Win / loss", ""] + [f"- Win: {w}" for w in gdd.win_paths] + [f"- Loss: {l}" for l in gdd.loss_paths]
    lines += ["", "## Requirements", ""]
    for q in gdd.requirements:
        lines.append(f"- **{q.id}**: {q.text} ({'checked on the ' + q.on + ' run' if q.testable else 'not testable'})")
    lines += ["", f"Reference strategy: `{gdd.reference_strategy}`", ""]
    return "\n".join(lines)
