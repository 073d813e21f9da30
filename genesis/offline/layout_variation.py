"""Seeded layouts of the offline designs: what a seed changes in the free-for-all, team-battle, siege and
capture families, so that a plan made for one seed (the reference's orders replayed blind, a rush) meets
another game on the next.

- a layout is one arrangement of the start armies and the AI roles (library rule `seeded_layout`): the
  player's start among the map's symmetric starts, which corner the ally holds, which rival is aggressive;
- a siege's core stands at one of several candidate sites of the base (`static_fortification.sites`);
- a capture zone whose place the request leaves open is one of several outposts (`capture_and_hold.zones`).

Every function returns plain data for the GDD (rule params, the `Variation` it declares); geometry comes
from the map's named spawns, so the same layouts serve built-in and procedural maps.
"""
from __future__ import annotations

import math
import re

import numpy as np

from engine.agent.scripted import Probe, ScriptedOrder
from engine.maps import label_regions, terrain_array
from engine.snapshot import BRIDGE, GROUND
from genesis.models import RuleComponent, SeedVariation, UnitPlacement, Variation
from genesis.offline import geometry as G

LAYOUT_ID = "layout"                 # the seeded_layout component of a design
LAYOUT_RULE = "seeded_layout"
SITE_OFFSET_SHARE = 15 / 128         # candidate sites stand this share of the map off the fort, per axis
SITE_MIN_OFFSET, SITE_MAX_OFFSET = 8.0, 20.0
CORNERS = ("nw", "ne", "se", "sw")


def layout_component(layouts: list[dict], requirement_ids: list[str], purpose: str) -> RuleComponent:
    return RuleComponent(id=LAYOUT_ID, purpose=purpose, kind="setup", library_rule=LAYOUT_RULE,
                         requirement_ids=requirement_ids, params={"layouts": layouts})


def army_entries(team: int, groups: list[UnitPlacement]) -> list[dict]:
    """The layout entries of placed unit groups (x, y set) for `team`."""
    out = []
    for g in groups:
        e = {"team": team, "type": g.type, "count": g.count, "x": g.x, "y": g.y}
        if g.tag:
            e["tag"] = g.tag
        out.append(e)
    return out


def moved(groups: list[UnitPlacement], origin: tuple[float, float], to: tuple[float, float], m) -> list[UnitPlacement]:
    """`groups` placed around `origin`, placed the same way around `to` (each group on passable ground)."""
    out, taken = [], []
    for g in groups:
        x, y = G.passable_near(m, to[0] + g.x - origin[0], to[1] + g.y - origin[1], taken, clearance=3.0,
                               main_region_only=True)
        taken.append((x, y))
        out.append(g.model_copy(update={"x": round(x, 1), "y": round(y, 1)}))
    return out


def waves(target_team: int, first_at: float, interval: float = 10.0) -> dict:
    return {"type": "ai", "behaviour": "waves", "target": {"team": target_team}, "first_at": first_at,
            "interval": interval, "min_group": 1}


# --- siege ----------------------------------------------------------------------------------------
def open_spot(m, x: float, y: float, radius: float) -> tuple[float, float]:
    """The tile centre nearest to (x, y) of the map's main ground region whose whole disc of `radius`
    is ground of that region (a turret ring round it needs no moving), else the nearest such tile."""
    terrain = terrain_array(m)
    ok = (terrain == GROUND) | (terrain == BRIDGE)
    labels, n = label_regions(ok)
    if n:
        ok = labels == int(np.argmax(np.bincount(labels.ravel())[1:]) + 1)
    r = int(math.ceil(radius))
    dy, dx = np.mgrid[-r:r + 1, -r:r + 1]
    disc = (dx ** 2 + dy ** 2) <= radius ** 2
    ys, xs = np.nonzero(ok)
    order = np.argsort((xs + 0.5 - x) ** 2 + (ys + 0.5 - y) ** 2, kind="stable")
    h, w = ok.shape
    for i in order[:4000]:
        tx, ty = int(xs[i]), int(ys[i])
        if tx - r < 0 or ty - r < 0 or tx + r >= w or ty + r >= h:
            continue
        if ok[ty - r:ty + r + 1, tx - r:tx + r + 1][disc].all():
            return tx + 0.5, ty + 0.5
    return G.passable_near(m, x, y, [], 0.0, main_region_only=True)


def siege_sites(m, fort: tuple[float, float], n: int = 4, ring: float = 4.0) -> list[list[float]]:
    """Candidate sites of a siege's core: the diagonals of the fort, off the straight roads from the
    gates to its centre (an army marching to the centre does not see them), each with open ground for
    its turret ring."""
    off = min(SITE_MAX_OFFSET, max(SITE_MIN_OFFSET, SITE_OFFSET_SHARE * min(m.width, m.height)))
    sites: list[list[float]] = []
    for dx, dy in ((-1, -1), (1, -1), (1, 1), (-1, 1))[:n]:
        x, y = open_spot(m, fort[0] + dx * off, fort[1] + dy * off, ring + 0.75)
        sites.append([round(x, 1), round(y, 1)])
    return sites


def side_start(m, fort: tuple[float, float]) -> str | None:
    """The map's side spawn (south, north, west, east, in that order of preference) farthest from the
    fort, when one stands at least a third of the map away from it."""
    sp = G.spawns(m)
    far = [(round(math.dist(sp[s], fort)), -k, s) for k, s in enumerate(("south", "north", "west", "east"))
           if s in sp and math.dist(sp[s], fort) >= min(m.width, m.height) / 3]
    return max(far)[2] if far else None


def sites_text(sites: list[list[float]]) -> str:
    return ", ".join(f"({x:g}, {y:g})" for x, y in sites)


def siege_variation(sites: list[list[float]], fog: bool, fort: tuple[float, float]) -> Variation:
    what = f"which of the {len(sites)} candidate sites of the base ({sites_text(sites)}) holds the target and its turret ring"
    observe = ("scout the sites (fog of war hides which one holds the target) and attack the one that does; an army "
               "sent to a fixed site meets an empty or decoy site on most seeds" if fog else
               "see which site holds the target and strike it past the decoy rings; a fixed site is a decoy on most seeds")
    probes = [Probe(name=f"all_to_site_{k + 1}", exploit=f"attack-move everything to candidate site {k + 1} at once and stay",
                    orders=[ScriptedOrder(t=0, kind="fight", x=x, y=y)]) for k, (x, y) in enumerate(sites[:3])]
    probes.append(Probe(name="all_to_fort_centre", exploit="attack-move everything to the centre of the base and stay",
                        orders=[ScriptedOrder(t=0, kind="fight", x=round(fort[0], 1), y=round(fort[1], 1))]))
    return Variation(varies=[SeedVariation(what=what, how="static_fortification.sites", observe=observe)],
                     probes=probes, knob="static_fortification.turrets")


# --- team battles ---------------------------------------------------------------------------------
def halves(sp: dict[str, tuple[float, float]], size: int) -> list[tuple[str, list[str], list[str]]]:
    """The mirrored ways to split the map's edge spawns between two alliances of `size`: (name, our
    starts, their starts), ours on one half of the map and theirs on the opposite half."""
    out = []
    for name, ours, theirs in (("west", ("nw", "west", "sw"), ("ne", "east", "se")),
                               ("east", ("ne", "east", "se"), ("nw", "west", "sw")),
                               ("north", ("nw", "north", "ne"), ("sw", "south", "se")),
                               ("south", ("sw", "south", "se"), ("nw", "north", "ne"))):
        a = [s for s in ours if s in sp and (size == 3 or s in CORNERS)]
        b = [s for s in theirs if s in sp and (size == 3 or s in CORNERS)]
        if len(a) >= size and len(b) >= size:
            # a side of two holds its half's corners; a side of three its whole edge
            out.append((name, a[:size] if size != 2 else [s for s in a if s in CORNERS][:2],
                        b[:size] if size != 2 else [s for s in b if s in CORNERS][:2]))
    return out


TEAM_ENEMY_FIRST_AT = 10.0     # the enemy sides strike at once ...
TEAM_ALLY_FIRST_AT = 20.0      # ... the AI ally holds a little longer, so a player who joins it fights beside it
GANG = 2                       # enemy sides that gang up on the hunted team (all of them in a 2v2)


def team_layouts(m, size: int, army: list[UnitPlacement], origin: tuple[float, float],
                 enemy_army: list[UnitPlacement] | None = None, gang: int = GANG) -> list[dict]:
    """Every mirrored start of a size-v-size battle: our alliance on one half of the map (the player at
    any of its starts), theirs on the opposite half, and which team of ours the enemy sides gang up on
    (the two nearest to it; a third goes for its own nearest). Each AI ally attacks the enemy side
    nearest to it; the player must join an ally where it stands. `enemy_army` (default `army`) is each
    enemy side's army: stronger when the design must make an unwatched plan lose. With `gang` 1 no
    enemy sides gang up: each goes for the team of ours nearest to it (fixed forces too strong for the
    reference are eased this way, not by changing them)."""
    sp = G.spawns(m)
    layouts = []
    for half, ours, theirs in halves(sp, size):
        for me in range(size):
            order = [ours[me]] + [s for k, s in enumerate(ours) if k != me]     # team 0 first, then its allies
            pos = {i: sp[s] for i, s in enumerate(order)}
            pos.update({size + j: sp[s] for j, s in enumerate(theirs)})
            # whom the enemy gangs up on: any team of a pair; in a 3v3 the player's (two enemy sides on
            # one ally of three is a fight no joining wins on every map)
            for focus in range(size if size <= 2 and gang > 1 else 1):
                strike = TEAM_ENEMY_FIRST_AT
                units, ctrls = [], []
                for t in range(2 * size):
                    own = army if t < size or enemy_army is None else enemy_army
                    units += army_entries(t, moved(own, origin, pos[t], m))
                # the two enemy sides nearest to the hunted team gang up on it; any other goes for its nearest
                ganged = sorted(range(size, 2 * size), key=lambda e: (math.dist(pos[e], pos[focus]), e))[:gang] \
                    if gang > 1 else []
                for t in range(1, 2 * size):
                    if t < size:
                        foe = min(range(size, 2 * size), key=lambda f: (math.dist(pos[t], pos[f]), f))
                        ctrls.append({"team": t, "controller": waves(foe, TEAM_ALLY_FIRST_AT)})
                    elif t in ganged:
                        ctrls.append({"team": t, "controller": waves(focus, strike)})
                    else:
                        foe = min(range(size), key=lambda f: (math.dist(pos[t], pos[f]), f))
                        ctrls.append({"team": t, "controller": waves(foe, strike)})
                who = ("you" if focus == 0 else f"ally {focus}") if ganged else "their nearest"
                layouts.append({"name": f"{half} half, you at {order[0]}, enemies hunt {who}",
                                "units": units, "controllers": ctrls})
    return layouts


def team_variation(centre: tuple[float, float], ganged: bool = True) -> Variation:
    varies = [SeedVariation(what="which half of the map your alliance holds and which of its starts is yours "
                                 "(mirrored layouts), so where your ally stands", how="layout: random",
                            observe="find your ally and join it before the enemy arrives; a march to a fixed point "
                                    "joins nobody on most seeds")]
    if ganged:
        varies.append(SeedVariation(what="which team of your alliance the enemy sides gang up on", how="layout: random",
                                    observe="see whom the enemy columns head for and fight beside that team"))
    return Variation(varies=varies, probes=[_to_centre(centre)])


def _to_centre(centre: tuple[float, float]) -> Probe:
    return Probe(name="all_to_map_centre", exploit="attack-move everything to the map centre at once and stay",
                 orders=[ScriptedOrder(t=0, kind="fight", x=round(centre[0], 1), y=round(centre[1], 1))])


# --- free-for-all ---------------------------------------------------------------------------------
FFA_HUNT_AT, FFA_OTHERS_AT = 15.0, 20.0   # the hunter strikes first, the others a little later


def ffa_layouts(m, starts: list[str], size: int, army: list[UnitPlacement], origin: tuple[float, float],
                prey_of) -> list[dict]:
    """Every rotation of the starts (the player's side at any start, the others in the same ring order)
    times which rival side hunts the player's side; the other AI sides hunt as `prey_of(side, hunter)`
    says; the hunter strikes first. With more than four
    sides the player keeps its start (the starts of a large ring are not alike) and only a neighbour
    round the table hunts it (one from across the map walks through the others' fights)."""
    sp = G.spawns(m)
    sides = len(starts) // size
    layouts = []
    for rot in range(sides if sides <= 4 else 1):
        pos = {i: sp[starts[(i + rot * size) % len(starts)]] for i in range(len(starts))}
        for hunter in (range(1, sides) if sides <= 4 else (1, sides - 1)):
            units, ctrls = [], []
            for t in range(len(starts)):
                units += army_entries(t, moved(army, origin, pos[t], m))
            for t in range(1, len(starts)):
                when = FFA_HUNT_AT if t // size == hunter else FFA_OTHERS_AT
                ctrls.append({"team": t, "controller": waves(prey_of(t // size, hunter) * size, when)})
            layouts.append({"name": f"you at {starts[rot * size % len(starts)]}, side {hunter} hunts you",
                            "units": units, "controllers": ctrls})
    return layouts


def ffa_prey(side: int, hunter: int, sides: int) -> int:
    """Whom a side hunts. The hunter hunts the player's side (0); the other AI sides form one chain of
    hunts that starts at the player's neighbour that is not the hunter (the one side nobody hunts: the
    reference strikes its nearest rival when it joins) and ends at the hunter, so every other side is
    caught between its prey and its pursuer. The player's own allies (a side of several teams) go for
    the hunter."""
    if side == hunter:
        return 0
    if side == 0:
        return hunter
    free = 1 if hunter != 1 else sides - 1
    chain = [free] + [k for k in range(free + 1, free + sides) if k % sides not in (0, free, hunter)]
    chain = [k % sides for k in chain] + [hunter]
    return chain[chain.index(side) + 1]


def ffa_variation(centre: tuple[float, float]) -> Variation:
    return Variation(varies=[
        SeedVariation(what="which start your side holds (the sides keep their ring order round the map)",
                      how="layout: random", observe="read where you and each rival stand before moving"),
        SeedVariation(what="which rival side hunts yours",
                      how="layout: random",
                      observe="watch which rival comes for you: beat it off at home, then strike the weakened "
                              "survivors; a rush into the nearest rival is caught from behind on most seeds")],
        probes=[_to_centre(centre)])


# --- capture and hold -----------------------------------------------------------------------------
FIXED_ZONE = re.compile(r"\b(?:middle|centre|center|central|plaza|crossroads?|bridge|ford|plateau|hilltop|hill|summit|"
                        r"high\s+ground)\b", re.I)


def zone_fixed(query: str) -> bool:
    """Whether the request says where the zone is (the map centre, a hill, a bridge...)."""
    return bool(FIXED_ZONE.search(query or ""))


OUTPOST_CLEARANCE = 3.5      # tiles of open ground round an outpost


def capture_zones(m, start: tuple[float, float], centre: tuple[float, float], n: int = 4) -> list[list[float]]:
    """Candidate zones the request leaves open: `n` outposts evenly round the map centre, turned so that
    none lies on the straight road from the player's start to the centre."""
    ang0 = math.atan2(start[1] - centre[1], start[0] - centre[0]) + math.pi / n
    reach = 0.25 * min(m.width, m.height)
    zones: list[list[float]] = []
    for k in range(n):
        a = ang0 + 2 * math.pi * k / n
        # open ground round each outpost: its garrison stands in a ring there
        x, y = open_spot(m, centre[0] + reach * math.cos(a), centre[1] + reach * math.sin(a), OUTPOST_CLEARANCE)
        zones.append([round(x, 1), round(y, 1)])
    return zones


def capture_variation(zones: list[list[float]]) -> Variation:
    return Variation(varies=[SeedVariation(
        what=f"which of the {len(zones)} garrisoned outposts ({sites_text(zones)}) is the zone to hold",
        how="capture_and_hold.zones",
        observe="read which outpost the game marks and announces as the zone at the start and take that one; a "
                "fixed outpost is the wrong one on most seeds")],
        probes=[Probe(name=f"all_to_outpost_{k + 1}", exploit=f"attack-move everything to outpost {k + 1} and stay",
                      orders=[ScriptedOrder(t=0, kind="fight", x=x, y=y)]) for k, (x, y) in enumerate(zones)])


RELIEF_INTERVAL, RELIEF_FIRST_AT, RELIEF_JITTER = 60.0, 50.0, 30.0


def relief_component(m, start: tuple[float, float], size: int, unit_type: str = "light_bot") -> RuleComponent:
    """Relief columns of the garrison (library rule `periodic_raids`) from a seeded side other than the
    player's, each up to RELIEF_JITTER s late, never twice in a row from the same side."""
    sp = G.spawns(m)
    sides = [s for s in ("north", "east", "west", "south", "nw", "ne", "sw", "se")
             if s in sp and math.dist(sp[s], start) > 0.4 * min(m.width, m.height)]
    return RuleComponent(id="relief", purpose="relief columns from a random side at a random time try to retake the "
                         "zone", kind="spawn", library_rule="periodic_raids", requirement_ids=[],
                         params={"team": 1, "interval": RELIEF_INTERVAL, "first_at": RELIEF_FIRST_AT, "sides": sides,
                                 "size": size, "unit_type": unit_type, "target_type": "light_tank", "target_team": 0,
                                 "jitter": RELIEF_JITTER, "avoid_repeat": True})


def relief_variation(zone: list[float]) -> Variation:
    return Variation(varies=[
        SeedVariation(what="from which side each relief column comes to retake the zone", how="relief: random",
                      observe="see each column coming and keep it out of the zone"),
        SeedVariation(what="when each relief column comes, up to 30 s late", how="relief.jitter",
                      observe="the hold is safe only once the last column is beaten")],
        probes=[Probe(name="all_to_zone", exploit="attack-move everything into the zone at once and stay",
                      orders=[ScriptedOrder(t=0, kind="fight", x=zone[0], y=zone[1])])])
