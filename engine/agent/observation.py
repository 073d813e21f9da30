"""What an agent sees each decision: a compact JSON dict, its text rendering, and images.

The JSON form (`observe`) holds the clock, resources and income, own units grouped into squads
(unassigned mobile units and buildings listed apart, factories with their queues), the enemy
units this team can currently see (fog of war respected), allied units, new messages and the
errors of the last actions. `render_text` turns it into a prompt block for LLM agents and
`observe_images` draws a minimap plus zoomed cameras on the three largest groups and the home base.
"""
from __future__ import annotations

import numpy as np

from engine.agent.squads import SquadManager
from engine.world import ORDER_LABELS

MAX_LISTED_ENEMIES = 60       # keeps prompts bounded on big maps; counts by type stay exact


# --- state queries shared by observation, actions and policies ---------------------------------
def own_ids(sim, team: int) -> np.ndarray:
    return sim.world.select(team=team)


def visible_enemy_ids(sim, team: int) -> np.ndarray:
    """Living hostile units `team` can see now (all of them when fog of war is off)."""
    w = sim.world
    idx = sim.visible_units(team)
    return idx[sim.hostile[team, w.team[idx]]]


def allied_ids(sim, team: int) -> np.ndarray:
    w = sim.world
    idx = w.alive_idx
    allies = sim.teams[team].allies
    return idx[np.isin(w.team[idx], [t for t in allies if t != team])]


def visible_neutral_ids(sim, team: int) -> np.ndarray:
    """Living units of neutral sides `team` can see now (no one fights them: only splash and rules hurt them)."""
    if not sim.neutral:
        return np.zeros(0, dtype=np.int64)
    idx = sim.visible_units(team)
    return idx[np.isin(sim.world.team[idx], sorted(sim.neutral))]


def _r(v: float) -> float:
    return round(float(v), 1)


def unit_entry(sim, i: int, with_team: bool = False) -> dict:
    w = sim.world
    e = {"id": int(i), "type": w.type_name(i), "x": _r(w.x[i]), "y": _r(w.y[i]),
         "hp": round(float(w.hp[i])), "max_hp": round(float(w.max_hp[i]))}
    if with_team:
        e["team"] = int(w.team[i])
    return e


# --- JSON observation ----------------------------------------------------------------------------
def observe(sim, team: int, squads: SquadManager | None = None, messages: list[str] | None = None,
            last_errors: list[dict] | None = None, invalid_counts: dict[str, int] | None = None) -> dict:
    """The compact JSON observation of `team` (plain Python types only)."""
    w = sim.world
    state = sim.teams[team]
    metal_rate, energy_rate = sim.economy.income_rates(team)
    mine = own_ids(sim, team)
    in_squad: set[int] = set()
    squad_list = []
    if squads is not None:
        squads.prune(sim)
        for sq in squads.squads.values():
            in_squad.update(sq.units)
        for name in sorted(squads.squads):
            sq = squads.squads[name]
            ids = np.array(sq.units, dtype=np.int64)
            squad_list.append({
                **sq.to_dict(),
                "centroid": [_r(w.x[ids].mean()), _r(w.y[ids].mean())],
                "units": [unit_entry(sim, int(i)) for i in ids],
            })
    unassigned, buildings = [], []
    for i in mine.tolist():
        if w.speed[i] > 0:
            if i not in in_squad:
                unassigned.append({**unit_entry(sim, i), "order": ORDER_LABELS[int(w.order[i])]})
        else:
            b = unit_entry(sim, i)
            if w.progress[i] < 1.0:
                b["progress"] = round(float(w.progress[i]), 2)
            if w.types.builds[int(w.type[i])]:
                b["queue"] = sim.production.queue_of(i)
            buildings.append(b)
    enemies = visible_enemy_ids(sim, team)
    enemy_counts: dict[str, int] = {}
    for i in enemies.tolist():
        enemy_counts[w.type_name(i)] = enemy_counts.get(w.type_name(i), 0) + 1
    near = enemies
    if enemies.size > MAX_LISTED_ENEMIES and mine.size:
        cx, cy = float(w.x[mine].mean()), float(w.y[mine].mean())
        near = enemies[np.argsort(np.hypot(w.x[enemies] - cx, w.y[enemies] - cy), kind="stable")[:MAX_LISTED_ENEMIES]]
        near = np.sort(near)
    cfg = sim.level.config
    return {
        "time": round(float(sim.time), 1),
        "time_limit": cfg.switches.time_limit,
        "team": team,
        "map": {"width": w.terrain.width, "height": w.terrain.height},
        "resources": {"metal": round(state.metal), "energy": round(state.energy),
                      "metal_income": round(metal_rate, 1), "energy_income": round(energy_rate, 1)},
        "squads": squad_list,
        "unassigned": unassigned,
        "buildings": buildings,
        "enemies": [unit_entry(sim, i, with_team=True) for i in near.tolist()],
        "enemy_counts": dict(sorted(enemy_counts.items())),
        "allies": [unit_entry(sim, i, with_team=True) for i in allied_ids(sim, team).tolist()],
        "neutral": [unit_entry(sim, i, with_team=True) for i in visible_neutral_ids(sim, team).tolist()],
        "areas": areas_of(sim),
        "markers": [{"x": _r(m.x), "y": _r(m.y), "label": m.label} for m in sim.markers],
        "messages": list(messages or []),
        "last_action_errors": list(last_errors or []),
        "invalid_actions": dict(sorted((invalid_counts or {}).items())),
    }


def areas_of(sim) -> list[dict]:
    """The areas rules have drawn (zones, hazards, beacons) as every side sees them in the frames, in the rule
    API's terms (a circle's radius, a rectangle's width and height): the JSON observation shows what the picture
    shows."""
    out = []
    for a in sim.areas.shapes():
        entry = {"id": a.id, "label": a.label, "shape": a.kind, "x": _r(a.x), "y": _r(a.y)}
        entry.update({"radius": _r(a.half_w)} if a.kind == "circle" else {"width": _r(2 * a.half_w),
                                                                             "height": _r(2 * a.half_h)})
        out.append(entry)
    return out


# --- text rendering ------------------------------------------------------------------------------
def _clock(t: float) -> str:
    return f"{int(t // 60):02d}:{int(t % 60):02d}"


def _group(units: list[dict]) -> str:
    """'3 light_bot, 1 commander' from unit entries."""
    counts: dict[str, int] = {}
    for u in units:
        counts[u["type"]] = counts.get(u["type"], 0) + 1
    return ", ".join(f"{n} {t}" for t, n in sorted(counts.items()))


def _unit_line(u: dict) -> str:
    extra = f" team {u['team']}" if "team" in u else ""
    return f"#{u['id']} {u['type']}{extra} ({u['x']:g},{u['y']:g}) hp {u['hp']}/{u['max_hp']}"


def render_text(obs: dict) -> str:
    """A prompt-sized text block of an observation."""
    r = obs["resources"]
    lines = [
        f"[time {_clock(obs['time'])} / {_clock(obs['time_limit'])}] team {obs['team']}",
        f"resources: metal {r['metal']} (+{r['metal_income']}/s), energy {r['energy']} (+{r['energy_income']}/s)",
    ]
    lines.append("squads:" if obs["squads"] else "squads: none")
    for sq in obs["squads"]:
        goal = f" -> ({sq['goal'][0]:g},{sq['goal'][1]:g}) [{sq['mode']}]" if sq["goal"] else ""
        hp = sum(u["hp"] for u in sq["units"])
        max_hp = sum(u["max_hp"] for u in sq["units"])
        lines.append(f"  {sq['name']}: {sq['state']}{goal} at ({sq['centroid'][0]:g},{sq['centroid'][1]:g}), "
                     f"{_group(sq['units'])}, hp {hp}/{max_hp}; ids {[u['id'] for u in sq['units']]}")
    if obs["unassigned"]:
        lines.append("unassigned units:")
        lines += [f"  {_unit_line(u)} {u['order']}" for u in obs["unassigned"]]
    if obs["buildings"]:
        lines.append("buildings:")
        for b in obs["buildings"]:
            extra = f" building {b['progress']:.0%}" if "progress" in b else ""
            if "queue" in b:
                extra += f" queue [{', '.join(b['queue'])}]" if b["queue"] else " queue empty"
            lines.append(f"  {_unit_line(b)}{extra}")
    if obs["enemies"]:
        counts = ", ".join(f"{n} {t}" for t, n in obs["enemy_counts"].items())
        lines.append(f"visible enemies ({counts}):")
        lines += [f"  {_unit_line(u)}" for u in obs["enemies"]]
    else:
        lines.append("visible enemies: none")
    if obs["allies"]:
        lines.append(f"allied units: {_group(obs['allies'])}")
    if obs.get("neutral"):
        lines.append(f"neutral units ({_group(obs['neutral'])}; no one fights them, but splash hurts them):")
        lines += [f"  {_unit_line(u)}" for u in obs["neutral"]]
    if obs.get("areas"):
        lines.append("areas drawn on the map:")
        lines += [f"  {a['label'] or 'area'} #{a['id']}: {a['shape']} at ({a['x']:g}, {a['y']:g}), "
                  + (f"radius {a['radius']:g}" if "radius" in a else f"{a['width']:g} x {a['height']:g} tiles")
                  for a in obs["areas"]]
    if obs.get("markers"):
        lines.append("markers: " + "; ".join(f"{m['label']} ({m['x']:g}, {m['y']:g})" for m in obs["markers"]))
    if obs["messages"]:
        lines.append("messages:")
        lines += [f"  {m}" for m in obs["messages"]]
    if obs["last_action_errors"]:
        lines.append("errors of your last actions:")
        lines += [f"  action {e['index']}: {e['code']} — {e['message']}" for e in obs["last_action_errors"]]
    return "\n".join(lines)


# --- images --------------------------------------------------------------------------------------
MAX_GROUP_CAMERAS = 3


def home_base(sim, team: int) -> tuple[float, float] | None:
    """The team's own buildings (median), else where its units started."""
    w = sim.world
    mine = own_ids(sim, team)
    fixed = mine[w.speed[mine] <= 0]
    if fixed.size:
        return float(np.median(w.x[fixed])), float(np.median(w.y[fixed]))
    start = [(p.x, p.y) for p in sim.level.placements if p.team == team]
    if start:
        return float(np.median([p[0] for p in start])), float(np.median([p[1] for p in start]))
    return None


def camera_targets(sim, team: int, squads: SquadManager | None) -> dict[str, tuple[float, float]]:
    """Camera centres as RTSGameAgent places them: the three largest groups by unit count (squads,
    and the unassigned mobile units as one group; ties by name) plus the home base."""
    w = sim.world
    groups: dict[str, np.ndarray] = {}
    in_squad: set[int] = set()
    if squads is not None:
        squads.prune(sim)
        for name, sq in squads.squads.items():
            groups[name] = np.array(sq.units, dtype=np.int64)
            in_squad.update(sq.units)
    mine = own_ids(sim, team)
    loose = np.array([i for i in mine[w.speed[mine] > 0].tolist() if i not in in_squad], dtype=np.int64)
    if loose.size:
        groups["unassigned"] = loose
    largest = sorted(groups, key=lambda n: (-groups[n].size, n))[:MAX_GROUP_CAMERAS]
    out = {name: (float(w.x[groups[name]].mean()), float(w.y[groups[name]].mean())) for name in largest}
    home = home_base(sim, team)
    if home is not None:
        out["home base"] = home
    return out


def observe_images(sim, team: int, squads: SquadManager | None = None, minimap_size: int = 512,
                   camera_tiles: int = 24, camera_size: int = 384) -> dict:
    """{"minimap": PIL image, "cameras": {name: PIL image}} from this team's point of view."""
    from engine.render import render_camera, render_minimap

    snap = sim.snapshot()
    viewer = team if sim.fog else None
    cams = {name: render_camera(snap, cx, cy, tiles=camera_tiles, size=camera_size, viewer=viewer)
            for name, (cx, cy) in camera_targets(sim, team, squads).items()}
    return {"minimap": render_minimap(snap, size=minimap_size, viewer=viewer), "cameras": cams}
