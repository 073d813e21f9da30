"""Static knowledge an agent receives before play: the task, who is who, and the unit roster.

Everything here is derived from the level alone (no simulation), so a benchmark harness can put
it in the system prompt once and send only observations afterwards.
"""
from __future__ import annotations

from engine.catalog import roster_encyclopedia
from engine.level import Level


def _controller_label(team) -> str:
    c = team.controller
    if c.type == "agent":
        return "agent"
    if c.type == "none":
        return "inactive"
    return f"built-in AI ({c.behaviour})"


def team_setup(level: Level, team: int) -> list[dict]:
    """One entry per team: id, name, relation to `team`, controller, start units and resources."""
    me = next((t for t in level.config.teams if t.id == team), None)
    my_allies = set(me.allies) if me is not None else set()
    out = []
    for t in level.config.teams:
        if t.id == team:
            relation = "you"
        elif t.id in my_allies or team in t.allies:
            relation = "ally"
        else:
            relation = "enemy"
        units: dict[str, int] = {}
        for u in t.units:
            units[u.type] = units.get(u.type, 0) + u.count
        out.append({
            "id": t.id, "name": t.name, "relation": relation, "controller": _controller_label(t),
            "start_units": units, "resources": {"metal": t.resources.metal, "energy": t.resources.energy},
        })
    return out


def static_knowledge(level: Level, team: int) -> dict:
    """The JSON form: description, switches, map size, team setup and roster encyclopedia."""
    cfg = level.config
    return {
        "level": cfg.name,
        "you_are_team": team,
        "description": cfg.description,
        "map": {"width": level.map.width, "height": level.map.height},
        "switches": {"fog_of_war": cfg.switches.fog_of_war, "production": cfg.switches.production,
                     "time_limit": cfg.switches.time_limit},
        "teams": team_setup(level, team),
        "roster": roster_encyclopedia(level.catalog),
    }


def knowledge_text(level: Level, team: int) -> str:
    """The prompt form of `static_knowledge`."""
    k = static_knowledge(level, team)
    sw = k["switches"]
    lines = [
        f"# Mission: {k['level']}",
        k["description"],
        "",
        f"You control team {team}. Map {k['map']['width']}x{k['map']['height']} tiles "
        f"((0,0) is the top-left corner, x grows right, y grows down).",
        f"Time limit {sw['time_limit']:g} s; fog of war {'on' if sw['fog_of_war'] else 'off'}; "
        f"production {'enabled' if sw['production'] else 'disabled'}.",
        "",
        "## Teams",
    ]
    for t in k["teams"]:
        units = ", ".join(f"{n} {ty}" for ty, n in sorted(t["start_units"].items())) or "no units"
        res = t["resources"]
        lines.append(f"- team {t['id']} '{t['name']}' ({t['relation']}, {t['controller']}): {units}; "
                     f"{res['metal']:g} metal, {res['energy']:g} energy")
    lines += ["", k["roster"]]
    return "\n".join(lines)
