"""Checks for failures seen in generated levels: units that cannot leave their spawn, objectives
nobody can reach, levels too easy to measure anything, waves that never meet the player, rules
that never fire, and requirements with no evidence. Each reads its thresholds from `ctx.params`
(a rubric criterion's `params`), with the defaults below."""
from __future__ import annotations

import numpy as np

from engine import load_level
from engine.catalog import load_catalog
from engine.level import place_units
from engine.maps import ground_passable, label_regions, load_map, terrain_array
from engine.schema.level import StartUnit, Team
from genesis.checks.context import CheckContext
from genesis.checks.messages import EVIDENCE_CHARS, bounded_join
from genesis.checks.preview import balance_preview

MOBILE_GROUND = ("commander", "bot", "vehicle")
WAVE_GAP_S = 10.0          # rule spawns of one team this close together form one wave
DEFAULTS = {"min_region_share": 0.5, "max_share": 0.1, "min_runs": 1}


def _param(ctx: CheckContext, name: str) -> float:
    return float(ctx.params.get(name, DEFAULTS[name]))


def _regions(map_data) -> tuple[np.ndarray, np.ndarray]:
    """Ground region label of every tile, and each region's size (index = label)."""
    labels, _ = label_regions(ground_passable(terrain_array(map_data)))
    return labels, np.bincount(labels.ravel())


def _region_at(labels: np.ndarray, x: float, y: float) -> int:
    h, w = labels.shape
    tx, ty = int(x), int(y)
    return int(labels[ty, tx]) if 0 <= tx < w and 0 <= ty < h else 0


def _trapped(placed, map_data, share: float) -> list[str]:
    catalog = load_catalog()
    labels, sizes = _regions(map_data)
    largest = int(sizes[1:].max()) if len(sizes) > 1 else 0
    out = []
    for p in placed:
        if catalog.units[p.type].category not in MOBILE_GROUND:
            continue
        region = _region_at(labels, p.x, p.y)
        room = int(sizes[region]) if region else 0
        if room < share * largest:
            out.append(f"team {p.team} {p.type} at ({p.x:.0f}, {p.y:.0f}) can reach only {room} of {largest} tiles")
    return out


def start_pathability(ctx: CheckContext) -> tuple[bool, str]:
    """GDD stage: every mobile ground start unit, placed as the engine will place it, can leave its
    spawn (its ground region holds at least `min_region_share` of the map's largest one)."""
    gdd = ctx.gdd
    if gdd is None:
        return False, "no GDD"
    map_data = load_map(gdd.map, None)
    teams = [Team(id=t.id, name=t.name, units=[StartUnit(**u.model_dump(exclude_none=True)) for u in t.units])
             for t in gdd.teams]
    placed, problems = place_units(teams, map_data, load_catalog())
    if problems:
        return False, "; ".join(problems[:5])
    trapped = _trapped(placed, map_data, _param(ctx, "min_region_share"))
    return not trapped, "; ".join(trapped[:5]) or f"all {len(placed)} start units can leave their spawn"


def objectives_reachable(ctx: CheckContext) -> tuple[bool, str]:
    """Level stage: every enemy objective (a start unit tagged *objective*) stands next to ground the
    player's mobile units can walk to; a player with air units reaches everything."""
    if ctx.level_path is None:
        return False, "no level written"
    level = load_level(ctx.level_path)
    catalog = load_catalog()
    placed, _ = place_units(level.config.teams, level.map, catalog)
    mine = [p for p in placed if p.team == 0]
    if any(catalog.units[p.type].category == "air" for p in mine):
        return True, "the player has air units: every objective is reachable"
    objectives = [p for p in placed if p.team != 0 and p.tag and "objective" in p.tag]
    if not objectives:
        return True, "no enemy objective to reach"
    labels, _ = _regions(level.map)
    walkers = {_region_at(labels, p.x, p.y) for p in mine if catalog.units[p.type].category in MOBILE_GROUND} - {0}
    unreachable = []
    for o in objectives:
        reach = int(np.ceil(catalog.units[o.type].size / 2)) + 2
        near = labels[max(0, int(o.y) - reach):int(o.y) + reach + 1, max(0, int(o.x) - reach):int(o.x) + reach + 1]
        if not walkers & set(np.unique(near).tolist()):
            unreachable.append(f"team {o.team} {o.type} ({o.tag}) at ({o.x:.0f}, {o.y:.0f}): the player's ground "
                               "units cannot reach it")
    return not unreachable, "; ".join(unreachable[:5]) or f"{len(objectives)} enemy objective(s) reachable"


def degenerate_difficulty(ctx: CheckContext) -> tuple[bool, str]:
    """Level stage: a level the reference wins in every seed, losing no unit, in under `max_share`
    of the time limit measures nothing."""
    ref = [r for r in ctx.runs if r.policy == "reference"]
    if not ref:
        return False, "needs reference runs"
    limit = float((ctx.level or {}).get("time_limit") or (ctx.gdd.time_limit if ctx.gdd else 0) or 0)
    if limit <= 0:
        return False, "the level states no time limit"
    share = _param(ctx, "max_share")
    trivial = [r for r in ref if r.ok and 0 in r.winners and r.duration < share * limit
               and int((r.team_stats.get("0") or {}).get("units_lost", 0)) == 0]
    detail = (f"the reference won {len(trivial)}/{len(ref)} seeds without losing a unit in under {share:.0%} of the "
              f"{limit:g} s time limit")
    return len(trivial) < len(ref), detail if len(trivial) == len(ref) else detail + ": not trivial"


def _waves(events: list[dict]) -> list[list[dict]]:
    """Rule spawns of the non-player teams, grouped into waves by team and time."""
    by_team: dict[int, list[list[dict]]] = {}
    for ev in events:
        if ev.get("event") == "spawn" and ev.get("source") == "rule" and int(ev.get("team", 0)) != 0:
            groups = by_team.setdefault(int(ev["team"]), [])
            if groups and ev["t"] - groups[-1][-1]["t"] <= WAVE_GAP_S:
                groups[-1].append(ev)
            else:
                groups.append([ev])
    return [g for groups in by_team.values() for g in groups]


def waves_reach_player(ctx: CheckContext) -> tuple[bool, str]:
    """Level stage: in every reference run, each enemy wave a rule spawns fights the player (one of
    its units dies, or a player unit dies after it arrived); a wave that never does tests nothing."""
    ref = [r for r in ctx.runs if r.policy == "reference" and r.ok]
    if not ref:
        return False, "needs reference runs"
    missed, total = [], 0
    for r in ref:
        deaths = [e for e in r.events if e.get("event") == "death"]
        for n, wave in enumerate(_waves(r.events), 1):
            total += 1
            ids, start = {e.get("id") for e in wave}, wave[0]["t"]
            fought = any(d.get("id") in ids for d in deaths) or any(
                int(d.get("team", -1)) == 0 and d["t"] >= start for d in deaths)
            if not fought:
                missed.append(f"seed {r.seed}: wave {n} (team {wave[0].get('team')}, {len(wave)} units at "
                              f"{start:g} s) never reached the player")
    if not total:
        return True, "no rule-spawned enemy wave"
    return not missed, "; ".join(missed[:5]) or f"all {total} wave(s) in the reference runs fought the player"


def rules_fire(ctx: CheckContext) -> tuple[bool, str]:
    """Level stage: each rule the level runs leaves an event of its own (a log or a message) in at
    least one validation run; a rule that never does never fired."""
    rule_ids = [r.get("id") for r in (ctx.level or {}).get("rules", [])]
    if not rule_ids:
        return True, "the level runs no rules"
    if not ctx.runs:
        return False, "needs validation runs"
    fired = {e.get("rule") for r in ctx.runs for e in r.events if e.get("event") in ("rule_log", "message")}
    silent = [rid for rid in rule_ids if rid not in fired]
    return not silent, (f"rules {silent} never fire (no log or message in {len(ctx.runs)} runs)" if silent
                        else f"all {len(rule_ids)} rules fired")


def requirement_evidence_present(ctx: CheckContext) -> tuple[bool, str]:
    """Level stage: every testable requirement has evidence in at least `min_runs` validation runs
    (a requirement the runs say nothing about is unverified, whatever else passed)."""
    if not ctx.evidence:
        return False, "no requirement evidence computed"
    need = int(_param(ctx, "min_runs"))
    missing = [f"{e['id']}: {e['status']}, evidence in {len(e.get('per_run') or [])} run(s)" for e in ctx.evidence
               if e.get("testable") and (e.get("status") == "unverified" or len(e.get("per_run") or []) < need)]
    return not missing, (bounded_join(missing, EVIDENCE_CHARS) + f" (needs evidence in {need} run(s))" if missing else
                         f"every testable requirement has evidence in at least {need} run(s)")


GDD_CHECKS = {"start_pathability": start_pathability, "balance_preview": balance_preview}
LEVEL_CHECKS = {"objectives_reachable": objectives_reachable, "degenerate_difficulty": degenerate_difficulty,
                "waves_reach_player": waves_reach_player, "rules_fire": rules_fire,
                "requirement_evidence_present": requirement_evidence_present}
