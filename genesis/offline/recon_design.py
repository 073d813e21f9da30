"""The offline reconnaissance family: locate hidden enemy targets with a scout before a deadline.

Under fog of war the targets (the roster type the request names) stand at some of the map's candidate
sites, drawn per seed (library rule `seeded_layout`), each guarded by bots that hold their post and
destroy a scout coming within their range. Seeing every target wins (`locate_targets`, through the rule API's
`visible`); the deadline loses, and so does losing the scout when the request says so. The reference
plays the `scout` role (`engine.agent.reference.roles`): it looks at the unseen map nearest first and
keeps out of the range of the guards it has seen.
"""
from __future__ import annotations

import math

import numpy as np

from engine.agent.scripted import Probe, ScriptedOrder
from engine.catalog import load_catalog
from genesis.models import GDD, Brief, Concepts, RuleComponent, SeedVariation, TeamPlan, UnitPlacement, Variation
from genesis.offline import geometry as G
from genesis.offline import layout_variation as LV
from genesis.quantities import clock

PLAYER, ENEMY = 0, 1
SCOUT_TAG, TARGET_TAG = "scout", "target"
SCOUT_TYPE = "scout"
GUARD_TYPE, GUARDS = "light_bot", 2   # each target's guards: they hold their post and shoot a scout in range
# tiles between a target and its guards, on the side away from the scout's start: a scout that keeps beyond the
# guards' reach (weapon range + the reference's retreat margin) still sees the target from its own side; with
# the guards in front or close by, that reach would hide it
GUARD_OFFSET = 5.5
SITE_RINGS = (0.28, 0.4)  # candidate sites stand on two rings round the map centre (share of its width) ...
SITE_ANGLES = 8           # ... at this many angles each, alternating rings
MIN_START_DIST = 24.0     # tiles: no site within the scout's first sight
LAYOUTS = 8               # seeded layouts (which sites hold the targets) drawn from
EDGE = 6.5                # tiles from the map's edges of a start without a spawn there
SEARCH_SHARE = 0.35       # of the deadline, the scout's straight drive across the generated map
MAP_MIN, MAP_MAX = 56, 96   # tiles: the generated map's side


def search_map(deadline: float) -> dict:
    """An open generated map (no cliffs or water to get stuck on) as wide as the scout drives in a share
    of the deadline: a search of the whole map fits in it."""
    side = int(min(MAP_MAX, max(MAP_MIN, SEARCH_SHARE * deadline * load_catalog().units[SCOUT_TYPE].speed)))
    return {"generate": {"width": side, "height": side, "seed": 11, "cliff_density": 0.0, "water_density": 0.0,
                         "deposits": 8, "symmetry": "rotational"}}


def candidate_sites(m, start: tuple[float, float]) -> list[list[float]]:
    """Sites round the map centre on alternating rings, on open ground, away from the scout's start."""
    cx, cy = m.width / 2, m.height / 2
    sites: list[list[float]] = []
    for k in range(SITE_ANGLES):
        a = 2 * math.pi * k / SITE_ANGLES + math.pi / SITE_ANGLES
        r = SITE_RINGS[k % 2] * min(m.width, m.height)
        x, y = LV.open_spot(m, cx + r * math.cos(a), cy + r * math.sin(a), GUARD_OFFSET + 1.0)
        if math.dist((x, y), start) >= MIN_START_DIST and all(math.dist((x, y), s) > 8 for s in sites):
            sites.append([round(x, 1), round(y, 1)])
    return sites


def layouts(m, sites: list[list[float]], n: int, start: tuple[float, float], target: str, guards: int = GUARDS
            ) -> list[dict]:
    """LAYOUTS distinct choices of `n` sites (a fixed draw: the design is reproducible), each a
    seeded_layout entry placing a target and its guards at every chosen site."""
    rng = np.random.default_rng(len(sites) * 100 + n)
    chosen: list[tuple[int, ...]] = []
    for _ in range(200):
        pick = tuple(sorted(int(i) for i in rng.choice(len(sites), size=n, replace=False)))
        if pick not in chosen:
            chosen.append(pick)
        if len(chosen) == LAYOUTS:
            break
    out = []
    for k, pick in enumerate(chosen, 1):
        units = []
        for i in pick:
            x, y = sites[i]
            d = math.dist((x, y), start) or 1.0
            gx, gy = G.passable_near(m, x - (start[0] - x) / d * GUARD_OFFSET, y - (start[1] - y) / d * GUARD_OFFSET,
                                     [(x, y)], 1.5, True)
            units += [{"team": ENEMY, "type": target, "count": 1, "x": x, "y": y, "tag": TARGET_TAG},
                      {"team": ENEMY, "type": GUARD_TYPE, "count": guards, "x": round(gx, 1), "y": round(gy, 1)}]
        out.append({"name": "sites " + ", ".join(str(i + 1) for i in pick), "units": units})
    return out


def design(brief: Brief, c: Concepts, strength: float, requirements) -> GDD:
    """The recon GDD; `requirements(expects)` attaches the evidence to the brief's requirements. The
    enemy strength the PM asks for sets how many guards stand by each target."""
    deadline = float(c.deadline or c.time_limit)
    map_ref = {"name": c.map_hint} if c.map_hint else search_map(deadline)
    m = G.load(map_ref)
    sp = G.spawns(m)
    start = G.passable_near(m, *(sp.get("sw") or (EDGE, m.height - EDGE)), [], 0.0, True)
    target = c.locate_type or "metal_extractor"
    n = c.locate_count or 4
    sites = candidate_sites(m, start)
    n = min(n, len(sites) - 1)
    drawn = layouts(m, sites, n, start, target, max(1, round(GUARDS * strength)))
    # the searchers: the mobile units the request names ("using 2 light bots"), else one scout
    catalog = load_catalog().units
    searchers = {t: n for t, n in c.player_start.items() if catalog[t].speed > 0} or {SCOUT_TYPE: 1}
    units = [UnitPlacement(type=t, count=k, x=start[0], y=start[1] + 3 * i, tag=SCOUT_TAG)
             for i, (t, k) in enumerate(searchers.items())]
    scouts = sum(searchers.values())
    comps = [
        LV.layout_component(drawn, ["hidden_targets"], f"the {n} targets and their guards at {n} of {len(sites)} "
                            f"candidate sites, one of {len(drawn)} layouts drawn per seed"),
        RuleComponent(id="locate_targets", purpose="seeing every target wins; the deadline loses", kind="objective",
                      library_rule="locate_targets", requirement_ids=["locate_win", "deadline"],
                      params={"team": PLAYER, "target_team": ENEMY, "target_tag": TARGET_TAG, "deadline": deadline}),
    ]
    if c.protect_unit:
        every = c.protect_all and scouts > 1
        comps.append(RuleComponent(id="scout_loss", purpose="losing every scout loses" if every else "losing the scout loses",
                                   kind="termination", library_rule="protect_objective_loss",
                                   requirement_ids=["protect_unit"],
                                   params={"team": PLAYER, "tag": SCOUT_TAG, "mode": "all" if every else "any"}))
    won = {"result": {"winners_include": PLAYER, "reason_contains": f"found all {n}", "duration_max": deadline}}
    expects = {
        "locate_win": [won, {"event": "rule_log", "where": {"rule": "locate_targets", "name": "target_found",
                                                            "fields.found": n, "fields.of": n}, "min": 1, "max": 1}],
        # hidden until seen: nothing is found at the start, every target is found later
        "hidden_targets": [
            {"event": "rule_log", "where": {"rule": "layout", "name": "layout", "fields.of": len(drawn)}, "min": 1,
             "max": 1},
            {"event": "spawn", "where": {"source": "rule", "team": ENEMY, "type": target}, "min": n, "max": n},
            {"event": "rule_log", "where": {"rule": "locate_targets", "name": "target_found"}, "before": 2, "max": 0},
            {"event": "rule_log", "where": {"rule": "locate_targets", "name": "targets", "fields.count": n}, "min": 1,
             "max": 1}],
        "deadline": {"reference": [won], "idle": [{"result": {"losers_include": PLAYER, "duration_min": deadline - 1,
                                                              "duration_max": deadline + 2,
                                                              "reason_contains": "did not find"}}]},
        "protect_unit": [{"event": "rule_log", "where": {"rule": "scout_loss", "name": "objectives",
                                                         "fields.tag": SCOUT_TAG, "fields.count": scouts}, "min": 1, "max": 1}],
    }
    teams = [TeamPlan(id=PLAYER, name="Recon", role="player", controller={"type": "agent"}, units=units),
             TeamPlan(id=ENEMY, name="Hidden", role="enemy", controller={"type": "ai", "behaviour": "hold"})]
    name = target.replace("_", " ")
    party = ("your one fast scout" if searchers == {SCOUT_TYPE: 1} else "your " + " and ".join(
        f"{k} {t.replace('_', ' ')}{'s' if k > 1 else ''}" for t, k in searchers.items()))
    targets = f"the enemy {name}" if n == 1 else f"all {n} enemy {name}s"
    desc = (f"Fog of war is on. With {party}, find {targets} before {clock(deadline)} on the game clock: "
            f"{'it counts' if n == 1 else 'each counts'} as found once one of your units has seen it. "
            + (f"It stands at one of {len(sites)} possible sites" if n == 1 else
               f"They stand at {n} of {len(sites)} possible sites")
            + ", which change from game to game, each guarded by bots that destroy a scout coming within their range: "
            "look from afar." + ((" Losing all of them loses the game." if c.protect_all and scouts > 1 else
                                  " Losing the scout loses the game." if scouts == 1 else
                                  " Losing any of them loses the game.") if c.protect_unit else ""))
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=comps, fog_of_war=True, production=False,
               time_limit=deadline + 30, requirements=requirements(expects),
               win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="defend",
               strategy_params={"home": [start[0], start[1]], "roles": [{"role": "scout", "tag": SCOUT_TAG, "count": scouts}]},
               variation=variation(m, sites, n, start))



def variation(m, sites: list[list[float]], n: int, start: tuple[float, float]) -> Variation:
    """What the seed draws (which sites hold the targets) and the blind plans that must not win: a fixed
    tour of every candidate site, and a fixed sweep of the map."""
    speed = load_catalog().units[SCOUT_TYPE].speed

    def tour(points: list[tuple[float, float]]) -> list[ScriptedOrder]:
        orders, t, here = [], 0.0, start
        for p in points[:20]:
            orders.append(ScriptedOrder(t=round(t, 1), kind="move", x=round(p[0], 1), y=round(p[1], 1), tag=SCOUT_TAG))
            t += math.dist(here, p) / speed
            here = p
        return orders

    sites_xy = [tuple(s) for s in sites]
    order = sorted(sites_xy, key=lambda s: math.atan2(s[1] - m.height / 2, s[0] - m.width / 2))
    quarter = [(m.width * fx, m.height * fy) for fx, fy in ((0.25, 0.75), (0.25, 0.25), (0.75, 0.25), (0.75, 0.75))]
    return Variation(varies=[SeedVariation(
        what=f"which {n} of the {len(sites)} candidate sites hold the targets (and their guards)",
        how="layout.layouts", observe="search the fog and look at each target from beyond its guards' range; a "
                                      "fixed route meets guards where the last game had an empty site")],
        probes=[Probe(name="site_tour", exploit="the scout drives past every candidate site in a fixed order",
                      orders=tour(order)),
                Probe(name="quarter_sweep", exploit="the scout sweeps the four quarters of the map in a fixed order",
                      orders=tour(quarter))], knob="layout.layouts")
