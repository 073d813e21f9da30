"""Stage 2 offline: a brief -> a game design document, composed from the rule library."""
from __future__ import annotations

import math
import re
from contextvars import ContextVar

from engine.catalog import load_catalog
from engine.engagement import worth
from engine.level import RING_GROWTH, RING_SIZE
from genesis.models import GDD, Brief, Concepts, Requirement, RuleComponent, TeamPlan, UnitPlacement, Variation
from genesis.offline import composed_designs, concepts, economy, pm_brain, wave_growth
from genesis.offline import elimination_design as ED
from genesis.offline import geometry as G
from genesis.offline import variation as V
from genesis.offline.brief_writer import production_defaulted
from genesis.offline.composed_designs import Site

PLAYER, ENEMY = 0, 1
OBJECTIVE_TAG = "objective"
SIEGE_SIDE_SHARE = 0.55    # a siege base on a named side: this share of the way from the map centre to that edge
COMPACT_RADIUS = 12.0   # tiles: how far from home objectives under raids / fog may stand
RAID_RADIUS = 9.0       # tiles: how far from home the economy raided through the fog stands
AIR_COVER_RADIUS = 4.0  # tiles: fragile objectives under air attack stand this close to home, inside AA range of it
AIR_FRONT_DIST = 30.0   # tiles: air attacks spawn at least this far from home when the map allows
FRAGILE_HP = 1000.0     # objectives with fewer hit points fall to one wave before the defence arrives


def _bombs_to_destroy(unit_type: str) -> int:
    """Bomber hits that destroy one `unit_type`: a target that takes many stands beyond the reach of
    anti-air idling at home (it would save it with no player), as the defence has time to come."""
    cat = load_catalog().units
    return math.ceil(cat[unit_type].hp / cat["bomber"].weapon.damage) if unit_type in cat else 1


def _fragile(unit_type: str) -> bool:
    u = load_catalog().units.get(unit_type)
    return u is not None and u.hp < FRAGILE_HP
COMMANDER_RAIDS = 2     # "the enemy commander may raid you": it leads this many raids


def _map_for(c: Concepts) -> dict:
    if c.map_hint:
        return {"name": c.map_hint}
    if c.archetype == "ffa":
        # more than five armies need room between neighbours, or the reference is caught between two
        side = 128 if c.teams * max(1, c.team_size) > 5 else 96
        return {"generate": {"width": side, "height": side, "seed": 7, "cliff_density": 0.06, "water_density": 0.03,
                             "deposits": 16, "symmetry": "rotational"}}
    if c.archetype == "siege":
        return {"name": "plateau_fortress"}
    if c.archetype == "production":
        return {"name": "open_field"}
    if c.archetype in ("defense", "raids", "capture") and (c.fronts or 2) <= 2 and not c.random_side:
        return {"name": "two_front_corridor"}
    return {"name": "crossroads"}


def map_choice(c: Concepts, query: str) -> dict:
    """The map the offline designer builds on: the brief names it, so the GDD stage knows which terrain counts."""
    if c.map_hint:
        return {"name": c.map_hint}
    if c.archetype in ("defense", "raids") and c.directions:
        # named sides need a map whose spawns lie on the compass around the base
        return {"name": "crossroads"}
    if c.archetype == "capture":
        from genesis.offline import layout_variation as LV   # here, not at the top: the families' own module

        return {"name": "open_field" if LV.zone_fixed(query) else "crossroads"}
    if c.archetype == "teams":
        return {"name": "crossroads"}
    if c.archetype == "resources":
        from genesis.offline import resource_design   # here, not at the top: the family's own module

        return resource_design.map_for(c)
    return _map_for(c)


def _wave_units(c: Concepts, strength: float = 1.0) -> dict[str, int]:
    """The units of one ground wave: the types the request names, as strong together as the usual mix."""
    usual = _usual_wave_units(c, strength)
    if not c.wave_units:
        return usual
    each = math.sqrt(_power(usual) / _power({t: 1 for t in c.wave_units}))   # power grows with the square of size
    return {t: max(1, round(each)) for t in c.wave_units}


def _usual_wave_units(c: Concepts, strength: float = 1.0) -> dict[str, int]:
    if "artillery" in c.unit_kinds and c.archetype != "siege":
        return {"artillery_bot": _scaled(2, strength, 1), "light_bot": _scaled(2, strength, 1)}
    if "tank" in c.unit_kinds:
        return {"light_tank": _scaled(3, strength, 1)}
    return {"light_bot": _scaled(4, strength, 1), "assault_bot": _scaled(1, strength, 1)}


def wave_types(c: Concepts) -> set[str]:
    """The unit types the attacks of a defence or raid design are made of (ground waves, raiders, an air
    attack's bombers, a raid the enemy commander leads)."""
    if air_only_raids(c) and c.archetype in ("defense", "raids"):
        return {"bomber"}
    return ({_raider(c)} if c.archetype == "production" else {_relief_type(c)} if c.archetype == "capture" else
            {_main_type(c)} if _one_type_waves(c) else set(_wave_units(c))) \
        | ({"bomber"} if c.air else set()) | ({"commander"} if "commander" in c.unit_kinds else set())


def air_only_raids(c: Concepts) -> bool:
    """"Bombers ..., a new group every 2:30": the raids at the request's interval (or from a random side) are
    themselves the air assault, when the request names no ground attacker."""
    growing = bool(c.escalating or c.growth_factor or c.wave_sizes)
    return (c.air and not c.ground and not c.wave_units and not growing and not c.probe_then_main and not c.scouting
            and bool(c.random_side or c.wave_interval))


def _one_type_waves(c: Concepts) -> bool:
    """The defence's attacks are one unit type: growing waves and raids from a random side at an interval
    (library rules with one `unit_type`), in the order `_defense` picks its attack."""
    return bool(c.escalating or c.growth_factor or c.wave_sizes) or (not c.probe_then_main and not c.scouting
                                                     and bool(c.random_side or c.wave_interval))


def _relief_type(c: Concepts) -> str:
    """The unit a capture's relief columns are made of: the attackers named, else tanks or bots as said."""
    return c.wave_units[0] if c.wave_units else "light_tank" if "tank" in c.unit_kinds else "light_bot"


def _relief_size(c: Concepts, strength: float) -> int:
    """Units of the relief type in a column as strong as RELIEF_SIZE light bots at this enemy strength (a column of
    light tanks is a third as many)."""
    return max(1, round(_scaled(RELIEF_SIZE, strength, 1) / worth(_relief_type(c))))


def _raider(c: Concepts) -> str:
    """The unit a production race's raids are made of."""
    return "commander" if "commander" in c.unit_kinds else composed_designs.ground_raider(c)


def _main_type(c: Concepts) -> str:
    if c.wave_units:
        return c.wave_units[0]
    if "tank" in c.unit_kinds:
        return "light_tank"
    if "raider" in c.unit_kinds:
        return "raider_bot"
    return "light_bot"


ARMED_OBJECTIVE_MARGIN = 2.5   # an armed objective left alone faces waves this many times its fighting strength
MAX_SCALE = 8.0                # the most waves and the defence are grown: a bound on the search, whatever the units


def _named_army_scale(c: Concepts) -> float:
    """Waves against an army the request names ("with only your commander") are sized to it: the family's
    army over the named one, as a square-law ratio of fighting strength (never above 1)."""
    cat = load_catalog().units
    named = {t: n for t, n in c.player_start.items() if cat[t].speed > 0 and cat[t].weapon}
    if not named:
        return 1.0
    return min(1.0, math.sqrt(_power(named) / _power(_ground_army(c))))


def _armed_objective_scale(c: Concepts) -> float:
    """How much larger than usual the waves (and the defence) are when the objective fights back (a
    heavy tank, a commander): left alone it must fall to the waves, or an idle player wins."""
    cat = load_catalog().units
    alone = _power({c.objective_type: 1}) if c.objective_type in cat else 0.0
    scale = 1.0
    while _power(_wave_units(c, scale)) < ARMED_OBJECTIVE_MARGIN * alone and scale < MAX_SCALE:
        scale += 0.25
    return scale


def _ground_army(c: Concepts, k: float = 1.0) -> dict[str, int]:
    if c.archetype == "raids":
        # raiders are fast: only a fast defence reaches the economy in time (grown only with waves grown
        # against an armed objective, such as a commander the raids hunt)
        return {"light_tank": round(5 * k), "light_bot": round(6 * k)}
    return {"assault_bot": round(6 * k), "light_bot": round(6 * k)}


def _defense_army(c: Concepts, wave_scale: float = 1.0) -> list[UnitPlacement]:
    """The player's army; waves grown against an armed objective (`wave_scale`) grow it too, so the
    defence keeps the margin it has over ordinary waves."""
    k = 1.0
    if wave_scale > 1:
        margin = _power(_ground_army(c)) / _power(_wave_units(c))
        while _power(_ground_army(c, k)) < margin * _power(_wave_units(c, wave_scale)) and k < MAX_SCALE:
            k += 0.25
    army = [UnitPlacement(type=t, count=n) for t, n in _ground_army(c, k).items()]
    if c.air:
        # first, so the anti-air takes the spot at home, nearest every objective it covers; five of
        # them down a bomber (650 hp) in about 3 s, before its second pass on a building
        army.insert(0, UnitPlacement(type="aa_vehicle", count=5))
    return army


USUAL_WAVES = 4      # waves a defence of the family's size is balanced against
AIR_STAGING = 18.0   # tiles from home at which an air raid's defence starts: its anti-air out of reach of the objectives
AIR_GUARD_RADIUS = 12.0   # tiles from an objective within which the reference's anti-air meets a bomber


def _air_raid_staging(m, base: tuple[float, float], fronts: list, taken: list) -> tuple[float, float]:
    """Where the defence against air raids starts: AIR_STAGING tiles from home, away from the raids' sides, so
    anti-air left standing there covers no objective (an idle player would hold as well as one who moves it)."""
    dx = sum(base[0] - f[0] for f in fronts) or 1.0
    dy = sum(base[1] - f[1] for f in fronts)
    k = AIR_STAGING / math.hypot(dx, dy)
    x = min(max(base[0] + dx * k, 3.0), m.width - 3.0)
    y = min(max(base[1] + dy * k, 3.0), m.height - 3.0)
    return V.open_ground_near(m, x, y, taken, 3.0)


GROUP_STEP = 5.0
GROUP_OFFSETS = [(0, 0), (0, GROUP_STEP), (0, -GROUP_STEP), (GROUP_STEP, 0), (-GROUP_STEP, 0), (GROUP_STEP, GROUP_STEP),
                 (-GROUP_STEP, -GROUP_STEP), (GROUP_STEP, -GROUP_STEP), (-GROUP_STEP, GROUP_STEP)]


def _group_radius(g: UnitPlacement) -> float:
    """The outer ring of a start group as the engine lays it out (engine.level)."""
    return g.spread * (1 + max(0, g.count - 2) // RING_SIZE * RING_GROWTH) if g.count > 1 else 0.0


def _ring_spread(g: UnitPlacement) -> float:
    """The least spread at which neighbouring units of the group's first ring stand clear of each other (the
    engine sets them 360/(count-1) degrees apart): a group the balance grew to 32 overlapped on spread 2."""
    size = load_catalog().units[g.type].size * 1.1
    return size if g.count <= 2 else size / (2 * math.sin(math.pi / (g.count - 1)))


def _spread(m, groups: list[UnitPlacement], center: tuple[float, float], taken: list,
            safe: bool = False, beside: list[UnitPlacement] = ()) -> list[UnitPlacement]:
    """Gives each unit group its own spot near `center` so groups placed in rings never overlap: big groups
    (wider rings) are set further apart, and `beside` (groups already placed, at `taken` spots) keep their
    rings clear too."""
    out = []
    groups = [g.model_copy(update={"spread": max(g.spread, _ring_spread(g))}) for g in groups]
    widest = max((_group_radius(g) for g in groups), default=0.0)
    scale = max(1.0, (2 * widest + 1.5) / GROUP_STEP)
    clearance = max(4.0, widest + max((_group_radius(g) for g in beside), default=0.0) + 1.5)
    for k, g in enumerate(groups):
        dx, dy = (scale * d for d in GROUP_OFFSETS[k % len(GROUP_OFFSETS)])
        x, y = G.passable_near(m, center[0] + dx, center[1] + dy, taken, clearance=clearance, main_region_only=safe)
        taken.append((x, y))
        out.append(g.model_copy(update={"at": None, "x": round(x, 1), "y": round(y, 1)}))
    return out


def _settled(gdd: GDD) -> GDD:
    """The start groups as placed with no two overlapping: each family spreads its own groups, but groups
    added beside them (start forces, defenders, objectives) can land within another's ring; such a later
    group moves to the nearest ground clear of every other group's ring."""
    from genesis.checks.gdd_checks import overlaps, start_placement   # the engine's own layout of start units

    m = G.load(gdd.map)
    catalog = load_catalog()
    for _ in range(sum(len(t.units) for t in gdd.teams)):
        placed, _problems = start_placement(gdd, m)
        owner = [(ti, ui) for ti, t in enumerate(gdd.teams) for ui, u in enumerate(t.units) for _ in range(u.count)]
        if len(owner) != len(placed):
            return gdd           # a group the engine cannot place: the GDD check names it
        clashes = list(overlaps(placed))
        clash = next(((i, j) for i, j, _gap in clashes if owner[i] != owner[j]), None)
        if clash is None:
            own = next((owner[i] for i, j, _gap in clashes if owner[i] == owner[j]), None)
            if own is None:
                return gdd
            # a group whose ring reaches water or rock has units pushed onto one tile: it moves to open ground
            gdd = _moved(gdd, own, m, open_ground=True)
            continue
        # the later group moves, unless it is a building and the earlier one is not (a building's place is
        # often the design: a target, an objective on a named side)
        first, later = (owner[k] for k in clash)
        moving = first if (catalog.units[placed[clash[1]].type].speed == 0
                           and catalog.units[placed[clash[0]].type].speed > 0) else later
        gdd = _moved(gdd, moving, m)
    return gdd


def _moved(gdd: GDD, group: tuple[int, int], m, open_ground: bool = False) -> GDD:
    """The GDD with team `group[0]`'s start group `group[1]` moved to the nearest ground clear of every other
    group's ring (and, with `open_ground`, where its own ring stands on ground all round)."""
    ti, ui = group
    g = gdd.teams[ti].units[ui]
    if g.x is None:
        return gdd
    others = [(u.x, u.y) for t in gdd.teams for u in t.units if u is not g and u.x is not None]
    widest = max((_group_radius(u) for t in gdd.teams for u in t.units), default=0.0)
    clearance = _group_radius(g) + widest + 1.5
    x, y = (G.open_ground_near(m, g.x, g.y, _group_radius(g) + 1, others, clearance) if open_ground
            else G.passable_near(m, g.x, g.y, others, clearance=clearance))
    units = list(gdd.teams[ti].units)
    units[ui] = g.model_copy(update={"x": round(x, 1), "y": round(y, 1)})
    team = gdd.teams[ti].model_copy(update={"units": units})
    return gdd.model_copy(update={"teams": [team if k == ti else t for k, t in enumerate(gdd.teams)]})


def _expect_spawns(**extra) -> dict:
    return {"event": "spawn", "where": {"source": "rule", "team": ENEMY}, **extra}


def design(brief: Brief, guidance: list[str] | None = None) -> GDD:
    c = brief.concepts
    builder = {"defense": _defense, "raids": _defense, "capture": _capture, "production": _production,
               "ffa": _ffa, "teams": _teams, "siege": _siege, "escort": _escort,
               "recon": _recon, "micro": _micro, "resources": _resources}.get(c.archetype)
    if builder is None:
        raise ValueError(f"the offline designer has no design for archetype {c.archetype!r}: use a real model (--model)")
    built = builder(brief, c, guidance or [])
    ratio = _army_ratio(built, c)
    if abs(ratio - 1) > 0.15:
        # the request's own army replaces the family's: the enemy the family sized for its army is resized
        token = _ARMY_RATIO.set(ratio)
        try:
            built = builder(brief, c, guidance or [])
        finally:
            _ARMY_RATIO.reset(token)
    # production the request itself turns on (not the family's default) is usable beside an army it names
    asked = bool(c.production) and not production_defaulted(brief)
    gdd = _with_unopposed(_with_production_means(_with_start_forces(built, c), c, asked))
    gdd = _settled(gdd)
    # a component names only the requirements this brief has among those it can serve
    asked = {r.id for r in brief.requirements}
    return gdd.model_copy(update={"rule_components": [
        comp.model_copy(update={"requirement_ids": [i for i in comp.requirement_ids if i in asked]})
        for comp in gdd.rule_components]})


Expects = dict[str, list[dict] | dict[str, list[dict]]]   # by requirement id; may be split by run policy


def _with_start_forces(gdd: GDD, c: Concepts) -> GDD:
    """The player's start as the request gives it: each named unit type at exactly its count (placed by the
    player's first group when the family had none of it), the named metal; evidenced at t=0."""
    if not c.player_start and c.player_metal is None:
        return gdd
    player = next(t for t in gdd.teams if t.id == PLAYER)
    catalog = load_catalog().units
    # a named army replaces the family's untagged army; named buildings replace only their own kind
    army_named = any(catalog[t].speed > 0 for t in c.player_start)
    if _drawn_player_start(gdd):
        gdd = _layouts_with_start_forces(gdd, c, army_named)
        update: dict = {}
    else:
        # the family's tagged units of a named type (objectives to keep, a unit to protect) stay, and count
        kept: dict[str, int] = {}
        tagged = []
        for u in player.units:
            if u.type in c.player_start and u.tag is not None and kept.get(u.type, 0) + u.count <= c.player_start[u.type]:
                kept[u.type] = kept.get(u.type, 0) + u.count
                tagged.append(u)
        units = [u for u in player.units if u.type not in c.player_start
                 and not (army_named and catalog[u.type].speed > 0 and u.tag is None)]
        # the named units stand where the family's army waited: placed beside the first objective instead,
        # an idle army guarded it as well as any defence would
        army_at = [(u.x, u.y) for u in player.units if u.x is not None and u.tag is None and catalog[u.type].speed > 0]
        anchor = next(iter(army_at), None) or next(((u.x, u.y) for u in player.units if u.x is not None), None)
        m = G.load(gdd.map.model_dump())
        if anchor is None:
            anchor = G.base_point(m)[1]
        taken = [(u.x, u.y) for u in units + tagged if u.x is not None]
        rest = {t: n - kept.get(t, 0) for t, n in c.player_start.items() if n > kept.get(t, 0)}
        # more of the objective's type than the family placed are objectives too ("2 radar towers ... both standing"),
        # and more of a unit kept to the last are kept too ("if all my tanks die, I lose")
        kept_all = next((u.tag for u in tagged if c.protect_all and u.type == c.protect_unit), None)

        def tag_of(t: str) -> str | None:
            if t == c.objective_type and kept.get(t):
                return OBJECTIVE_TAG
            return kept_all if t == c.protect_unit else None
        units += tagged + _spread(m, [UnitPlacement(type=t, count=n, tag=tag_of(t)) for t, n in rest.items()], anchor, taken,
                                  beside=[u for u in units + tagged if u.x is not None])
        update = {"units": units}
    checks = [{"state": {"at": 0, "team": PLAYER, "type": t, "units_min": n, "units_max": n}}
              for t, n in c.player_start.items()]
    if c.player_metal is not None:
        update["metal"] = c.player_metal
        checks.append({"state": {"at": 0, "team": PLAYER, "metal_min": c.player_metal}})
    teams = [t.model_copy(update=update) if t.id == PLAYER else t for t in gdd.teams]
    reqs = [Requirement.model_validate({**r.model_dump(), "expect": checks}) if r.id == "start_forces" else r
            for r in gdd.requirements]
    return _roles_rebound(gdd.model_copy(update={"teams": teams, "requirements": reqs}), c)


def _roles_rebound(gdd: GDD, c: Concepts) -> GDD:
    """A reference role given to a unit type the named start replaced goes to the sturdiest armed type the
    player now starts with."""
    roles = gdd.strategy_params.get("roles")
    catalog = load_catalog().units
    have = {u.type for t in gdd.teams if t.id == PLAYER for u in t.units} | set(c.player_start)
    armed = sorted((t for t in have if t in catalog and catalog[t].speed > 0 and catalog[t].weapon),
                   key=lambda t: (-catalog[t].hp, t))
    if not roles or not armed or all(r.get("type") in (None, *have) for r in roles):
        return gdd
    rebound = [{**r, "type": armed[0]} if r.get("type") not in (None, *have) else r for r in roles]
    return gdd.model_copy(update={"strategy_params": {**gdd.strategy_params, "roles": rebound}})


def _layout_start(lay: dict, c: Concepts, army_named: bool, m) -> dict:
    """One drawn layout with the player's named start: each named type at exactly its count (the layout's own
    group of that type keeps its place and tag), the family's untagged army dropped when the request names one;
    a type the layout lacks stands on open ground near the layout's first group of the player."""
    catalog = load_catalog().units
    ours = [u for u in lay["units"] if u.get("team") == PLAYER]
    units = [u for u in lay["units"] if u.get("team") != PLAYER or (
        u["type"] not in c.player_start and not (army_named and catalog[u["type"]].speed > 0 and not u.get("tag")))]
    taken = [(u["x"], u["y"]) for u in lay["units"] if u.get("x") is not None]
    for k, (t, n) in enumerate(c.player_start.items()):
        own = next((u for u in ours if u["type"] == t), None)
        if own:
            units.append({**own, "count": n})
            continue
        # beside the first group, on the map (a spot below it fell off a small map and the unit was never placed)
        x, y = G.passable_near(m, ours[0]["x"], ours[0]["y"] + GROUP_STEP * (k + 1), taken, 4.0, True)
        taken.append((x, y))
        units.append({"team": PLAYER, "type": t, "count": n, "x": round(x, 1), "y": round(y, 1)})
    return {**lay, "units": units}


def _drawn_player_start(gdd: GDD) -> bool:
    return any(u.get("team") == PLAYER for comp in gdd.rule_components
               for lay in comp.params.get("layouts") or [] for u in lay.get("units", []))


def _layouts_with_start_forces(gdd: GDD, c: Concepts, army_named: bool) -> GDD:
    """A design that draws the player's start among layouts (the start units are the layout rule's, not the
    team's) gets the named start in every layout: given to the team as well, it stood on the map twice."""
    m = G.load(gdd.map.model_dump())
    return gdd.model_copy(update={"rule_components": [
        comp.model_copy(update={"params": {**comp.params, "layouts": [
            _layout_start(lay, c, army_named, m) for lay in comp.params["layouts"]]}})
        if comp.params.get("layouts") else comp for comp in gdd.rule_components]})


def _with_unopposed(gdd: GDD) -> GDD:
    """Evidence for "nobody attacks you": the enemy side has no unit at the start and none ever spawns."""
    checks = [{"state": {"at": 0, "team": ENEMY, "units_max": 0}}, {"event": "spawn", "where": {"team": ENEMY}, "max": 0}]
    return gdd.model_copy(update={"requirements": [
        Requirement.model_validate({**r.model_dump(), "expect": checks}) if r.id == "unopposed" else r
        for r in gdd.requirements]})


PRODUCTION_START = {"metal": 300.0, "energy": 600.0}   # what a player asked to produce starts with, when it has nothing


def _with_production_means(gdd: GDD, c: Concepts, asked: bool) -> GDD:
    """Production that is on is usable: a player with no builder or factory gets a constructor bot by its first
    group (beside an army the request names only when the request itself turns production on: "you start with
    6 assault bots, production on" can produce), and one with no resources the PRODUCTION_START amounts (said
    in the assumptions)."""
    # the production and resource families design the player's economy themselves
    if not (c.production and gdd.production) or c.archetype in ("production", "resources"):
        return gdd
    player = next(t for t in gdd.teams if t.id == PLAYER)
    catalog = load_catalog().units
    army_named = any(catalog[t].speed > 0 for t in c.player_start if t in catalog) and not asked
    builds = any(catalog[u.type].builds for u in player.units if u.type in catalog)
    if (builds or army_named) and player.metal > 0:
        return gdd
    update: dict = {}
    said = []
    if not builds and not army_named:
        m = G.load(gdd.map.model_dump())
        anchor = next(((u.x, u.y) for u in player.units if u.x is not None), None) or G.base_point(m)[1]
        taken = [(u.x, u.y) for u in player.units if u.x is not None]
        update["units"] = player.units + _spread(m, [UnitPlacement(type="constructor_bot", count=1)], anchor, taken)
        said.append("a constructor bot")
    if player.metal <= 0:
        update.update(metal=PRODUCTION_START["metal"], energy=max(player.energy, PRODUCTION_START["energy"]))
        said.append(f"{PRODUCTION_START['metal']:g} metal and {PRODUCTION_START['energy']:g} energy")
    if not said:
        return gdd
    teams = [t.model_copy(update=update) if t.id == PLAYER else t for t in gdd.teams]
    note = f"production is on: the player starts with {' and '.join(said)} to produce with"
    return gdd.model_copy(update={"teams": teams, "assumptions": [*gdd.assumptions, note]})


def _requirements(brief: Brief, expects: Expects) -> list[Requirement]:
    """The brief's requirements with their expectations. An entry may be split by the runs that carry
    the evidence ({"reference": [...], "idle": [...]}). A testable requirement the design has no
    expectation for stays testable with none: the evidence check reports it unverified."""
    out = []
    for r in brief.requirements:
        exp = expects.get(r.id, [])
        if isinstance(exp, dict):
            exp = exp.get(r.on, [])
        out.append(Requirement.model_validate({**r.model_dump(), "expect": exp if r.testable else []}))
    return out


def _deadline_expects(deadline: float, reason: str | None = None, attacked: bool = False) -> dict[str, list[dict]]:
    """Evidence that a goal must be met by `deadline`: a good player meets it in time; a player who
    does nothing loses at the deadline, not before and not at some default time. Under attack (raids) an
    idle player may be wiped out first (a side with nothing left is out): then it loses by the deadline."""
    lost = {"losers_include": PLAYER, "duration_max": deadline + 2}
    if not attacked:
        lost["duration_min"] = deadline - 1
        if reason:
            lost["reason_contains"] = reason
    return {"reference": [{"result": {"winners_include": PLAYER, "duration_max": deadline}}],
            "idle": [{"result": lost}]}


PROTECTED_TAG = "protected"


def _protect_text(c: Concepts) -> str:
    """The agent's briefing on the unit it must keep alive."""
    if not c.protect_unit:
        return ""
    name = c.protect_unit.replace("_", " ")
    return (f" Losing every one of your {name}s loses the game." if c.protect_all else
            f" Keep your {name} alive: losing it loses the game.")


def _protect(c: Concepts, units: list[UnitPlacement], home: tuple[float, float], m, taken: list
             ) -> tuple[list[UnitPlacement], list[RuleComponent], Expects]:
    """The named unit to keep alive: an existing start group of that type (tagged if it had no tag),
    or a new one at home; losing it loses the game."""
    if not c.protect_unit:
        return units, [], {}
    units = list(units)
    k = next((i for i, u in enumerate(units) if u.type == c.protect_unit), None)
    if k is None:
        x, y = G.passable_near(m, home[0], home[1] + 3, taken, 3.0)
        taken.append((x, y))
        units.append(UnitPlacement(type=c.protect_unit, x=round(x, 1), y=round(y, 1), tag=PROTECTED_TAG))
        k = len(units) - 1
    elif units[k].tag is None:
        units[k] = units[k].model_copy(update={"tag": PROTECTED_TAG})
    tag, count = units[k].tag, units[k].count
    if c.protect_all:
        # "if all my tanks die, I lose": every group of that type is kept, and the last of them lost loses
        for i, u in enumerate(units):
            if i != k and u.type == c.protect_unit and u.tag in (None, tag):
                units[i] = u.model_copy(update={"tag": tag})
                count += u.count
    mode = "all" if c.protect_all and count > 1 else "any"
    name = c.protect_unit.replace("_", " ")
    comp = RuleComponent(
        id="protect_unit_loss", purpose=f"losing the last {name} loses" if mode == "all" else f"losing the {name} loses",
        kind="termination", library_rule="protect_objective_loss", requirement_ids=["protect_unit"],
        params={"team": PLAYER, "tag": tag, "mode": mode})
    expects = {"protect_unit": [
        {"state": {"at": 0, "team": PLAYER, "type": c.protect_unit, "tag": tag, "units_min": count}},
        {"event": "rule_log", "where": {"rule": "protect_unit_loss", "name": "objectives", "fields.tag": tag,
                                        "fields.mode": mode}, "values": {"field": "fields.count", "min": count},
         "min": 1, "max": 1}]}
    return units, [comp], expects


def _stock_to_steal(c: Concepts) -> float:
    """Metal a defender with no economy starts with when raids steal it: enough for every raid of the game to
    carry off the amount asked (with none, every theft would take nothing)."""
    if not (c.theft and c.wave_interval):
        return 0
    return c.theft * (math.ceil((c.time_limit or 0) / c.wave_interval) + 1)


def _composed(c: Concepts, site: Site, comps: list[RuleComponent], expects: Expects) -> list[RuleComponent]:
    """Adds the recipe components of the families no library rule covers; a component of ours whose
    requirements a composed one serves is replaced by it, so no attack is built twice."""
    extra, extra_expects = composed_designs.components(c, site)
    served = {rid for comp in extra for rid in comp.requirement_ids}

    def in_play(comp: RuleComponent) -> set[str]:
        # a component names every requirement it could serve ("attack_window" on raids); those this design
        # has no evidence for do not keep it next to the composed one that does its work
        ids = set(comp.requirement_ids)
        return (ids & (set(expects) | served)) or ids

    kept = [comp for comp in comps if not comp.requirement_ids or not in_play(comp) <= served]
    expects.update(extra_expects)
    return composed_designs.as_recipes(kept) + extra


def _scaled(n: float, strength: float, least: int = 1) -> int:
    """n units at this enemy strength; a weaker enemy rounds down and a stronger one up, so every call for
    one changes the group (round(2 * 0.75) and round(2 * 1.25) are 2: the same failure would repeat)."""
    v = n * strength
    return max(least, math.floor(v + 1e-9) if strength < 1 else math.ceil(v - 1e-9))


# the worth of the request's army over the family's own (1 when the family's army is kept), while a design is
# rebuilt for it: the families that size their enemy for the player's army read it through _strength
_ARMY_RATIO: ContextVar[float] = ContextVar("army_ratio", default=1.0)
# the families whose player army a request's named army replaces, and whose enemy is sized by _strength
_ARMY_FAMILIES = ("defense", "raids", "capture", "siege")


def _army_worth(units: dict[str, int]) -> float:
    """An army's worth in light bots, by the engine's measured fight-worth table (unmeasured types count 1)."""
    return sum(n * worth(t) for t, n in units.items())


def _army_ratio(gdd: GDD, c: Concepts) -> float:
    """How much the army the request names is worth against the untagged army the family gave the player
    (1 when it names none, or the family placed none)."""
    if c.archetype not in _ARMY_FAMILIES:
        return 1.0
    catalog = load_catalog().units
    named = {t: n for t, n in c.player_start.items() if t in catalog and catalog[t].speed > 0 and catalog[t].weapon}
    player = next((t for t in gdd.teams if t.id == PLAYER), None)
    family: dict[str, int] = {}
    for u in (player.units if player else []):
        if u.tag is None and catalog[u.type].speed > 0 and catalog[u.type].weapon:
            family[u.type] = family.get(u.type, 0) + u.count
    if not named or not family:
        return 1.0
    return max(0.25, min(4.0, _army_worth(named) / _army_worth(family)))


def _strength(guidance: list[str]) -> float:
    """Enemy strength factor: every PM call for a stronger (weaker) enemy adds 50 % (removes 25 %). A
    certificate that a cheap policy or the blind replay passes adds 25 %: a plan that does not watch
    the game wins only while the enemy leaves room for mistakes, and the reference, which reacts, keeps
    its win (the certificate checks that it does). The whole is scaled by the worth of the army the request
    gives the player against the family's own."""
    up = sum("stronger" in g or "harder" in g for g in guidance)
    unwatched = sum(g in (pm_brain.CHEAP_WIN, pm_brain.VARY_MORE) for g in guidance)
    down = sum("weaker" in g or "easier" in g for g in guidance)
    return max(0.25, (1.0 + 0.5 * up + 0.25 * unwatched - 0.25 * down) * _ARMY_RATIO.get())


def _trapped(guidance: list[str]) -> bool:
    """The PM reported units trapped at their spawn: place only where units can leave."""
    return any("trapped" in g for g in guidance)


def _wave_schedule(c: Concepts, n_fronts: int, ordered: bool = False) -> list[float]:
    """Attack times: the named directions' own times, else the request's wave times, else one wave a
    minute from 0:45 (one per front at least). Sides asked to come in an order each get a time of their own:
    the stated times first, the rest a step after the last."""
    if c.directions and len(c.direction_times) == len(c.directions):
        return list(c.direction_times)
    n = c.waves or n_fronts
    # closer together when that many waves would not all come before the game ends
    step = max(20.0, min(60.0, ((c.time_limit or 300.0) - 45 - 30) / max(1, n - 1)))
    times = list(c.wave_times) or [round(45 + i * step) for i in range(n)]
    missing = len(c.directions) - len(set(times)) if ordered else 0
    if missing > 0:
        last = max(times)
        times = sorted(set(times)) + [round(last + (k + 1) * step) for k in range(missing)]
    return times


def _spawn_gap(times: list[float]) -> float:
    """Seconds of silence that separate two attacks in the trace: less than the closest two attack
    times, at most 20 s."""
    steps = [b - a for a, b in zip(sorted(times), sorted(times)[1:]) if b > a]
    return max(1.0, min([20.0] + [d * 0.6 for d in steps]))


def _named_fronts(c: Concepts, m, base: tuple[float, float]) -> tuple[list[str], list]:
    """The named directions as (compass sides, fronts), in the request's order; left/right are the
    flanks of the player at `base` facing the enemy (no enemy starts on the map in a defence: the map
    centre when the base is away from it, else north), whatever compass sides the request also names."""
    resolved = G.resolve_directions(m, base, list(c.directions), G.facing(m, base))
    return [side for side, _ in resolved], [front for _, front in resolved]


def _direction_expects(sides: list[str], times: list[float], base: tuple[float, float], spawned: dict,
                       ordered: bool = True) -> Expects:
    """Evidence for named directions: the waves' units come from exactly those compass sectors of the
    base, in the stated order, each at its stated time (+/- 10 s)."""
    center = [round(base[0], 1), round(base[1], 1)]
    waves = sorted(zip(times, sides))
    gap = _spawn_gap(times)
    expects: Expects = {"directions": [{**spawned, "sectors_named": {"names": sorted(set(sides)), "center": center}}]}
    if ordered and len(times) == len(sides):
        timed = {**spawned, "cluster_times": {"gap": gap, "times": sorted(set(times)), "tolerance": 10}}
        if len(set(times)) == len(times):
            in_order = {**spawned, "sectors_named": {"names": [sd for _, sd in waves], "center": center,
                                                      "ordered": True, "gap": gap}}
            expects["front_order"] = [in_order]
            expects["front_times"] = [timed, in_order]
        else:
            # two sides at one time ("both flanks at 4:00"): the attacks come at the times in order, from every side
            expects["front_order"] = [timed, *expects["directions"]]
            expects["front_times"] = [timed]
    return expects


SPAWN_MARGIN = 8.0   # tiles beyond an attacker's weapon range that an objective stands from any spawn


def _reach_at_spawn(c: Concepts) -> float:
    """How far from a spawn an objective must stand so that no attacker can fire on it the moment it appears:
    the longest weapon range among the attack's units, plus a margin the defence needs to step in."""
    units = load_catalog().units
    return max((units[t].weapon.range for t in wave_types(c) if t in units and units[t].weapon), default=0.0) \
        + SPAWN_MARGIN


def _out_of_reach_at_spawn(base: tuple[float, float], front: tuple[float, float], fronts: list[tuple[float, float]],
                           t: float, reach: float) -> float:
    """The share of the way from home toward `front` at which an objective stands: `t`, or nearer home (behind
    it if need be) until every spawn is `reach` away; `t` when no point on that line is."""
    for k in range(0, 21):
        share = t - 0.05 * k
        if share < -0.5:
            break
        if all(math.dist(G.lerp(base, front, share), f) >= reach for f in fronts):
            return share
    return t


def _defense(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    map_ref = map_choice(c, brief.query)
    safe = _trapped(guidance)
    m = G.load(map_ref)
    base_name, base = G.base_point(m)
    bridge = G.bridgehead(m) if c.map_hint == "river_bridges" and not c.directions else None
    sides: list[str] = []
    if c.directions:
        sides, fronts = _named_fronts(c, m, base)
    elif bridge:
        # hold the near end of the main bridge; the enemy comes from across the river, straight
        # across first
        base = bridge[0]
        fronts = sorted(bridge[1], key=lambda n: (math.dist(G.spawns(m)[n], base), n))[: c.fronts or 1]
    else:
        # bombers fly 4.5 tiles a second: from a spawn close to home one strikes before the anti-air
        # at home can down it, so air attacks come from far spawns when the map has them
        # at a far spawn too, growing waves: a big last wave spawned near an objective destroys it
        # before any defence can get there
        fronts = G.pick_fronts(m, base, c.fronts or 2, min_dist=AIR_FRONT_DIST
                               if c.air or c.escalating or c.growth_factor else 0.0)
    sp = G.spawns(m)
    front_xy = [sp[f] if isinstance(f, str) else (f[0], f[1]) for f in fronts]
    distinct = [i for i in range(len(fronts)) if front_xy[i] not in front_xy[:i]]   # each front once
    taken: list[tuple[float, float]] = []
    objectives = []
    # "keep at least 3" needs 3 objectives at the least
    n_obj = max(c.objectives or len(distinct), c.keep_objectives or 0)
    # raiders are fast, and under fog the defence sees attackers late: then the objectives sit
    # closer to home so a defence can reach them in time
    # closer to home; so do fragile objectives (a radar tower, an extractor: a few hits destroy them
    # before a defence waiting at home arrives), and under air attack they stand inside the anti-air's
    # reach from home: bombers outrun any escort, so AA must already stand where they strike
    fragile = _fragile(c.objective_type or "metal_storage")
    # the last of growing waves destroys an objective far from home before the defence arrives
    # waves counted one by one ("waves of 4, 6 and 9") are built by the growing waves' rule, at those sizes
    growing = bool(c.escalating or c.growth_factor or c.wave_sizes)
    reach = 0.3 if c.archetype == "raids" or c.fog or fragile or c.air or growing else 0.45
    radius = AIR_COVER_RADIUS if c.air and _bombs_to_destroy(c.objective_type or "metal_storage") <= 2 else COMPACT_RADIUS
    if c.archetype == "raids" and c.fog and not c.air and radius > RAID_RADIUS:
        # fast raiders seen through the fog only near home, from any of the drawn sides: the economy they go for
        # stands close enough for the defence at home to reach it before a fragile building falls
        radius = RAID_RADIUS
    spawn_reach = _reach_at_spawn(c)
    for i in range(n_obj):
        front = front_xy[distinct[i % len(distinct)]]
        # at a bridge the objective is the bridgehead itself
        t = 0.0 if bridge else (reach if i < len(distinct) else 0.15)
        if reach < 0.45:
            t = min(t, radius / max(1.0, math.dist(base, front)))
        t = _out_of_reach_at_spawn(base, front, [front_xy[k] for k in distinct], t, spawn_reach)
        # on open ground (not in a cliff's lee): every side's attack can reach the objective it goes for
        x, y = (G.passable_near(m, *G.lerp(base, front, t), taken, 3.0, safe) if bridge else
                V.open_ground_near(m, *G.lerp(base, front, t), taken, 3.0))
        taken.append((x, y))
        objectives.append(UnitPlacement(type=c.objective_type or "metal_storage", x=round(x, 1), y=round(y, 1),
                                        tag=OBJECTIVE_TAG))
    # at a bridge the army starts in a camp behind the bridgehead and must move up to hold it
    camp = G.lerp(base, front_xy[0], -0.3) if bridge else base
    # where the defence waits between attacks: a spot its units can reach (the base may be walled in)
    home = G.passable_near(m, *camp, [], 0.0, main_region_only=True) if safe else camp
    scale = _armed_objective_scale(c)
    strength = _strength(guidance) * scale * _named_army_scale(c)
    times = _wave_schedule(c, len(fronts), ordered=any(r.id == "front_order" for r in brief.requirements))
    # what the request pins (the seed varies the rest): stated times come within a few seconds, open
    # ones within a wider window; which front attacks when is drawn unless the request orders the sides
    times_clause = V.times_stated(brief)
    pinned = V.order_fixed(brief)
    late = 0.0      # how late (s) the attacks may come: set by the attack family below
    ground_fronts: set = set()    # the fronts a ground attack may come from, when the family fixes them
    # "sometime between minute 1 and 3": each attack comes up to the window's width late (the first within it)
    window_late = float(c.attack_window[1] - c.attack_window[0]) if c.attack_window else 0.0
    varies: list = []
    probes: list = []
    knob: str | None = None
    defence = _defense_army(c, scale)
    if growing:
        explicit = bool(c.wave_times or (c.directions and c.direction_times))
        # stated times decide how many waves come, unless they state only the first of more waves
        count = max(2, len(times) if explicit and len(times) >= (c.waves or 0)
                    else (c.waves or max(3, len(distinct))))
        factor = max(1.0, c.growth_factor or 1.0)
        base_size, step = wave_growth.base_and_growth(factor, strength)
        stated = c.wave_sizes[:count] + c.wave_sizes[-1:] * (count - len(c.wave_sizes)) if c.wave_sizes else []
        # the defence is sized from the waves it must beat, the largest last
        scale = wave_growth.army_scale({g.type: g.count for g in defence}, _main_type(c),
                                       stated or wave_growth.sizes(base_size, step, factor, count))
        defence = [g.model_copy(update={"count": math.ceil(g.count * scale - 1e-9)}) for g in defence]
    air_raids = c.archetype == "raids" and c.air
    army = _spread(m, defence, _air_raid_staging(m, base, front_xy, taken) if air_raids else camp, taken, safe)
    if c.fog:
        # early warning under fog: without it a defence sees raiders only once they hit an objective (an
        # attacker's reach exceeds a storage's sight: it may even destroy one unseen). Under scouting too:
        # the attack's side is drawn per game, and the radar near home warns only once it is close; the
        # scouting zones lie farther out
        x, y = G.passable_near(m, base[0], base[1] - 3, taken, 3.0, safe)
        army.append(UnitPlacement(type="radar_tower", x=round(x, 1), y=round(y, 1)))
    air_at = times[-1] if len(times) > 1 else 120      # an air assault comes last
    air_only = air_only_raids(c)
    attack_times = times    # when each wave of the ground attack comes, for the named sides' evidence
    comps: list[RuleComponent] = []
    expects: Expects = {}
    wave_ids = []
    if c.attack_window:
        expects["attack_window"] = [_expect_spawns(after=c.attack_window[0] - 1, before=c.attack_window[1] + 1, min=1),
                                    _expect_spawns(before=c.attack_window[0] - 1, max=0)]
        if c.waves == 1:
            # the one attack the window holds: nothing comes after it either
            expects["attack_window"].append(_expect_spawns(after=c.attack_window[1] + 1, max=0))
    ground_spawns = _expect_spawns()
    if growing:
        # "every 50 seconds" (after a stated first time or not): the request's own interval
        every = bool(c.wave_interval) and not (explicit and len(times) > 1)
        # unlisted waves spread over the game, the last a minute before its end
        interval = (float(c.wave_interval) if every else
                    float(max(40, min(90, round((c.time_limit - 60 - times[0]) / max(1, count - 1))))))
        # the schedule's own times, unless they are the default and the spread still ends in time: then the waves
        # come over the whole game, not its first minutes
        spread = not explicit and times[0] + interval * (count - 1) <= c.time_limit - 30
        wave_times = times[:count] if len(times) >= count and not every and not spread else []
        if c.wave_interval:
            # "a minute and a half apart, starting at 0:50": the listed times keep the interval too
            expects["interval"] = [_expect_spawns(where={"source": "rule", "team": ENEMY, "type": _main_type(c)},
                                                  time_clusters={"min": 2, "gap": float(c.wave_interval) * 0.6})]
        params = {"team": ENEMY, "from": fronts, "first_at": times[0], "interval": interval, "count": count,
                  "base_size": base_size, "growth": step,
                  "unit_type": _main_type(c), "target_tag": OBJECTIVE_TAG, "nearest_target": True}
        if factor > 1:
            params["factor"] = factor
        if stated:
            params["sizes"] = stated
            expects["wave_sizes"] = [{"event": "rule_log", "where": {"name": "wave", "fields.index": i + 1,
                                                                       "fields.count": n}, "min": 1, "max": 1}
                                     for i, n in enumerate(stated)]
        if wave_times:
            params["times"] = wave_times
        grown_times = wave_times or [times[0] + interval * i for i in range(count)]
        # "every 60 seconds": each wave comes up to a small share of the stated interval late
        late = window_late or (V.interval_jitter(interval, bool(V.stated(brief, "interval"))) if every else
                               V.schedule_jitter(grown_times, bool(times_clause)))
        if late:
            params["jitter"] = late
            varies.append(V.vary(f"each wave's time, up to {late:g} s after its slot", "escalating_waves.jitter",
                                 "the wave as it appears: a defence timed to the schedule is caught moving"))
        if len(distinct) > 1 and not pinned:
            params["pick"] = "bag"
            varies.append(V.vary("which front each wave comes from (every front once per round, in a drawn order), "
                                 "and so which objective it goes for", "escalating_waves.pick",
                                 "where each wave appears; a defence parked at one front loses the other objective"))
        knob = None if stated else "escalating_waves.base_size"     # sizes the request counts stay as counted
        comps.append(RuleComponent(
            id="escalating_waves", purpose="waves of the sizes counted" if stated else "waves each larger than the last",
            kind="spawn", library_rule="escalating_waves",
            requirement_ids=["escalation", "growth", "wave_sizes", "fronts", "directions", "front_order", "front_times",
                             "attack_window", "interval"],
            params=params))
        ground_spawns = _expect_spawns(where={"source": "rule", "team": ENEMY, "type": _main_type(c)})
        attack_times = wave_times or [times[0] + interval * i for i in range(count)]
        grow = {"gap": _spawn_gap(attack_times), "min_buckets": count}
        expects["escalation"] = [{**ground_spawns, "increasing": grow}]
        expects["growth"] = [{**ground_spawns, "increasing": {**grow, **({"factor": factor} if factor > 1 else {})}}]
        if every and c.direction_times:
            # "from the east at 0:45, then every minute": the named side's first wave at its time, the rest after it
            expects["front_times"] = [{**ground_spawns, "cluster_times": {
                "gap": grow["gap"], "times": attack_times, "tolerance": 10 + params.get("jitter", 0.0)}}]
        if sides:
            sides = [sides[i % len(sides)] for i in range(count)]
    elif c.probe_then_main:
        # the composed probe / main recipe is the whole attack: a library wave beside it would
        # spawn more units than the probe (or the main) at their times and blur the sizes
        attack_times = composed_designs.probe_times(c)
        ground_spawns = _expect_spawns(where={"source": "rule", "team": ENEMY})
        if sides:
            # two named sides: the probe comes from the first, the main attack from the second
            sides = [sides[min(i, len(sides) - 1)] for i in range(len(attack_times))]
    elif c.scouting:
        comps.append(RuleComponent(
            id="unscouted_side_attack", purpose="the attack comes from a side the player did not scout",
            kind="spawn", library_rule="unscouted_side_attack", requirement_ids=["scouting", "fronts", "attack_window"],
            params={"team": ENEMY, "sides": fronts, "scout_team": PLAYER, "scout_radius": SCOUT_RADIUS,
                    # scouting a side means going most of the way out to it, beyond what the start units see
                    "scout_points": _scout_points(base, front_xy, [(u.x, u.y) for u in objectives + army]),
                    "times": times, "units": _wave_units(c, strength), "target_tag": OBJECTIVE_TAG,
                    # every unscouted side once before any repeats, so one game shows the fronts; a little late
                    "fresh": True, "jitter": window_late or V.schedule_jitter(times, bool(times_clause))}))
        late = comps[-1].params["jitter"]
        if late:
            varies.append(V.vary(f"each attack's time, up to {late:g} s after its slot", "unscouted_side_attack.jitter",
                                 "the attack as it comes"))
        expects["scouting"] = [{"event": "rule_log", "where": {"name": "attack", "fields.unscouted": True},
                                "min": 1},
                               {"event": "rule_log", "where": {"name": "scout_zone"}, "min": len(fronts)}]
        if len(fronts) > 1:
            varies.append(V.vary("which side each attack comes from: drawn among the sides not scouted yet",
                                 "unscouted_side_attack: random",
                                 "scout the approaches (or watch the edges) to learn where the attack comes; a "
                                 "defence that waits at one side loses the other"))
    elif c.random_side or c.wave_interval:
        # waves from a random side at the request's interval, else at the schedule's times (the first at the
        # first time, then a step apart)
        scheduled = not c.wave_interval and len(c.wave_times) > 1
        interval = c.wave_interval or (round(times[1] - times[0], 1) if scheduled else 60)
        # "one every 80 seconds starting at 1:00": the stated first time, then the interval
        first_then_every = bool(c.wave_interval) and len(c.wave_times) == 1
        first_at = times[0] if scheduled or c.attack_window or first_then_every else min(interval, 120.0)
        raid_target = c.raid_target_type or c.objective_type or "metal_storage"
        # a side that never repeats, so the side really changes within one game: named sides take turns ("waves
        # alternate between the east and the west"), the first drawn per game
        turns = c.random_side or len(set(fronts)) > 1
        raid_late = window_late or (V.schedule_jitter(times, bool(times_clause)) if scheduled
                                    else V.interval_jitter(interval, bool(V.stated(brief, "interval"))))
        late = raid_late
        comps.append(RuleComponent(
            id="periodic_raids", purpose="raids from a random side at a fixed interval", kind="spawn",
            library_rule="periodic_raids", requirement_ids=["interval", "fronts", "raid_target", "attack_window",
                                                            "raid_size"],
            params={"team": ENEMY, "interval": interval, "first_at": first_at, "sides": fronts,
                    "size": c.raid_size or (_scaled(3, strength, 1) if air_only else _raid_size(c, strength)),
                    "unit_type": "bomber" if air_only else _main_type(c),
                    "avoid_repeat": turns, "jitter": raid_late,
                    "target_type": raid_target, "target_team": PLAYER,
                    # "a column comes sometime between 1:30 and 3:30": that one attack, not one a minute
                    **({"raids": c.waves} if c.attack_window and not c.wave_interval else {})}))
        varies += [V.vary("which side each raid comes from" + (", never the previous raid's" if turns else ""),
                          "periodic_raids.sides: random", "where each raid appears; the raided objective is the one "
                          "nearest to it"),
                   V.vary(f"each raid's time, up to {raid_late:g} s after its slot on the {interval:g} s grid",
                          "periodic_raids.jitter", "the raid as it comes, not the clock")]
        knob = "periodic_raids.size"
        expects["interval"] = [_expect_spawns(time_clusters={"min": 2, "gap": interval * 0.6})]
        # the rule logs the type of the unit each raid goes for
        if first_then_every and c.direction_times:
            # the named side's first raid at its time, the next ones an interval apart to the end of the game
            raid_times = [first_at + interval * k for k in range(int((c.time_limit - first_at) // interval) + 1)
                          if first_at + interval * k < c.time_limit - 5]
            expects["front_times"] = [_expect_spawns(cluster_times={"gap": interval * 0.6, "times": raid_times,
                                                                    "tolerance": 10 + raid_late})]
        expects["raid_target"] = [{"event": "rule_log", "where": {"name": "raid", "fields.target_type": raid_target},
                                   "min": 1}]
        if c.raid_size:
            expects["raid_size"] = [{"event": "rule_log", "where": {"name": "raid", "fields.count": c.raid_size},
                                     "min": 2}]
    elif c.staggered or len(set(times)) > 1:
        ground_times = times[:-1] if c.air and len(times) > 1 and not c.direction_times else times
        # many waves in a row wear the same defence down: each is smaller, so that together they weigh about
        # what USUAL_WAVES waves of the usual size do
        per_wave = strength * min(1.0, math.sqrt(USUAL_WAVES / max(1, len(ground_times))))
        params = {"team": ENEMY, "fronts": [fronts[i % len(fronts)] for i in range(len(ground_times))],
                  "times": ground_times, "units": _wave_units(c, per_wave), "target_tag": OBJECTIVE_TAG,
                  # each front attacks the objective on its side, not the objectives' centroid
                  "targets": [_objective_of(front_xy[i % len(fronts)], objectives) for i in range(len(ground_times))]}
        late = window_late or V.schedule_jitter(ground_times, bool(times_clause))
        ground_fronts = set(params["fronts"])
        shuffled = len(distinct) > 1 and not pinned and len(set(params["fronts"])) > 1
        if shuffled:
            params["shuffle"] = True
            varies.append(V.vary("which front each wave hits, and so the order of the fronts (the times stay)",
                                 "staggered_waves.shuffle", "where each wave appears; a defence that follows one "
                                 "game's order meets the next wave at the wrong front"))
        if late:
            params["jitter"] = late
            varies.append(V.vary(f"each wave's time, up to {late:g} s after its slot", "staggered_waves.jitter",
                                 "the wave as it appears, not the clock"))
        comps.append(RuleComponent(
            id="staggered_waves", purpose="each front is attacked at its own time"
            + (", in a drawn order" if shuffled else ""), kind="spawn",
            library_rule="staggered_waves", requirement_ids=["fronts", "staggered", "wave_times", "directions",
                                                             "front_order", "front_times", "attack_window"],
            params=params))
        wave_ids.append("staggered_waves")
        knob = knob or ("staggered_waves.units" if not c.wave_sizes else None)    # counted sizes stay as counted
        ground_spawns = _expect_spawns(where={"source": "rule", "team": ENEMY, "type": sorted(_wave_units(c, per_wave))})
        attack_times = ground_times
        if sides:
            sides = [sides[i % len(sides)] for i in range(len(ground_times))]
    else:
        # simultaneous: each direction's wave within a few seconds of the others, in a drawn order
        late = window_late or (V.STATED_JITTER if len(distinct) > 1 else V.schedule_jitter(times[:1], bool(times_clause)))
        comps.append(RuleComponent(
            id="waves_from_directions", purpose="simultaneous waves from several directions", kind="spawn",
            library_rule="waves_from_directions", requirement_ids=["fronts", "wave_times", "directions",
                                                                   "attack_window"],
            params={"team": ENEMY, "directions": [fronts[i] for i in distinct], "times": times[:1] or [60],
                    "units": _wave_units(c, 0.8 * strength), "target_tag": OBJECTIVE_TAG, "jitter": late}))
        varies.append(V.vary(f"when each direction's wave comes, up to {late:g} s late, and so which strikes first",
                             "waves_from_directions.jitter", "which wave reaches an objective first"))
        knob = knob or ("waves_from_directions.units" if not c.wave_sizes else None)
        ground_spawns = _expect_spawns(where={"source": "rule", "team": ENEMY,
                                              "type": sorted(_wave_units(c, 0.8 * strength))})
        attack_times = [times[0] if times else 60.0] * len(distinct)
        sides = [sides[i] for i in distinct] if sides else sides
    if c.air and air_only:
        expects["air"] = [{"event": "spawn", "where": {"source": "rule", "team": ENEMY, "type": "bomber"}, "min": 2}]
        expects["raid_domain"] = expects["air"]
    elif c.air:
        # the bombers come from a drawn far front unless the request names the sides, a little late
        air_from = fronts[-1] if sides or len(distinct) < 2 else [fronts[i] for i in distinct]
        if isinstance(air_from, list) and len(ground_fronts) == 1:
            # the ground attack holds one front: the bombers come from another, so the attacks come from two
            air_from = [f for f in air_from if f not in ground_fronts] or air_from
        air_late = late or V.schedule_jitter([air_at], bool(times_clause))
        comps.append(RuleComponent(
            id="air_raid", purpose="an air assault", kind="spawn", library_rule="air_raid",
            requirement_ids=["air", "raid_domain"],
            params={"team": ENEMY, "times": [air_at], "from": air_from, "jitter": air_late,
                    "unit_type": "bomber", "count": _scaled(3, strength, 1), "target_tag": OBJECTIVE_TAG}))
        expects["air"] = [{"event": "spawn", "where": {"source": "rule", "team": ENEMY, "type": "bomber"}, "min": 1}]
        # an air raid among ground waves is the request's raid: the bombers evidence its domain, and the
        # typed ground waves too when the raiders are asked to be both
        typed_ground = [{**ground_spawns, "min": 1}] if c.ground and "type" in ground_spawns["where"] else []
        expects["raid_domain"] = expects["air"] + typed_ground
    if sides:
        # raids from a random named side and unscouted sides have no order or times to hold them to
        expects.update(_direction_expects(sides, attack_times, base, ground_spawns,
                                          ordered=not (c.scouting or c.random_side
                                                       or (c.wave_interval and not (growing and pinned)))))
    keep = c.keep_objectives if c.keep_objectives and c.keep_objectives < len(objectives) else None
    comps.append(RuleComponent(
        id="protect_objective_loss", kind="termination",
        purpose=f"fewer than {keep} objectives left loses" if keep else "losing any objective loses",
        library_rule="protect_objective_loss", requirement_ids=["objective_loss"],
        params={"team": PLAYER, "tag": OBJECTIVE_TAG, "mode": "any", **({"keep": keep} if keep else {})}))
    comps.append(RuleComponent(
        id="survive_timer_win", purpose="surviving until the time limit wins", kind="termination",
        library_rule="survive_timer_win", requirement_ids=["survive_win"],
        params={"team": PLAYER, "time": c.time_limit}))
    if c.reinforcements:
        relief = {_relief_type(c): _relief_size(c, 1.0)}
        comps.append(RuleComponent(
            id="player_reinforcements", purpose="the player's reinforcements arrive at the times asked", kind="spawn",
            library_rule="reinforcements", requirement_ids=["reinforcements"],
            params={"team": PLAYER, "times": list(c.reinforcements), "points": [[round(base[0], 1), round(base[1], 1)]],
                    "units": relief, "tag": "reinforcements"}))
        expects["reinforcements"] = [{"event": "spawn", "where": {"source": "rule", "team": PLAYER},
                                      "cluster_times": {"gap": 20, "times": list(c.reinforcements), "tolerance": 5}}]
    # the scouting rule draws among unscouted sides, so one side may serve every attack
    if c.scouting:
        n_dirs = 1
    elif c.probe_then_main:
        n_dirs = len(set(sides[:2])) or 1
    else:
        n_dirs = min(len(distinct), len(times)) if not c.escalating else len(distinct)
    # a random side shows as two sides within a game only when more than one attack comes (one attack's side
    # changes between games: the certificate's seeds show it)
    min_sectors = 2 if c.random_side and not c.scouting and len(times) > 1 and c.waves != 1 else max(1, n_dirs)
    expects["fronts"] = [_expect_spawns(distinct_sectors={"min": min_sectors, "center": list(base)})]
    if c.staggered or len(set(times)) > 1:
        expects["staggered"] = [_expect_spawns(time_clusters={"min": 2, "gap": 20})]
    if c.wave_times:
        # a wave may come `late` seconds after its time (the seed's jitter)
        expects["wave_times"] = [V.late_window(_expect_spawns(after=t - 1, before=t + 5, min=1), late)
                                 for t in c.wave_times]
    # with a kept count the idle player loses on the loss that leaves one too few, not on the first
    expects["objective_loss"] = [{"result": {"losers_include": PLAYER, **(
        {"reason_contains": f"({len(objectives) - keep + 1} lost, {keep - 1} left)"} if keep else {})}}]
    expects["survive_win"] = [{"result": {"winners_include": PLAYER}}]
    if c.raid_target_type and "raid_target" not in expects and c.raid_target_type == (c.objective_type or
                                                                                       "metal_storage"):
        # the attacks go for the objectives, which are the raid target: an air strike logs the type it goes
        # for; waves log the point they go for, an objective's
        expects["raid_target"] = ([{"event": "rule_log", "where": {"name": "attack_ordered",
                                                                   "fields.target": c.raid_target_type}, "min": 1}]
                                  if c.air else
                                  [{"event": "rule_log", "where": {"name": "wave",
                                                                   "fields.tx": sorted({o.x for o in objectives})},
                                    "min": 1}])
    player_units, protect, protect_expects = _protect(c, objectives + army, home, m, taken)
    comps += protect
    expects.update(protect_expects)
    comps = _composed(c, Site(map_ref=map_ref, base=base, fronts=list(fronts), target_tag=OBJECTIVE_TAG,
                              strength=strength, times_stated=bool(times_clause),
                              interval_stated=bool(V.stated(brief, "interval")), sides_named=bool(sides)),
                      comps, expects)
    varies = V.of_components(varies, comps)
    for comp in comps:
        varies += V.recipe_varies(comp)
    ids = {comp.id for comp in comps}
    if knob and V.component_of(knob) not in ids:
        knob = None
    if knob is None and "composed_raids" in ids:
        knob = "composed_raids.s1_every"       # the raid interval
    if c.probe_then_main and c.wave_times:
        # the probe and the main attack may come that late (their recipe's jitter)
        site_late = composed_designs.probe_jitter(c, Site(map_ref=map_ref, base=base, fronts=list(fronts),
                                                          target_tag=OBJECTIVE_TAG, times_stated=bool(times_clause)))
        expects["wave_times"] = [V.late_window(_expect_spawns(after=t - 1, before=t + 5, min=1), site_late)
                                 for t in c.wave_times]
    obj_xy = [(o.x, o.y) for o in objectives]
    radius = V.reaction_radius(obj_xy, [front_xy[i] for i in distinct])
    probes = []
    listed = _listed_order_stops(comps, objectives, front_xy, fronts)
    if listed:
        probes.append(V.schedule_probe("follow_listed_order", listed, "meet each attack at the objective of the "
                                       "front the listed order gives it, whatever the game shows"))
    probes += V.objective_probes(obj_xy, limit=4 - len(probes))
    enemy_base, base_text = _staging_base(m, obj_xy, home, [front_xy[i] for i in distinct], radius,
                                          player_units, taken)
    # the request fixes every event when all the seed varies is how late they come
    # ... or states a wave every so often from sides it orders (or one side): only the first arrival is the design's
    schedule = times_clause or (V.stated(brief, "interval") if pinned or len(distinct) == 1 else None)
    fixed = schedule if schedule and all(v.how.endswith("jitter") for v in varies) else None
    if fixed:
        fixed = V.stated(brief, "front_order", "front_times", "directions", "wave_times", "probe_main") or fixed
    variation = V.variation(varies, probes, fixed_by=fixed, knob=knob)
    teams = [
        TeamPlan(id=PLAYER, name="Defenders", role="player", controller={"type": "agent"}, units=player_units,
                 metal=_stock_to_steal(c), energy=0),
        TeamPlan(id=ENEMY, name="Attackers", role="enemy", controller={"type": "ai", "behaviour": "idle"},
                 units=enemy_base),
    ]
    n = len(objectives)
    obj = (c.objective_type or "metal_storage").replace("_", " ")
    desc = ((f"Survive for {c.time_limit / 60:g} minutes with at least {keep} of your {n} {obj}s standing. "
             + ("If every one is destroyed, you lose. " if keep == 1 else f"If fewer than {keep} are left, you lose. ")
             if keep else
             f"Survive for {c.time_limit / 60:g} minutes without losing any of your {n} {obj}s. If even one is "
             "destroyed, you lose. " if n > 1 else
             f"Survive for {c.time_limit / 60:g} minutes without losing your {obj}. If it is destroyed, you lose. ")
            + ("It stands at the bridgehead and your army starts in a camp behind it. " if bridge else "")
            + (f"Enemies attack from the {_sides_text(sides)}" if sides else
               f"Enemies attack from {len(distinct)} directions" if len(distinct) > 1 else "Enemies attack")
            + (" at different times" if any(r.id == "staggered_waves" for r in comps) else "")
            + (f", each wave {c.growth_factor:g} times the size of the last" if c.growth_factor
               else ", each wave larger than the last" if c.escalating else "")
            + (", and from the air" if c.air else "")
            + (", every time from a side you have not scouted: scout the approaches (marked on the map) to learn "
               "where they will come from" if c.scouting else "")
            + (f", raiding every {c.wave_interval / 60:g} minutes" if c.wave_interval else "")
            + (" from a random side" if c.random_side and not c.scouting else "")
            + ". Move your army to meet each attack."
            + (f" Your army starts {AIR_STAGING:g} tiles from the base, where its anti-air covers nothing." if air_raids
               else "")
            + _protect_text(c)
            + (" A radar tower at home shows enemies approaching through the fog." if c.fog else "")
            + V.told(variation) + base_text)
    return GDD(
        title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
        map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=bool(c.production),
        time_limit=c.time_limit + 30, requirements=_requirements(brief, expects),
        win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="defend",
        # the defence meets a wave as soon as it sees it at the front nearest an objective; against air raids
        # that must destroy several objectives (some may be lost) and take more than a bomb for each, its
        # anti-air stays over them (sent out to meet bombers, the army is bombed on the way); where one bomb,
        # or the bombs of raids added up, may lose the game it must meet them before they arrive
        strategy_params={"protect_tag": OBJECTIVE_TAG, "home": list(home),
                         "threat_radius": min(radius, AIR_GUARD_RADIUS) if air_raids and keep and _bombs_to_destroy(
                             c.objective_type or "metal_storage") >= 2 else radius},
        variation=variation,
    )


STAGING_TAG = "staging_base"


def _staging_base(m, objectives: list[tuple[float, float]], home: tuple[float, float],
                  fronts: list[tuple[float, float]], radius: float, player: list[UnitPlacement],
                  taken: list) -> tuple[list[UnitPlacement], str]:
    """The enemy's fortified staging base (see genesis/offline/variation.py), far from the defence's
    business, with turrets that outgun the player's whole army; and what the agent is told of it."""
    inset = 8.0
    corners = [(inset, inset), (m.width - inset, inset), (inset, m.height - inset), (m.width - inset, m.height - inset)]
    site = V.staging_base_site(m.width, m.height, [*G.spawns(m).values(), *corners], objectives, home, fronts, radius)
    if site is None:
        return [], ""
    army: dict[str, int] = {}
    for u in player:
        cat = load_catalog().units.get(u.type)
        if cat is not None and cat.weapon and cat.speed > 0:
            army[u.type] = army.get(u.type, 0) + u.count
    n = V.staging_base_turrets(army)
    turrets = []
    for _ in range(n):
        x, y = G.passable_near(m, site[0], site[1], taken, 2.5)
        taken.append((x, y))
        turrets.append(UnitPlacement(type=V.BASE_TURRET, x=round(x, 1), y=round(y, 1), tag=STAGING_TAG))
    side = G.compass_of((m.width / 2, m.height / 2), site) or "far"
    text = (f" The enemy's fortified staging base ({n} {V.BASE_TURRET.replace('_', ' ')}s) stands in the "
            f"{G.SIDE_NAMES.get(side, side)} of the map, away from your objectives: it never attacks, but its turrets "
            "destroy an army that goes for it.")
    return turrets, text


def _listed_order_stops(comps: list[RuleComponent], objectives: list[UnitPlacement],
                        front_xy: list[tuple[float, float]], fronts: list) -> list[tuple[float, tuple[float, float]]]:
    """A blind plan read off the design's listing: each wave met at the objective of the front the
    listing gives it, at its listed time (what a player who trusts the schedule does)."""
    by_id = {comp.id: comp for comp in comps}
    where = {f if isinstance(f, str) else tuple(f): xy for f, xy in zip(fronts, front_xy)}

    def objective_near(front) -> tuple[float, float] | None:
        xy = where.get(front if isinstance(front, str) else tuple(front))
        return tuple(_objective_of(xy, objectives)) if xy else None

    if "staggered_waves" in by_id:
        p = by_id["staggered_waves"].params
        stops = [(t, objective_near(f)) for t, f in zip(p["times"], p["fronts"])]
    elif "escalating_waves" in by_id:
        p = by_id["escalating_waves"].params
        ts = p.get("times") or [p["first_at"] + p["interval"] * i for i in range(p["count"])]
        stops = [(t, objective_near(p["from"][i % len(p["from"])])) for i, t in enumerate(ts)]
    else:
        return []
    return [(t, xy) for t, xy in stops if xy is not None]


def _sides_text(sides: list[str]) -> str:
    names = [G.SIDE_NAMES[s] for s in dict.fromkeys(sides)]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1] + (
        ", in that order" if len(names) == len(sides) and len(names) > 1 else "")


SCOUT_RADIUS = 8.0       # tiles: a unit this close to a side's scout point has scouted it


def _scout_points(base: tuple[float, float], fronts: list[tuple[float, float]],
                  start_units: list[tuple[float, float]]) -> list[list[float]]:
    """Where scouting each side means going: most of the way out to it (from 0.7 of the way, further
    out if needed), and never where a start unit already stands in the zone (a side scouted at the
    start leaves the attack no side to choose from)."""
    out = []
    for front in fronts:
        point = front
        for k in range(7, 11):
            xy = G.lerp(base, front, k / 10)
            if all(math.dist(xy, u) > SCOUT_RADIUS + 1.5 for u in start_units):
                point = xy
                break
        out.append([round(point[0], 1), round(point[1], 1)])
    return out


def _objective_of(front: tuple[float, float], objectives: list[UnitPlacement]) -> list[float]:
    """Where a wave from `front` attacks: the objective nearest to it."""
    best = min(objectives, key=lambda o: (math.dist((o.x, o.y), front), o.x, o.y))
    return [best.x, best.y]


def _power(units: dict[str, int]) -> float:
    """Lanchester fighting strength of a group: total hp times total damage per second."""
    cat = load_catalog().units
    hp = sum(n * cat[t].hp for t, n in units.items())
    dps = sum(n * cat[t].weapon.damage / cat[t].weapon.reload for t, n in units.items() if cat[t].weapon)
    return hp * dps


def _side_place(m, side: str, bridge: bool) -> tuple[float, float]:
    """A place on compass `side`: the map's bridge farthest that way when asked for a bridge, else open ground
    halfway from the centre to that edge."""
    vx, vy = G.COMPASS_VECTORS[side]
    centre = (m.width / 2, m.height / 2)
    bridges = [p for name, p in G.spawns(m).items() if re.fullmatch(r"bridge_\d+", name)] if bridge else []
    if bridges:
        return max(bridges, key=lambda p: (p[0] - centre[0]) * vx + (p[1] - centre[1]) * vy)
    return G.side_point(m, side, 0.5)


def _on_side_expects(m, side: str, where: dict) -> list[dict]:
    """A rule_log event (`where`) whose fields.x / fields.y lie in the part of the map on compass `side`."""
    out = []
    for axis, v, size in (("x", G.COMPASS_VECTORS[side][0], m.width), ("y", G.COMPASS_VECTORS[side][1], m.height)):
        if v:
            bounds = {"min": round(size * 0.55, 1)} if v > 0 else {"max": round(size * 0.45, 1)}
            out.append({"event": "rule_log", "where": where, "values": {"field": f"fields.{axis}", **bounds},
                        "min": 1})
    return out


def _raid_size(c: Concepts, strength: float) -> int:
    """A raid of the type the request names, as strong as the usual raid of three light bots (a raid of three
    heavy tanks destroyed any defence; a lone scout raid destroyed nothing)."""
    usual = _scaled(3, strength, 2 if strength >= 1 else 1)   # a weaker enemy may come down to one raider
    if not c.wave_units:
        return usual
    return max(1, round(usual * math.sqrt(_power({"light_bot": 1}) / _power({_main_type(c): 1}))))


def _guard_against(raid: dict[str, int], margin: float, unit_type: str = "assault_bot") -> int:
    """How many `unit_type` beat `raid` with `margin` times its fighting strength."""
    n = 1
    while _power({unit_type: n}) < margin * _power(raid):
        n += 1
    return n


GUARD_TYPES = ("assault_bot", "light_tank", "rocket_bot", "light_bot")   # a race's guard: the first not asked for
RAID_INTERVAL = 150.0   # production games: seconds between raids when the request names no interval


def _production(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    map_ref = _map_for(c)
    m = G.load(map_ref)
    sp = G.spawns(m)
    home_name = "sw" if "sw" in sp else G.base_point(m)[0]
    if len(set(c.directions)) == 1 and _OPPOSITE.get(c.directions[0]) in sp:
        # an attack from one named side crosses the map to the base: it starts at the spawn across from it
        home_name = _OPPOSITE[c.directions[0]]
    home = sp.get(home_name, (m.width / 2, m.height / 2))
    # the raids and timed attacks draw their side among three per game, or come from the one side named
    raid_from = G.pick_fronts(m, home, 3)
    named_sides: list[str] = []
    if len(set(c.directions)) == 1:
        named_sides, named_fronts = _named_fronts(c, m, home)
        raid_from = named_fronts[:1]
    strength = _strength(guidance)
    deadline = c.deadline or c.time_limit
    goal = {"team": PLAYER, "units": c.target_composition, "deadline": deadline}
    # a timed enemy attack is part of the race: the win waits until the last one has come and been
    # beaten, so it threatens what the player builds instead of landing after the game is over
    attacked = bool(c.wave_times) and not c.probe_then_main
    site = Site(map_ref=map_ref, base=home, fronts=list(raid_from), target_tag="home", strength=strength,
                times_stated=bool(V.times_stated(brief)),
                # a race's raid interval comes only from the request (no requirement of its own checks it)
                interval_stated=bool(c.wave_interval or V.stated(brief, "interval")), sides_named=bool(named_sides))
    varies: list = []
    knob = "production_goal.deadline"
    if attacked:
        # the win waits until the last attack has come (it may come a little late) and been beaten
        goal.update(win_from=max(c.wave_times) + composed_designs.attack_jitter(c, site),
                    beat_tag=composed_designs.ATTACK_TAG, beat_team=ENEMY)
    comps = [RuleComponent(
        id="production_goal", purpose="own the target composition before the deadline"
        + (" and beat the timed enemy attacks with it" if attacked else ""), kind="termination",
        library_rule="production_goal", requirement_ids=["production_win", "deadline_loss", "deadline"],
        params=goal)]
    met = _deadline_expects(deadline, "deadline passed", attacked=bool(c.raids or c.wave_times))
    if attacked:
        # the goal is met by the deadline; the win itself comes once the attack is beaten
        met["reference"] = [{"result": {"winners_include": PLAYER}},
                            {"event": "rule_log", "where": {"rule": "production_goal", "name": "goal_met"},
                             "before": deadline, "min": 1}]
    expects: Expects = {"production_win": [{"result": {"winners_include": PLAYER}}], "deadline_loss": met["idle"],
                        "deadline": met}
    if attacked:
        expects["production_win"].append({"event": "rule_log", "where": {"rule": "production_goal",
                                                                         "name": "threat_cleared"}, "min": 1})
    if attacked and named_sides:
        times = sorted(c.wave_times)
        # one side named for every attack ("from the north at 2:00 and again at 4:30"): each comes from it
        expects.update(_direction_expects(named_sides[:1] * len(times), times, home,
                                          {"event": "spawn", "where": {"source": "rule", "team": ENEMY}}))
    start = [UnitPlacement(type="commander", tag="home"), UnitPlacement(type="constructor_bot")]
    # a goal one factory could not turn out in time starts with enough factories (each placed on its own)
    prebuilt = economy.prebuilt_factories(c.target_composition, [u.type for u in start], deadline)
    start += [UnitPlacement(type=f) for f, k in prebuilt.items() for _ in range(k)]
    # a guard is never of a type the race asks for: it would count towards the goal
    guard_type = next((t for t in GUARD_TYPES if t not in c.target_composition), GUARD_TYPES[0])
    raid_text = ""
    timed_raids = attacked and not c.wave_interval     # "raids hit you at 3:00 and 6:00": the timed attacks
    if c.raids and not timed_raids:
        by_commander = "commander" in c.unit_kinds
        raider = _raider(c)
        size = 1 if by_commander else _scaled(2, strength, 2)
        # raids come during the build-up of the race, not after it is won: five intervals fit before the deadline
        interval = c.wave_interval or float(min(RAID_INTERVAL, round(deadline / 5)))
        raid_target = c.raid_target_type or "metal_extractor"
        # a party left alone goes on from one extractor to the next: only a guard that meets it (where and
        # when it comes) saves the economy
        params = {"team": ENEMY, "interval": interval, "first_at": min(interval, 120.0), "sides": raid_from,
                  "size": size, "unit_type": raider, "target_type": raid_target, "target_team": PLAYER,
                  "avoid_repeat": True, "chase": True}
        if c.random_timing:
            params["jitter"] = round(0.8 * interval)   # "at any time": each raid comes up to this much late
        else:
            params["jitter"] = V.interval_jitter(interval, site.interval_stated)
        varies += [V.vary("which side each raid comes from, never the previous raid's", "periodic_raids.sides: random",
                          "where the raiders appear: the extractor nearest to them is the one they go for"),
                   V.vary(f"each raid's time, up to {params['jitter']:g} s after its slot on the {interval:g} s grid",
                          "periodic_raids.jitter", "the raiders as they come; a guard sent by the clock arrives late")]
        knob = "periodic_raids.size"
        if by_commander:
            params["raids"] = COMMANDER_RAIDS
        comps.append(RuleComponent(
            id="periodic_raids", purpose="enemy raids harass the economy", kind="spawn", library_rule="periodic_raids",
            requirement_ids=["raids"], params=params))
        expects["raids"] = [_expect_spawns(min=1)]
        # the rule logs the type of the unit each raid goes for
        expects["raid_target"] = [{"event": "rule_log", "where": {"name": "raid", "fields.target_type": raid_target},
                                   "min": 1}]
        if by_commander:
            expects["raider"] = [{"event": "spawn", "where": {"source": "rule", "team": ENEMY, "type": "commander"},
                                  "min": 1}]
        # a guard that beats one raid party with a margin, so raids cost time but can be held
        guard = _guard_against({raider: size}, margin=2.0 / strength, unit_type=guard_type)
        start.append(UnitPlacement(type=guard_type, count=guard))
        raid_text = (f" {'The enemy commander' if by_commander else 'Enemy raiders'} will raid your extractors"
                     + (" at unpredictable times" if c.random_timing else f" every {interval / 60:g} minutes")
                     + f"; {guard} {guard_type.replace('_', ' ')}s guard your base.")
    if attacked and not any(u.type == guard_type for u in start):
        # an attack can come long before a slow target is out (heavy tanks need a tech chain): a guard
        # that is an even match for one attack keeps the builders alive while it still costs the economy
        start.append(UnitPlacement(type=guard_type, count=_guard_against(
            composed_designs.attack_units(c, strength), margin=1.0, unit_type=guard_type)))
    placed = _spread(m, start, home, [])
    placed, protect, protect_expects = _protect(c, placed, home, m, [(u.x, u.y) for u in placed])
    comps += protect
    expects.update(protect_expects)
    # timed attacks go for the commander (attack-moving through whatever stands in the way)
    comps = _composed(c, site, comps, expects)
    varies = V.of_components(varies, comps)
    if V.component_of(knob) not in {comp.id for comp in comps}:
        knob = "production_goal.deadline"
    for comp_ in comps:
        varies += V.recipe_varies(comp_)
    # under raids the extractors matter: a leaner start (see economy.starting_resources)
    raided = any(comp_.id in ("periodic_raids", "composed_raids") for comp_ in comps)
    metal, energy = economy.starting_resources(c.target_composition, [u.type for u in start], strength, raided,
                                               deadline)
    teams = [
        TeamPlan(id=PLAYER, name="Builder", role="player", controller={"type": "agent"}, metal=metal, energy=energy,
                 units=placed),
        TeamPlan(id=ENEMY, name="Raiders", role="enemy", controller={"type": "ai", "behaviour": "idle"}),
    ]
    comp = ", ".join(f"{n} {t.replace('_', ' ')}" for t, n in c.target_composition.items())
    factories = ", ".join(f"{k} {f.replace('_', ' ')}{'s' if k > 1 else ''}" for f, k in prebuilt.items())
    desc = (f"Produce {comp} within {deadline / 60:g} minutes, the sooner the better. You start with {metal:g} metal "
            f"and {energy:g} energy" + (f" and {factories} (one factory alone could not build them in time)"
                                        if factories else "")
            + ": build metal extractors on deposits and solar collectors, then the right factory."
            + raid_text
            + (f" The enemy attacks your base at {', '.join(f'{t / 60:g}' for t in sorted(c.wave_times))} minutes "
               "whether you are ready or not: you win once you own them and the last attack is beaten. A few "
               f"{guard_type.replace('_', ' ')}s guard your base."
               if attacked else "")
            + _protect_text(c))
    strategy = {"target": c.target_composition, "home": list(home)}
    if not varies and not (attacked and named_sides):
        # nothing the seed varies: it draws the start corner instead, so a build order memorised for one corner
        # (its coordinates) builds nothing useful from another (an attack from a named side stays that side of
        # the base: the start then stays where it is)
        comps, varies = _drawn_start_corner(m, home, placed, comps)
        teams[0] = teams[0].model_copy(update={"units": []})
        del strategy["home"]          # the reference builds round its own start, wherever it is
        desc += " Your start corner changes from game to game."
    variation = V.variation(varies, fixed_by=None if varies else V.times_stated(brief), knob=knob)
    desc += V.told(variation)
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=True,
               time_limit=max(c.time_limit, deadline) + 30, requirements=_requirements(brief, expects),
               win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="produce",
               strategy_params=strategy, variation=variation)


CORNERS = ("sw", "ne", "nw", "se")
# the spawn across the map from a compass side
_OPPOSITE = {"n": "south", "s": "north", "e": "west", "w": "east", "ne": "sw", "sw": "ne", "nw": "se", "se": "nw"}


def _drawn_start_corner(m, home: tuple[float, float], placed: list[UnitPlacement],
                        comps: list[RuleComponent]) -> tuple[list[RuleComponent], list]:
    """The player's start units set up at one of the map's corner spawns, drawn per seed (a seeded layout)."""
    from genesis.offline import layout_variation as LV   # the families' own module

    sp = G.spawns(m)
    corners = [(n, sp[n]) for n in CORNERS if n in sp] or [("home", home)]
    layouts = [{"name": f"start at {n}", "units": LV.army_entries(PLAYER, LV.moved(placed, home, xy, m))}
               for n, xy in corners]
    comp = LV.layout_component(layouts, [], f"the start corner, one of {len(layouts)} drawn per seed")
    varies = [V.vary("which corner of the map the player starts in (its deposits are the nearby ones)",
                     "layout: random", "where your units stand at the start: build round them")]
    return [comp, *comps], varies


def _mixed_army() -> list[UnitPlacement]:
    return [UnitPlacement(type="light_bot", count=4), UnitPlacement(type="assault_bot", count=3),
            UnitPlacement(type="light_tank", count=2)]


MAX_STARTS = 8   # the compass spawns of the maps (procedural ones included)


def _side_army_expects(ours: dict[str, int], theirs: dict[str, int], size: int, sides: int = 2) -> list[dict]:
    """At the start every team holds the army the request states for its side: `ours` for the player's
    side (its first `size` teams), `theirs` for every other."""
    return [{"state": {"at": 0, "team": t, "type": kind, "units_min": n, "units_max": n}}
            for t in range(sides * size) for kind, n in (ours if t < size else theirs).items()]


def _team_count_expects(sides: int, size: int) -> list[dict]:
    """At the start, exactly sides x size teams own units, in `sides` alliances of `size` teams each."""
    return [{"state": {"at": 0, "teams_min": sides * size, "teams_max": sides * size, "alliances_min": sides,
                       "alliances_max": sides, "alliance_size": size}}]


def _ffa(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    """Equal sides round the map, no alliances between sides, ranked at the time limit. The seed draws
    a layout: which start the player's side holds (the sides keep their ring order) and which rival
    side hunts it, early or later; the other AI sides hunt round the table."""
    from genesis.offline import layout_variation as LV   # here, not at the top: the families' own module

    map_ref = _map_for(c)
    m = G.load(map_ref)
    sp = G.spawns(m)
    size = max(1, c.team_size)      # players per side: 1 in a plain free-for-all
    n = c.teams * size
    if n > MAX_STARTS:
        raise ValueError(f"a free-for-all of {c.teams} sides of {size} needs {n} starts; maps have {MAX_STARTS}")
    starts = G.ring_starts(m, n)
    plan = _ffa_plan(c, guidance)
    origin = sp[starts[0]]
    stated = ED.stated_army(c.side_army, _mixed_army())
    if c.elimination == "commanders":
        stated = ED.with_commander(stated, None)
    army = _spread(m, stated, origin, [])
    layouts = LV.ffa_layouts(m, starts, size, army, origin, lambda side, hunter: LV.ffa_prey(side, hunter, c.teams))
    teams = []
    for i in range(n):
        side = i // size
        # the layout rule sets every AI side's controller at the start; until then they stand idle
        ctrl = {"type": "agent"} if i == PLAYER else {"type": "ai", "behaviour": "idle"}
        mates = [side * size + k for k in range(size) if side * size + k != i]
        teams.append(TeamPlan(id=i, name=f"Side {side + 1}" + (f" ({i % size + 1})" if size > 1 else ""),
                              role="player" if i == PLAYER else ("ally" if side == 0 else "enemy"), controller=ctrl,
                              allies=mates, units=[]))
    comps = [LV.layout_component(layouts, ["teams", "team_count"],
                                 f"the sides' starts round the map and which rival hunts the player, one of "
                                 f"{len(layouts)} drawn per seed")]
    zone_expects: Expects = {}
    if c.safe_zone:
        zone, zone_expects = composed_designs.safe_zone(c, (m.width, m.height), c.time_limit)
        comps.append(zone)
    # every team is its own alliance's lead in a free-for-all of one team a side
    ending = (ED.conditions(c.elimination, list(range(n)), tagged=False) if c.elimination else
              [{"kind": "rank_by_score", "metric": c.ranking or "damage_efficiency", "time": c.time_limit}])
    counted = _team_count_expects(c.teams, size)
    expects: Expects = {
        "teams": [{"event": "spawn", "where": {"source": "rule"}, "before": 0.5,
                   "distinct_sectors": {"min": n, "center": "map_center"}}],
        "ranking": [{"result": {"ended_by": "condition", "duration_min": c.time_limit - 1}}],
        "team_count": counted,
        "side_armies": _side_army_expects(c.side_army, c.side_army, size, c.teams),
        # no side is allied with another: every alliance is one side's own players
        "ffa_no_allies": counted, **zone_expects}
    if c.elimination:
        expects["elimination_win"] = ED.win_expects(c.elimination, PLAYER)
    who = f"{c.teams} teams" if size == 1 else f"{c.teams} sides of {size} allied teams"
    desc = (f"Free-for-all between {who} with equal forces and no alliances between sides. Which start your side "
            "holds and which rival comes for you first change from game to game. "
            + (ED.ending_text(c, "team") if c.elimination else
               f"After {c.time_limit / 60:g} minutes teams are ranked by "
               f"{(c.ranking or 'damage efficiency').replace('_', ' ')}; rank first to win.")
            + (" A safe zone round the map centre shrinks at regular intervals: units outside it lose hp at each "
               "shrink." if c.safe_zone else ""))
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=False,
               # a ranking is taken at the time limit, inside the game; an elimination must come by it
               time_limit=c.time_limit + (0 if c.elimination else 30), requirements=_requirements(brief, expects),
               conditions=ending,
               win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="fight",
               # while it waits the army meets the rival that hunts it at home, its commander beside it (a waiting
               # army that stands is beaten by fewer); an elimination is won only once every rival is found: the
               # army searches the starts
               strategy_params={"engage_at": round(c.time_limit * FFA_ENGAGE_SHARE[plan], 1), "guard_radius": FFA_GUARD,
                                **({"guard_with_commander": True} if "commander" in c.side_army
                                   or c.elimination == "commanders" else {}),
                                **({"sweep": [[round(v, 1) for v in sp[s]] for s in starts]} if c.elimination else {})},
               variation=LV.ffa_variation((m.width / 2, m.height / 2)))


# When the reference joins a free-for-all, as a share of the game, tried in this order: it beats off the
# rival that hunts it at home, then strikes the survivors the others have worn down. Whether it ranks
# first depends on the team count, the time and the metric in ways no formula predicts, so each call
# for a weaker enemy (the reference did not rank first) moves to the next plan. The armies stay equal
# in every plan: the request asked for a fair free-for-all.
FFA_ENGAGE_SHARE = {"late": 2 / 3, "midway": 0.5, "join_at_once": 0.0, "hold_home": 1.0}
# a ranking by what a side keeps (hp left, survival) is won by fighting least: waiting at home comes first
FFA_PLANS = {"hp_remaining": ("hold_home", "late", "midway"), "survival": ("hold_home", "late", "midway")}
FFA_DEFAULT_PLANS = ("late", "midway", "join_at_once")
FFA_GUARD = 15.0    # tiles round home within which a waiting army (and its commander) strikes intruders


def _ffa_plan(c: Concepts, guidance: list[str]) -> str:
    corrections = sum("weaker" in g or "easier" in g for g in guidance)
    plans = FFA_DEFAULT_PLANS if c.elimination else FFA_PLANS.get(c.ranking or "", FFA_DEFAULT_PLANS)
    return plans[min(corrections, len(plans) - 1)]


GARRISON_WORTH = 4      # light bots' worth of each enemy unit type a siege request names as holding the base
ZONE_RADIUS = 5.0
ZONE_SCREEN = 22.0      # tiles round a fixed zone within which the reference's army meets attackers
DEFAULT_HOLD = 60.0     # seconds to hold a zone when the request names no hold time
RELIEF_SIZE = 3         # light bots per relief column at enemy strength 1 (five retake the zone from the army)
SCREEN_AHEAD = 18.0     # tiles from a fixed zone toward its named counterattacks at which the army meets them


def _capture(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    """Take a zone from its garrison and hold it, uncontested, for the hold time. When the request says
    where the zone is (the centre, a hill...) it is there; else it is one of several garrisoned outposts,
    drawn per seed and marked and announced at the start."""
    from genesis.offline import layout_variation as LV   # here, not at the top: the families' own module

    side = c.directions[0] if any(r.id == "zone_side" for r in brief.requirements) else None
    fixed = LV.zone_fixed(brief.query) or side is not None
    map_ref = map_choice(c, brief.query)
    m = G.load(map_ref)
    sp = G.spawns(m)
    _, centre = G.base_point(m)
    if side:
        # "hold the western bridge": the zone stands on that side (on the map's bridge there, when it has one),
        # the player starts at the side spawn farthest from it
        centre = _side_place(m, side, "bridge" in brief.query.lower())
        start = sp[LV.side_start(m, centre) or G.pick_fronts(m, centre, 1)[0]]
    else:
        start = sp.get("south") or sp[G.pick_fronts(m, centre, 1)[0]]
    zones = [] if fixed else LV.capture_zones(m, start, centre)
    zone = centre if fixed else tuple(zones[0])
    hold = c.hold_time or DEFAULT_HOLD
    deadline = c.deadline or c.time_limit
    strength = _strength(guidance)
    taken: list = []
    army = _spread(m, _mixed_army(), start, taken)
    army, protect, protect_expects = _protect(c, army, start, m, taken)
    garrison = []
    for post in ([zone] if fixed else [tuple(z) for z in zones]):
        garrison += _spread(m, [UnitPlacement(type="light_bot", count=_scaled(3, strength, 1))], post, [])
    zone_xy = [round(zone[0], 1), round(zone[1], 1)]
    params = {"team": PLAYER, "zone": zone_xy, "radius": ZONE_RADIUS, "hold_seconds": hold, "deadline": deadline}
    if zones:
        params["zones"] = zones
    comps = [RuleComponent(
        id="capture_and_hold", purpose=f"hold the zone for {hold:g} s without a break to win; lose at the deadline"
        + ("" if fixed else f"; the zone is one of {len(zones)} outposts, drawn per seed"),
        kind="objective", library_rule="capture_and_hold",
        requirement_ids=["capture_win", "hold_zone", "deadline"], params=params)]
    comps += protect
    counter: Expects = {}
    named = bool(c.directions) and len(c.direction_times) == len(c.directions)
    if named:
        # the request names the counterattacks' sides and times: they come as said, a few seconds late
        counter_comp, counter = _counterattacks(c, m, zone, _relief_size(c, strength))
        comps.append(counter_comp)
    elif fixed:
        # the request fixes the zone: the seed varies the relief columns that try to retake it
        comps.append(LV.relief_component(m, start, _relief_size(c, strength), _relief_type(c)))
    met = _deadline_expects(deadline, "did not hold the zone in time")
    expects: Expects = {
        "capture_win": [{"result": {"winners_include": PLAYER, "reason_contains": "held the zone"}}],
        "hold_zone": [
            {"event": "rule_log", "where": {"rule": "capture_and_hold", "name": "zone", "fields.hold_seconds": hold,
                                            "fields.radius": ZONE_RADIUS}, "min": 1, "max": 1},
            {"event": "rule_log", "where": {"rule": "capture_and_hold", "name": "zone_held"},
             "values": {"field": "fields.held", "min": hold, "max": hold + 2}, "min": 1, "max": 1},
            {"result": {"winners_include": PLAYER, "duration_min": hold}}],
        "deadline": met, "deadline_loss": met["idle"], **protect_expects, **counter}
    if side:
        expects["zone_side"] = _on_side_expects(m, side, {"rule": "capture_and_hold", "name": "zone"})
    teams = [
        TeamPlan(id=PLAYER, name="Attackers", role="player", controller={"type": "agent"}, units=army),
        TeamPlan(id=ENEMY, name="Garrison", role="enemy", controller={"type": "ai", "behaviour": "hold"},
                 units=garrison),
    ]
    relief = (" Enemy counterattacks come to retake it: " + ", ".join(
        f"from the {G.SIDE_NAMES[side]} at about {t // 60:g}:{t % 60:02g}"
        for side, t in zip(_named_fronts(c, m, zone)[0], c.direction_times)) + "."
              if named else " Small relief columns of the garrison come to retake it, from a side and at a time "
              "that change from game to game." if fixed else "")
    where = (f"at ({zone_xy[0]:g}, {zone_xy[1]:g}), in the {G.SIDE_NAMES[side]} of the map" if side else "at the map centre" if fixed else
             f"at one of {len(zones)} garrisoned outposts ({LV.sites_text(zones)}): which one changes from game to "
             "game and is marked and announced at the start")
    desc = (f"Take the marked zone {where} and hold it for {hold:g} seconds without a break: some of your units "
            f"inside and no enemy inside. If you have not held it by {deadline / 60:g} minutes, you lose." + relief
            + _protect_text(c))
    # with candidate zones the reference reads which one is marked, as a player does
    strategy_name, strategy = "hold_zone", ({"zones": zones, "home": list(start)} if zones else
                                            {"zone": zone_xy, "home": list(start)})
    if named and fixed:
        # counterattacks at the zone from the sides and times the request names: a hold without a break is lost
        # the moment one attacker sets foot in it, so the army meets them on their way in while its sturdiest
        # unit stands in the zone (backing off only from a weapon's reach). Relief columns that hunt the army's
        # units are met where they stand (hold_zone)
        holder = max({u.type for u in army if u.tag is None}, key=lambda t: (load_catalog().units[t].hp, t))
        strategy_name, strategy = "defend", {"home": _screen_point(m, zone, counter_comp.params["fronts"]),
                                             "threat_radius": ZONE_SCREEN, "roles": [
            {"role": "hold_back", "type": holder, "count": 1, "at": zone_xy, "margin": 0}]}
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=bool(c.production),
               time_limit=max(c.time_limit, deadline) + 30, requirements=_requirements(brief, expects),
               win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy=strategy_name,
               strategy_params=strategy, variation=(
                   LV.capture_variation(zones) if zones else
                   _counter_variation(brief, zone_xy, counter_comp.params["jitter"]) if named else
                   LV.relief_variation(zone_xy)))


def _screen_point(m, zone: tuple[float, float], fronts: list) -> list[float]:
    """Where the army waits to meet counterattacks outside the zone: SCREEN_AHEAD tiles from it toward the sides they
    come from (a column met at the zone's edge sets foot in it and breaks the hold); the zone when they come from all
    round."""
    sp = G.spawns(m)
    vecs = [(sp[f][0] - zone[0], sp[f][1] - zone[1]) for f in fronts if f in sp]
    units = [(x / math.hypot(x, y), y / math.hypot(x, y)) for x, y in vecs if math.hypot(x, y) > 1]
    if not units:
        return [round(zone[0], 1), round(zone[1], 1)]
    dx, dy = sum(u[0] for u in units) / len(units), sum(u[1] for u in units) / len(units)
    if math.hypot(dx, dy) < 0.5:
        return [round(zone[0], 1), round(zone[1], 1)]
    k = SCREEN_AHEAD / math.hypot(dx, dy)
    x, y = G.passable_near(m, zone[0] + dx * k, zone[1] + dy * k, [], 0.0)
    return [round(x, 1), round(y, 1)]


def _counterattacks(c: Concepts, m, zone: tuple[float, float], size: int) -> tuple[RuleComponent, Expects]:
    """The counterattacks a capture request names: each from its side at its time (up to a few seconds
    late), at the zone; evidenced by their sides and times as seen from the zone."""
    sides, fronts = _named_fronts(c, m, zone)
    times = list(c.direction_times)
    units = {_relief_type(c): size}
    late = V.schedule_jitter(times, True)
    comp = RuleComponent(
        id="staggered_waves", purpose="the named counterattacks, each from its side at its time, at the zone",
        kind="spawn", library_rule="staggered_waves", requirement_ids=["directions", "front_order", "front_times"],
        params={"team": ENEMY, "fronts": fronts, "times": times, "units": units, "jitter": late,
                "targets": [[round(zone[0], 1), round(zone[1], 1)]] * len(fronts)})
    spawned = _expect_spawns(where={"source": "rule", "team": ENEMY, "type": sorted(units)})
    return comp, _direction_expects(sides, times, zone, spawned)


def _counter_variation(brief: Brief, zone: list[float], late: float) -> Variation:
    """The zone and every counterattack's side and time are the request's: a fixed drill, but for up to
    `late` seconds of lateness."""
    from genesis.offline import layout_variation as LV   # the families' own module

    varies = [V.vary(f"each counterattack's time, up to {late:g} s after the stated one", "staggered_waves.jitter",
                     "the counterattack as it appears, not the clock")]
    fixed = V.stated(brief, "front_times", "directions", "front_order")
    probe = LV.relief_variation(zone).probes
    return V.variation(varies, probe, fixed_by=fixed)


def _teams(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    """A size-v-size battle, equal armies, no production. The seed draws a mirrored layout: which half
    of the map the player's alliance holds, which of its starts is the player's (so where the AI ally
    stands), and which team of the alliance the enemy sides gang up on."""
    from genesis.offline import layout_variation as LV   # here, not at the top: the families' own module

    map_ref = map_choice(c, brief.query)
    m = G.load(map_ref)
    sp = G.spawns(m)
    size = c.team_size     # the brief keeps it within what the map's corners and sides hold
    halves = LV.halves(sp, size)
    if not halves:
        raise ValueError(f"the map {map_ref['name']!r} has no two opposite halves of {size} starts each")
    _, ours, theirs = halves[0]
    origin = sp[ours[0]]
    ours_stated = ED.stated_army(c.side_army, _mixed_army())
    theirs_stated = ED.stated_army(c.rival_army or c.side_army, _mixed_army())
    if c.elimination == "commanders":
        ours_stated = ED.with_commander(ours_stated, ED.commander_tag(0))
        theirs_stated = ED.with_commander(theirs_stated, ED.commander_tag(1))
    # stated armies that lose a brawl but outrun and outrange the enemy's are played at their range
    roles: list[dict] = []
    if c.side_army and ED.kites(c.side_army, c.rival_army or c.side_army):
        ours_stated, roles = ED.kite_tagged(ours_stated)
    army = _spread(m, ours_stated, origin, [])
    # a request for equal or stated forces keeps them; otherwise a stronger enemy is the lever against a
    # plan that wins without watching the game
    equal = bool(re.search(r"\b(?:equal|same|identical|matching|mirror\w*)\b", brief.query.lower()))
    strength = 1.0 if equal or c.side_army or c.rival_army else _strength(guidance)
    enemy = _spread(m, [g.model_copy(update={"count": _scaled(g.count, strength)}) if g.type != ED.COMMANDER else g
                        for g in theirs_stated], origin, [])
    # fixed forces the reference loses with are eased by the enemy's plan: no ganging up
    gang = 1 if strength == 1 and _strength(guidance) < 1 else LV.GANG
    layouts = LV.team_layouts(m, size, army, origin, enemy_army=enemy, gang=gang)
    teams = []
    for i in range(size * 2):
        ally_ids = list(range(size)) if i < size else list(range(size, 2 * size))
        # the layout rule sets every AI side's controller at the start; until then they stand idle
        ctrl = {"type": "agent"} if i == PLAYER else {"type": "ai", "behaviour": "idle"}
        teams.append(TeamPlan(id=i, name=f"{'Blue' if i < size else 'Red'} {i % size + 1}",
                              role="player" if i == 0 else ("ally" if i < size else "enemy"), controller=ctrl,
                              allies=[a for a in ally_ids if a != i], units=[]))
    metric = c.ranking or "damage_efficiency"
    # the battle ends when one alliance has no mobile units left; if both still stand at the time
    # limit, the side of the best-ranked team wins, so every game has a decision; an elimination the
    # request asks for ends it instead, and nobody wins at the time limit
    conditions = (ED.conditions(c.elimination, [PLAYER, size]) if c.elimination else
                  [{"kind": "last_survivor", "mobile_only": True}, {"kind": "rank_by_score", "metric": metric}])
    at_start = {"event": "spawn", "where": {"source": "rule"}, "before": 0.5}
    expects = {"alliances": [{**at_start, "distinct_sectors": {"min": 2, "center": "map_center"}},
                             *_team_count_expects(2, size)],
               "team_count": _team_count_expects(2, size),
               "no_production": [{"event": "spawn", "where": {"source": "production"}, "max": 0}],
               "decisive": [{"result": {"ended_by": "condition"}}],
               "side_armies": _side_army_expects(c.side_army, c.rival_army or c.side_army, size)}
    if c.elimination:
        expects["elimination_win"] = ED.win_expects(c.elimination, PLAYER)
    comps = [LV.layout_component(layouts, ["alliances", "team_count"],
                                 f"mirrored starts of the two alliances and the enemy's focus, one of {len(layouts)} "
                                 "drawn per seed")]
    forces = ("stated forces" if c.side_army or c.rival_army else "equal forces" if strength == 1 else
              f"forces, each enemy side's about {round(100 * abs(strength - 1)):d}% "
              f"{'larger' if strength > 1 else 'smaller'} than yours")
    desc = (f"A {size}v{size} battle with fixed {forces} and no production. Your "
            f"{'ally is' if size == 2 else 'allies are'} controlled by the AI and will not communicate. Where your "
            "alliance starts (one half of the map, you at one of its starts)"
            + (" and which of you the enemy sides hunt first change" if gang > 1 else " changes")
            + " from game to game: find your ally and fight together. "
            + ("Your units are faster and outrange the enemy's: fight at your range and back off from theirs. "
               if roles else "")
            + (ED.ending_text(c, "alliance") if c.elimination else
               "The last alliance with mobile units standing wins; if both still stand after "
               f"{c.time_limit / 60:g} minutes, the alliance of the team with the best {metric.replace('_', ' ')}"
               + (" (damage dealt / damage received)" if metric == "damage_efficiency" else "") + " wins."))
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=False,
               time_limit=c.time_limit, requirements=_requirements(brief, expects), conditions=conditions,
               win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="fight",
               strategy_params={"engage_at": 0, "with_allies": True, "join_allies": True,
                                **({"roles": roles} if roles else {})},
               variation=LV.team_variation((m.width / 2, m.height / 2), ganged=gang > 1))


SIEGE_RING = 10          # turrets round the core at enemy strength 1: an army marching in a body breaks one ring
SIEGE_MAX_LIGHT = 16     # light turrets a ring round the core holds apart; a stronger ring is of heavy turrets


def _siege_ring(strength: float) -> tuple[str, int]:
    """The turret type and count guarding the core at `strength`: light turrets up to what two rings hold, else
    heavy turrets of the same measured worth (a ring too crowded stacks turrets the terrain pushed aside)."""
    light = max(4, round(SIEGE_RING * strength))
    if light <= SIEGE_MAX_LIGHT:
        return "light_turret", light
    return "heavy_turret", max(4, round(light * worth("light_turret") / worth("heavy_turret")))
SIEGE_RING_RADIUS = 2.5


def _siege(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    """Destroy a target inside a fortified base. The target and its turret ring stand at one of the base's
    candidate sites, drawn per seed: under fog the player scouts the sites, without fog the other sites
    hold decoy rings a blind sweep must break first."""
    from genesis.offline import layout_variation as LV   # here, not at the top: the families' own module

    map_ref = _map_for(c)
    m = G.load(map_ref)
    sp = G.spawns(m)
    fort_name, fort = G.base_point(m)
    named_side = any(r.id == "base_side" for r in brief.requirements)
    if named_side:
        # "their base is in the west": the base and its candidate sites stand on that side of the map
        fort = G.side_point(m, c.directions[0], SIEGE_SIDE_SHARE)
    # the besiegers come from a side, not a corner: no candidate site lies on the way to all the others
    start = LV.side_start(m, fort) or G.pick_fronts(m, fort, 1)[0]
    artillery = concepts.artillery_siege(c)
    army = ([UnitPlacement(type="artillery_bot", count=8)] if artillery else
            [UnitPlacement(type="assault_bot", count=8), UnitPlacement(type="artillery_bot", count=4),
             UnitPlacement(type="light_tank", count=4)])
    army = _spread(m, army, sp[start], [])
    # the named building or commander, else a storage inside the base
    catalog = load_catalog().units
    target = (c.objective_type if c.objective_type in catalog and (catalog[c.objective_type].speed == 0
                                                                    or c.objective_type == "commander")
              and c.objective_type not in ("light_turret", "heavy_turret", "wall") else "metal_storage")
    sites = LV.siege_sites(m, fort, ring=SIEGE_RING_RADIUS)
    fog = bool(c.fog)
    # the turrets the request counts are those turrets; else a ring as strong as the PM asks
    turret_type, turrets = next(iter(c.guard_turrets.items()), _siege_ring(_strength(guidance)))
    # the enemy units the request says hold the base ("their artillery has dug in around it"), as many of each as
    # GARRISON_WORTH light bots are worth, beside the base's point
    strength = _strength(guidance)
    worth_of = _scaled(GARRISON_WORTH, strength, 1)
    garrison = _spread(m, [UnitPlacement(type=t, count=c.garrison.get(t) or max(2, round(worth_of / worth(t))))
                           for t in concepts.siege_garrison(c)], fort, [])
    teams = [
        TeamPlan(id=PLAYER, name="Besiegers", role="player", controller={"type": "agent"}, units=army,
                 metal=300 if c.production else 0, energy=600 if c.production else 0),
        TeamPlan(id=ENEMY, name="Garrison", role="enemy", controller={"type": "ai", "behaviour": "hold"},
                 units=garrison),
    ]
    comps = [
        RuleComponent(id="static_fortification", purpose=f"a turret ring round the target at one of {len(sites)} "
                      "candidate sites of the base, drawn per seed" + ("" if fog else "; decoy rings at the others"),
                      kind="setup", library_rule="static_fortification", requirement_ids=["fortification"],
                      params={"team": ENEMY, "center": [fort[0], fort[1]], "radius": SIEGE_RING_RADIUS,
                              "turrets": turrets, "turret_type": turret_type, "walls": 0, "sites": sites,
                              "decoy_turrets": 0 if fog else turrets, "core_type": target,
                              "core_tag": "target"}),
    ]
    deadline = c.deadline or c.time_limit
    met = _deadline_expects(deadline, "did not destroy the target")
    fortified = ([{"event": "rule_log", "where": {"name": "fortification", "fields.turrets": turrets}, "min": 1,
                   "max": 1}] if c.guard_turrets else [])
    expects: Expects = {"fortification": [{"event": "spawn", "where": {"source": "rule", "team": ENEMY}, "min": 3},
                                          *fortified],
                        "destroy_win": [{"result": {"winners_include": PLAYER}}], "deadline_loss": met["idle"],
                        "deadline": met}
    if artillery:
        expects["artillery_only"] = [{"event": "spawn", "where": {"team": PLAYER, "source": "start", "type": "artillery_bot"}, "min": 1}]
    if garrison:
        expects["garrison"] = [{"event": "spawn", "where": {"team": ENEMY, "source": "start", "type": g.type}, "min": g.count}
                               for g in garrison]
    if named_side:
        # every candidate site lies on the named side: the target stands within reach of the base's point
        reach = max(math.dist(fort, s) for s in sites) + 1.0
        expects["base_side"] = [{"state": {"at": 1, "team": ENEMY, "tag": "target", "units_min": 1,
                                           "within": {"x": round(fort[0], 1), "y": round(fort[1], 1),
                                                      "radius": round(reach, 1)}}}]
    army, protect, protect_expects = _protect(c, army, sp[start], m, [(u.x, u.y) for u in army])
    comps += protect
    expects.update(protect_expects)
    teams[PLAYER] = teams[PLAYER].model_copy(update={"units": army})
    desc = (f"Destroy the enemy {target.replace('_', ' ')} inside its fortified base within {deadline / 60:g} "
            f"minutes. It stands inside a ring of turrets at one of {len(sites)} marked sites of the base "
            f"({LV.sites_text(sites)}); which one changes from game to game"
            + (": fog of war is on, so scout the sites before you commit." if fog else
               ", and the other sites hold decoy turret rings.")
            + (" Your army is artillery only: outrange the turrets." if artillery else "") + _protect_text(c))
    params = {"target_tag": "target", "target": list(fort)}
    if fog:
        params["search"] = sites
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=comps, fog_of_war=fog, production=bool(c.production),
               time_limit=max(c.time_limit, deadline) + 30, requirements=_requirements(brief, expects),
               conditions=[{"kind": "destroy_target", "team": PLAYER, "target": {"tag": "target", "team": ENEMY},
                            "deadline": deadline}],
               win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="attack",
               strategy_params=params, variation=LV.siege_variation(sites, fog, fort))


def _escort(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    """Bring a unit to a destination alive past seeded ambushes (`genesis.offline.escort_design`)."""
    from genesis.offline import escort_design   # here, not at the top: the family's own module

    return escort_design.design(brief, c, _strength(guidance), lambda expects: _requirements(brief, expects))


def _recon(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    """Locate hidden targets with a scout under fog (`genesis.offline.recon_design`)."""
    from genesis.offline import recon_design   # here, not at the top: the family's own module

    return recon_design.design(brief, c, _strength(guidance), lambda expects: _requirements(brief, expects))


def _micro(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    """A squad against an enemy force, nothing built (`genesis.offline.micro_design`)."""
    from genesis.offline import micro_design   # here, not at the top: the family's own module

    return micro_design.design(brief, c, _strength(guidance), lambda expects: _requirements(brief, expects))
def _resources(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    """Stockpile a resource or reach an income of it by a deadline (`genesis.offline.resource_design`)."""
    from genesis.offline import resource_design   # here, not at the top: the family's own module

    return resource_design.design(brief, c, _strength(guidance), lambda expects: _requirements(brief, expects))
