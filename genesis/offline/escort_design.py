"""The offline escort family: bring a unit (the commander, a VIP, a convoy) to a destination alive.

The escorted unit starts at one end of a route, guarded by an army; the destination is the side or
corner the request names (else the far side of the map). Hidden ambushes wait at some of the
candidate sites beside the route, drawn per seed (library rule `route_ambush`): each springs when the
escorted unit comes near and goes for it, strong enough to destroy it alone but not against guards
that stay with it and engage. Reaching the destination wins (`escort_arrival`), losing the unit or
the deadline loses. The reference plays the `escort` role (`engine.agent.reference.roles`).
"""
from __future__ import annotations

import math

import numpy as np

from engine.agent.scripted import Probe, ScriptedOrder
from engine.catalog import load_catalog
from engine.maps import ground_passable, label_regions, terrain_array
from engine.systems.pathfinding import compute_flow_field
from genesis.models import GDD, Brief, Concepts, RuleComponent, SeedVariation, TeamPlan, UnitPlacement, Variation
from genesis.offline import geometry as G

PLAYER, ENEMY = 0, 1
VIP_TAG = "vip"
EDGE_MARGIN = 6.0         # tiles between a named edge or corner and the point on it
DEST_RADIUS = 5.0         # tiles: the destination circle the escorted unit must enter
TRIGGER_RADIUS = 8.0      # tiles from a site at which the escorted unit springs its ambush
SITE_OFFSET = 5.0         # candidate sites stand this far to either side of the route
SITE_SHARES = (0.2, 0.45, 0.7)   # where along the route (share of its length) candidate sites stand
ACTIVE_AMBUSHES = 3       # sites holding an ambush, drawn per seed
# one ambush outfights the escorted units alone this many times over: an escorted unit that walks on
# while its guards fight elsewhere (a plan replayed blind) falls before they come back
AMBUSH_MARGIN = 7.0
GUARD_MARGIN = 5.5        # the guards outfight one ambush this many times over
MIN_GUARDS = 3
GUARD_GROUP = 3           # guards per start group
MIN_ROUTE = 48.0          # tiles: a shorter route is crossed before an ambush can destroy the escorted unit
TRAVEL_SLACK = 1.6        # the escort's pace: waiting for guards and fights take this much longer than a walk
FIGHT_SECONDS = 15.0      # seconds each ambush holds the escort up
AMBUSH_UNIT = {"light_bot": 4, "assault_bot": 1}
# few heavy guards, not a crowd: a dense crowd of light units round the escorted unit boxes it in
GUARD_UNIT = {"heavy_tank": 1}
MAP_DEFAULT = "crossroads"
TRIP_MAPS = ("open_field",)   # smaller maps a named start and destination may fit on when the default is too wide


def _power(units: dict[str, int]) -> float:
    """Lanchester fighting strength of a group: total hp times total damage per second."""
    cat = load_catalog().units
    hp = sum(n * cat[t].hp for t, n in units.items())
    dps = sum(n * cat[t].weapon.damage / cat[t].weapon.reload for t, n in units.items() if cat[t].weapon)
    return hp * dps


def _multiplied(unit: dict[str, int], k: int) -> dict[str, int]:
    return {t: n * k for t, n in unit.items()}


def ambush_units(vip: str, count: int, strength: float) -> dict[str, int]:
    """One ambush: at least the base group, grown until it outfights the escorted units alone by
    AMBUSH_MARGIN, then scaled by the enemy strength the PM asked for."""
    k = 1
    while _power(_multiplied(AMBUSH_UNIT, k)) < AMBUSH_MARGIN * _power({vip: count}):
        k += 1
    return {t: max(1, math.floor(n * k * strength + 1e-9) if strength < 1 else round(n * k * strength))
            for t, n in AMBUSH_UNIT.items()}


def ambush_beaten_by(guards: dict[str, int], strength: float) -> dict[str, int]:
    """The largest ambush (at least one of each ambusher) that `guards` outfight by GUARD_MARGIN, scaled by the
    enemy strength the PM asked for."""
    k = 1
    while _power(_multiplied(AMBUSH_UNIT, k + 1)) * GUARD_MARGIN <= _power(guards):
        k += 1
    unit = {t: n * k for t, n in AMBUSH_UNIT.items()}
    while _power(unit) * GUARD_MARGIN > _power(guards) and unit["light_bot"] > 1:
        unit["light_bot"] -= 1
    return {t: max(1, math.floor(n * strength + 1e-9) if strength < 1 else round(n * strength)) for t, n in unit.items()}


def guard_units(ambush: dict[str, int], count: int = 1) -> dict[str, int]:
    """The guard army: grown until it outfights one ambush by GUARD_MARGIN (it meets them one by one),
    and a guard more for each further unit of a convoy (an ambush may go for any of them)."""
    k = MIN_GUARDS + count - 1
    while _power(_multiplied(GUARD_UNIT, k)) < GUARD_MARGIN * _power(ambush):
        k += 1
    return _multiplied(GUARD_UNIT, k)


def edge_point(m, side: str) -> tuple[float, float]:
    """The point EDGE_MARGIN inside the named edge (its middle) or corner."""
    vx, vy = G.COMPASS_VECTORS[side]
    return (m.width / 2 + vx * (m.width / 2 - EDGE_MARGIN), m.height / 2 + vy * (m.height / 2 - EDGE_MARGIN))


OPPOSITE = {"n": "s", "s": "n", "e": "w", "w": "e", "ne": "sw", "sw": "ne", "nw": "se", "se": "nw"}


def endpoints(m, c: Concepts) -> tuple[tuple[float, float], tuple[float, float]]:
    """Where the escorted unit starts and where it must go: the named sides, else the side opposite the
    named one, else west to east. On a river map the two ends lie on opposite banks, so the route
    crosses a bridge."""
    to = c.escort_to or (OPPOSITE[c.escort_from] if c.escort_from else "e")
    start_side = c.escort_from or OPPOSITE[to]
    a, b = edge_point(m, start_side), edge_point(m, to)
    if m.name == "river_bridges" and len({start_side, to} & {"n", "s"}) == 0:
        # the river runs west-east: the two ends lie on opposite banks, a named corner keeping its own bank
        # (the north-east corner stays north); with no bank named the start is north, the destination south
        dest_north = "n" in to if ("n" in to or "s" in to) else "s" in start_side
        north, south = m.height * 0.3, m.height * 0.7
        a = (a[0], max(a[1], south) if dest_north else min(a[1], north))
        b = (b[0], min(b[1], north) if dest_north else max(b[1], south))
    return G.passable_near(m, *a, [], 0.0, True), G.passable_near(m, *b, [], 0.0, True)


def route(m, a: tuple[float, float], b: tuple[float, float]) -> list[tuple[float, float]]:
    """The ground path from `a` to `b` as units walk it (the engine's flow field toward `b`)."""
    passable = ground_passable(terrain_array(m))
    gx, gy = int(b[0]), int(b[1])
    field = compute_flow_field(passable, gx, gy)
    x, y = int(a[0]), int(a[1])
    path = [(x + 0.5, y + 0.5)]
    for _ in range(m.width * m.height):
        if (x, y) == (gx, gy):
            break
        dx, dy = field.dir_x[y, x], field.dir_y[y, x]
        if dx == 0 and dy == 0:
            break
        x, y = x + int(np.sign(dx)), y + int(np.sign(dy))
        path.append((x + 0.5, y + 0.5))
    return path


def along(path: list[tuple[float, float]], share: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """The point `share` of the way along `path` (by length) and the path's unit direction there."""
    steps = [math.dist(p, q) for p, q in zip(path, path[1:])]
    goal, walked = share * sum(steps), 0.0
    for (p, q), d in zip(zip(path, path[1:]), steps):
        if walked + d >= goal and d > 0:
            k = min(len(path) - 1, path.index(q) + 3)
            far = path[k]
            n = math.dist(p, far) or 1.0
            return p, ((far[0] - p[0]) / n, (far[1] - p[1]) / n)
        walked += d
    return path[-1], (1.0, 0.0)


def ambush_sites(m, path: list[tuple[float, float]]) -> list[list[float]]:
    """Candidate ambush sites: SITE_OFFSET tiles to either side of the route at each share of its
    length, on ground of the route's region and within the trigger radius of the route."""
    passable = ground_passable(terrain_array(m))
    labels, _ = label_regions(passable)
    region = labels[int(path[0][1]), int(path[0][0])]
    ys, xs = np.nonzero(labels == region)
    cx, cy = xs + 0.5, ys + 0.5
    pts = np.array(path)
    sites: list[list[float]] = []
    for share in SITE_SHARES:
        (px, py), (dx, dy) = along(path, share)
        for side in (1, -1):
            wx, wy = px - dy * SITE_OFFSET * side, py + dx * SITE_OFFSET * side
            k = int(np.argmin((cx - wx) ** 2 + (cy - wy) ** 2))
            x, y = float(cx[k]), float(cy[k])
            if np.min(np.hypot(pts[:, 0] - x, pts[:, 1] - y)) <= TRIGGER_RADIUS - 2 \
                    and all(math.dist((x, y), s) > 3.0 for s in sites):
                sites.append([round(x, 1), round(y, 1)])
    return sites


def _length(path: list[tuple[float, float]]) -> float:
    return sum(math.dist(p, q) for p, q in zip(path, path[1:]))


def fit_start(m, start: tuple[float, float], dest: tuple[float, float], vip: str, deadline: float,
              ambushes: int) -> tuple[tuple[float, float], list[tuple[float, float]]]:
    """The start moved toward the destination until the escort's pace covers the route with time
    to spare for the ambushes (a deadline shorter than the map is wide), and the route from it."""
    speed = load_catalog().units[vip].speed
    budget = max(MIN_ROUTE, (deadline - FIGHT_SECONDS * ambushes) / TRAVEL_SLACK * speed)
    path = route(m, start, dest)
    for _ in range(10):
        if _length(path) <= budget:
            break
        start = G.passable_near(m, *G.lerp(dest, start, 0.8 * budget / max(1.0, _length(path))), [], 0.0, True)
        path = route(m, start, dest)
    return start, path


def _map_for_trip(c: Concepts, vip: str, deadline: float, ambushes: int) -> dict:
    """The map: the one the request names, else the default unless a start the request names ("from the
    south-east corner") is too far from the destination for the deadline there: then the first smaller map on
    which the trip fits from where the request puts it (moving the start would build another trip)."""
    if c.map_hint or not c.escort_from:
        return {"name": c.map_hint or MAP_DEFAULT}
    for name in (MAP_DEFAULT, *TRIP_MAPS):
        m = G.load({"name": name})
        start, dest = endpoints(m, c)
        if fit_start(m, start, dest, vip, deadline, ambushes)[0] == start:
            return {"name": name}
    return {"name": MAP_DEFAULT}


def _xy(p: tuple[float, float]) -> list[float]:
    return [round(p[0], 1), round(p[1], 1)]


def design(brief: Brief, c: Concepts, strength: float, requirements) -> GDD:
    """The escort GDD; `requirements(expects)` attaches the evidence to the brief's requirements."""
    vip = c.escort_unit or "commander"
    count = c.escort_count
    deadline = float(c.deadline or c.time_limit)
    active = max(1, min(len(SITE_SHARES), c.waves or ACTIVE_AMBUSHES))
    map_ref = _map_for_trip(c, vip, deadline, active)
    m = G.load(map_ref)
    start, dest = endpoints(m, c)
    start, path = fit_start(m, start, dest, vip, deadline, active)
    sites = ambush_sites(m, path)
    active = min(active, max(1, len(sites) - 1))
    ambush = ambush_units(vip, count, strength)
    cat = load_catalog().units
    # the guards that fight the ground ambushers (anti-air ones do not)
    named = {t: n for t, n in c.player_start.items() if t != vip and cat[t].speed > 0 and cat[t].weapon
             and cat[t].weapon.hits_ground}
    if named:
        # the request names the guards: each ambush is one they outfight by GUARD_MARGIN
        ambush = ambush_beaten_by(named, strength)
    taken = [start]
    units = [UnitPlacement(type=vip, count=count, x=round(start[0], 1), y=round(start[1], 1), tag=VIP_TAG)]
    # the guards stand between the escorted unit and the road ahead
    ahead = G.lerp(start, path[min(len(path) - 1, 6)], 1.0)
    groups = [(t, min(GUARD_GROUP, n - i)) for t, n in guard_units(ambush, count).items() for i in range(0, n, GUARD_GROUP)]
    for k, (t, n) in enumerate(groups):
        # small groups on spots of their own: a large ring of heavy units overlaps itself
        x, y = G.passable_near(m, ahead[0] + (k % 2) * 4, ahead[1] + (k // 2) * 4 - 2, taken, 4.5, True)
        taken.append((x, y))
        units.append(UnitPlacement(type=t, count=n, x=round(x, 1), y=round(y, 1)))
    comps = [
        RuleComponent(id="escort_arrival", purpose=f"the {vip.replace('_', ' ')} entering the destination wins"
                      f"{' (every one of the convoy)' if count > 1 else ''}; the deadline loses", kind="objective",
                      library_rule="escort_arrival", requirement_ids=["escort_arrival", "deadline"],
                      params={"team": PLAYER, "tag": VIP_TAG, "to": _xy(dest), "radius": DEST_RADIUS,
                              "deadline": deadline, "need": count}),
        RuleComponent(id="vip_loss", purpose=f"losing the {vip.replace('_', ' ')} loses", kind="termination",
                      library_rule="protect_objective_loss", requirement_ids=["protect_unit"],
                      params={"team": PLAYER, "tag": VIP_TAG, "mode": "any"}),
        RuleComponent(id="route_ambush", purpose=f"hidden ambushes at {active} of {len(sites)} candidate sites beside "
                      "the route, drawn per seed, spring on the escorted unit and chase it", kind="spawn",
                      library_rule="route_ambush", requirement_ids=["ambush"],
                      params={"team": ENEMY, "target_team": PLAYER, "target_tag": VIP_TAG, "sites": sites,
                              "active": active, "units": ambush, "trigger_radius": TRIGGER_RADIUS}),
    ]
    size = sum(ambush.values())
    won = {"result": {"winners_include": PLAYER, "reason_contains": "reached", "duration_max": deadline}}
    idle_lost = {"result": {"losers_include": PLAYER, "duration_min": deadline - 1, "duration_max": deadline + 2,
                            "reason_contains": "did not reach"}}
    expects = {
        "escort_arrival": [
            won, {"event": "rule_log", "where": {"rule": "escort_arrival", "name": "vip_arrived", "fields.type": vip},
                  "min": count, "max": count},
            {"event": "rule_log", "where": {"rule": "escort_arrival", "name": "escort", "fields.x": _xy(dest)[0],
                                            "fields.y": _xy(dest)[1], "fields.count": count}, "min": 1, "max": 1},
            {"state": {"at": 0, "team": PLAYER, "type": vip, "tag": VIP_TAG, "units_min": count, "units_max": count,
                       "within": {"x": _xy(start)[0], "y": _xy(start)[1], "radius": 3.0}}}],
        "protect_unit": [
            {"event": "rule_log", "where": {"rule": "vip_loss", "name": "objectives", "fields.tag": VIP_TAG,
                                            "fields.mode": "any", "fields.count": count}, "min": 1, "max": 1}],
        "ambush": [
            {"event": "rule_log", "where": {"rule": "route_ambush", "name": "ambush_sites",
                                            "fields.candidates": len(sites)}, "min": 1, "max": 1},
            {"event": "rule_log", "where": {"rule": "route_ambush", "name": "ambush", "fields.units": size}, "min": 1},
            {"event": "spawn", "where": {"source": "rule", "team": ENEMY}, "min": size}],
        "deadline": {"reference": [won], "idle": [idle_lost]},
    }
    teams = [TeamPlan(id=PLAYER, name="Escort", role="player", controller={"type": "agent"}, units=units),
             TeamPlan(id=ENEMY, name="Ambushers", role="enemy", controller={"type": "ai", "behaviour": "idle"})]
    name = vip.replace("_", " ")
    whom = f"your convoy of {count} {name}s" if count > 1 else f"your {name}"
    desc = (f"Bring {whom} (tagged '{VIP_TAG}') to the marked destination at ({_xy(dest)[0]:g}, {_xy(dest)[1]:g}) "
            f"within {deadline / 60:g} minutes; losing {'one of them' if count > 1 else 'it'} loses the game. Hidden "
            f"ambushes wait beside the route at {active} of {len(sites)} possible sites, which change from game to "
            f"game; each springs when the {name} comes near and goes for it. Keep your guards with it and beat "
            "each ambush before it reaches the escorted unit.")
    role = {"role": "escort", "tag": VIP_TAG, "count": count, "to": _xy(dest)}
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=False,
               time_limit=deadline + 30, requirements=requirements(expects),
               win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="defend",
               strategy_params={"home": _xy(start), "roles": [role]},
               variation=variation(sites, active, start, dest))


def variation(sites: list[list[float]], active: int, start: tuple[float, float],
              dest: tuple[float, float]) -> Variation:
    """What the seed draws (which sites hold an ambush) and the blind plans that must not win: the
    whole force marching straight to the destination, and the escorted unit sent alone."""
    march = Probe(name="straight_march", exploit="everything marches straight to the destination at the start, the "
                  "escorted unit with the guards",
                  orders=[ScriptedOrder(t=0, kind="fight", x=round(dest[0], 1), y=round(dest[1], 1)),
                          ScriptedOrder(t=0, kind="move", x=round(dest[0], 1), y=round(dest[1], 1), tag=VIP_TAG)])
    alone = Probe(name="vip_alone", exploit="the escorted unit drives to the destination alone at the start",
                  orders=[ScriptedOrder(t=0, kind="move", x=round(dest[0], 1), y=round(dest[1], 1), tag=VIP_TAG)])
    return Variation(varies=[SeedVariation(
        what=f"which {active} of the {len(sites)} candidate sites beside the route hold an ambush", how="route_ambush.sites",
        observe="watch the flanks as the escorted unit advances and engage each ambush as it springs; a convoy that "
                "marches on blind meets an ambush where the last game had none")],
        probes=[march, alone], knob="route_ambush.units")
