"""The designer's side of the families no library rule covers: components carrying a typed recipe
that the offline developer composes into new Lua (see genesis/offline/rule_composer.py), and the
expectations that evidence them on the composed rule's trace (its rule_log fields and spawn events)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from engine.catalog import load_catalog
from engine.engagement import worth
from genesis.models import Concepts, RuleComponent
from genesis.offline import geometry as G
from genesis.offline import variation as V
from genesis.rule_recipe import RuleRecipe, recipe_params

DEFAULT_MAIN_FACTOR = 2.0
PROBE_TIMES = (60.0, 180.0)      # probe and main attack when the request does not time them
WINDOW = 1.0                     # seconds around a stated time in which its spawns must appear
EARLY = 0.5                      # seconds before a stated time that a timed attack spawns
AIR_RAIDER = "bomber"
ATTACK_TAG = "enemy_attack"      # the timed attack's units: the production race is won once none is left
ZONE_EVERY = 30.0                # seconds between two shrinks of a safe zone when the request does not say
ZONE_END_SHARE = 0.75            # the zone is smallest this far into the game
ZONE_MIN_RADIUS = 6.0            # tiles: room left for a last fight
ZONE_DAMAGE = 15.0               # hp every unit outside the zone loses at each shrink


@dataclass
class Site:
    """Where the design stands: what a recipe needs to place and aim its units."""

    map_ref: dict
    base: tuple[float, float]
    fronts: list[str]
    target_tag: str | None
    strength: float = 1.0
    player: int = 0
    enemy: int = 1
    # what the request pins (the seed varies the rest, see genesis/offline/variation.py)
    times_stated: bool = False      # the attack times are the request's own
    interval_stated: bool = False   # the raid interval is the request's own
    sides_named: bool = False       # the request names the sides the attacks come from


def _size(n: float, strength: float) -> int:
    # a weaker enemy is asked for after a lost reference run: round down then, so every such call
    # shrinks the group (round(2 * 0.75) is 2, and the same failure would repeat until the budget ends);
    # a stronger one rounds up, so every call grows it (round(2 * 1.25) is 2)
    v = n * strength
    return max(1, math.floor(v + 1e-9) if strength < 1 else math.ceil(v - 1e-9))


def _attack(site: Site, target_type: str | None = None, withdraw: bool = False) -> dict:
    """Attack the player's units of `target_type`, else the ones tagged with the site's target tag."""
    out = {"do": "attack", "team": site.enemy, "target_team": site.player, "withdraw": withdraw}
    if target_type:
        out["target_type"] = target_type
    elif site.target_tag:
        out["target_tag"] = site.target_tag
    return out


def _component(cid: str, purpose: str, recipe: dict, requirement_ids: list[str]) -> RuleComponent:
    r = RuleRecipe.model_validate(recipe)
    return RuleComponent(id=cid, purpose=purpose, kind="spawn", recipe=r, params=recipe_params(r),
                         requirement_ids=requirement_ids)


def _spawns_at(t: float, team: int, **extra) -> dict:
    return {"event": "spawn", "where": {"source": "rule", "team": team}, "after": t - WINDOW, "before": t + WINDOW,
            **extra}


def attack_size(strength: float) -> int:
    """Light bots in each timed enemy attack of a production race."""
    return _size(3, strength)


def attack_units(c: Concepts, strength: float) -> dict[str, int]:
    """Each timed attack of a production race: the unit the request names for it ("enemy assault bots attack
    at minute 5"), as many as are worth the light bots of attack_size by the engine's fight-worth table (at least
    two of a type the request names in the plural)."""
    kind = c.wave_units[0] if c.wave_units else "light_bot"
    return {kind: max(2 if c.wave_units else 1, round(attack_size(strength) / worth(kind)))}   # units named: more than one


def _enemy_attack(c: Concepts, site: Site) -> tuple[RuleComponent, dict[str, list[dict]]]:
    times = sorted(c.wave_times)
    # half a second early: when a stated time is also the race's deadline, the attack is on the map
    # before the deadline ends the game in the same instant
    spawn_times = [max(0.0, t - EARLY) for t in times]
    units = attack_units(c, site.strength)
    late = attack_jitter(c, site)
    # one step for every time: the shape (and so the composed rule) is the same however many attacks;
    # the units are tagged so the race's goal can wait until they are beaten; each attack comes from
    # a drawn side, a few seconds after its time
    when: dict = {"on": "time", "at": spawn_times}
    if late:
        when["jitter"] = late
    spawn = {"do": "spawn", "team": site.enemy, "units": units, "at": site.fronts[0], "tag": ATTACK_TAG}
    if len(site.fronts) > 1 and not site.sides_named:
        spawn.update(at=list(site.fronts[:3]), pick="random")
    steps = [{"when": when, "then": [spawn, _attack(site)]}]
    # raids the request times ("raids hit you at 3:00 and 6:00") are these attacks, not periodic raids
    served = ["enemy_attack"] + (["raids"] if c.raids and not c.wave_interval else [])
    comp = _component("enemy_attack", f"timed enemy attacks at {', '.join(f'{t:g}' for t in times)} s on the "
                      "player's base during the production race; logs group_spawned and attack_ordered",
                      {"steps": steps}, served)
    count = next(iter(units.values()))
    expects = [V.late_window(_spawns_at(t, site.enemy, min=count), late) for t in times]
    expects.append({"event": "rule_log", "where": {"name": "attack_ordered", "fields.ok": True}, "min": len(times)})
    found = {"enemy_attack": expects}
    if "raids" in served:
        found["raids"] = [{"event": "spawn", "where": {"source": "rule", "team": site.enemy}, "min": 1}]
    return comp, found


def attack_jitter(c: Concepts, site: Site) -> float:
    """How late (s) a production race's timed attacks may come: a few seconds (the request states their
    times), and none past the race's deadline."""
    times = sorted(c.wave_times)
    if not times:
        return 0.0
    late = V.schedule_jitter(times, True)
    deadline = c.deadline or c.time_limit
    if deadline is not None:
        late = min(late, max(0.0, deadline - times[-1] - 1.0))
    return float(round(late, 1))


def ground_raider(c: Concepts) -> str:
    """The ground unit raids are made of: the raiders the request names ("light tank raids"), else raider or
    light bots."""
    if c.wave_units:
        return c.wave_units[0]
    return "raider_bot" if "raider" in c.unit_kinds else "light_bot"


def raider_type(c: Concepts) -> str:
    """The unit every raid is made of: bombers for raids by air, else the ground raider."""
    return AIR_RAIDER if c.air and not c.ground else ground_raider(c)


def _sectors(site: Site, fronts: list[str]) -> int:
    """How many compass sectors around the base the fronts lie in."""
    spawns = G.spawns(G.load(site.map_ref))
    return len({G.sector(spawns[f][0] - site.base[0], spawns[f][1] - site.base[1]) for f in fronts})


def _raids(c: Concepts, site: Site) -> tuple[RuleComponent, dict[str, list[dict]]]:
    interval = c.wave_interval
    raider = raider_type(c)
    air = raider == AIR_RAIDER
    # one bomber already destroys a building; a raid the request counts is that many
    units = {raider: c.raid_size or _size(1 if air else 2, site.strength)}
    # the sides the request leaves open are drawn too: the first raid's side, then never the previous one
    random_side = (c.random_side or not site.sides_named) and len(site.fronts) >= 2
    fronts = site.fronts if random_side else site.fronts[:2]
    late = V.interval_jitter(interval, site.interval_stated)
    # a raid on a defence goes home once its victim falls; one on a production race's economy goes on to
    # the next building until it is beaten (left alone, it razes the economy)
    withdraw = c.archetype != "production"
    # a race is won long before a defence ends: its first raid comes half an interval in, during the build-up
    first = interval if withdraw else round(interval / 2, 1)
    if len(c.wave_times) == 1:
        first = c.wave_times[0]     # "one every 70 seconds starting at 0:50"
    if random_side:
        # each raid draws its side with the engine's seeded random, never the previous raid's side, and
        # comes up to `late` seconds after its slot
        steps = [{"when": {"on": "period", "every": interval, "first_at": first, "jitter": late},
                  "then": [{"do": "spawn", "team": site.enemy, "units": units, "at": fronts,
                            "pick": "random_no_repeat"}, _attack(site, c.raid_target_type, withdraw=withdraw)]}]
    else:
        # raids alternate between the named fronts: each front's step fires every len(fronts) intervals
        steps = [{"when": {"on": "period", "every": interval * len(fronts), "first_at": first + interval * k,
                           "jitter": late},
                  "then": [{"do": "spawn", "team": site.enemy, "units": units, "at": front},
                           _attack(site, c.raid_target_type, withdraw=withdraw)]} for k, front in enumerate(fronts)]
    if c.theft:
        # each raid also carries off part of the player's metal (at most what the player has)
        for step in steps:
            step["then"].append({"do": "take", "team": site.player, "metal": c.theft, "to_team": site.enemy})
    target = c.raid_target_type or "the player's base"
    # the raids are the design's attacks: a library raid component serving only these requirements is replaced
    served = (["raids", "interval", "fronts", "raid_target", "raid_domain"] + (["air"] if air else [])
              + (["theft"] if c.theft else []) + (["raid_size"] if c.raid_size else []))
    comp = _component("composed_raids", f"{'air' if air else 'ground'} raids every {interval:g} s (each up to "
                      f"{late:g} s late) from {'a random side among ' if random_side else ''}{', '.join(fronts)} "
                      f"against {target}, never the same side twice in a row"
                      + (f", each stealing up to {c.theft:g} metal for the raiders" if c.theft else "")
                      + "; logs group_spawned and attack_ordered" + (" and resources_taken" if c.theft else ""),
                      {"steps": steps}, served)
    catalog = load_catalog().units
    air_types = sorted(n for n, u in catalog.items() if u.category == "air")
    not_air = sorted(n for n, u in catalog.items() if u.category != "air")
    where = {"source": "rule", "team": site.enemy}
    expects: dict[str, list[dict]] = {
        "raids": [{"event": "spawn", "where": where, "min": 1}],
        "interval": [{"event": "spawn", "where": where, "time_clusters": {"min": 2, "gap": interval * 0.6}}],
        # a random side is evidenced as the library's was: raids from at least two sides
        "fronts": [{"event": "spawn", "where": where,
                    "distinct_sectors": {"min": min(2, _sectors(site, fronts)) if random_side
                                         else _sectors(site, fronts), "center": list(site.base)}}],
        "raid_domain": [{"event": "spawn", "where": {**where, "type": raider}, "min": units[raider]},
                        {"event": "spawn", "where": {**where, "type": not_air if air else air_types}, "max": 0}]}
    if air:
        expects["air"] = expects["raid_domain"]
    if c.raid_size:
        # every raid is the counted group
        expects["raid_size"] = [{"event": "rule_log", "where": {"name": "group_spawned", "fields.count": c.raid_size},
                                 "min": 2}]
    if c.theft:
        # raids carry the amount asked off to the raiders: a transfer of nothing (the player had none) shows no theft
        expects["theft"] = [{"event": "resources_transferred", "where": {"from": site.player, "to": site.enemy,
                                                                          "metal": c.theft}, "min": 2}]
    if c.raid_target_type:
        expects["raid_target"] = [
            {"event": "rule_log", "where": {"name": "attack_ordered", "fields.wanted": c.raid_target_type,
                                            "fields.index": 1}, "min": 1},
            {"event": "rule_log", "where": {"name": "attack_ordered", "fields.target": c.raid_target_type}, "min": 1}]
    return comp, expects


def _probe_main(c: Concepts, site: Site) -> tuple[RuleComponent, dict[str, list[dict]]]:
    times = probe_times(c)
    factor = c.main_factor or DEFAULT_MAIN_FACTOR
    probe = _size(2, site.strength)
    main = min(200, math.ceil(probe * factor - 1e-9))   # at least factor x the probe, in whole units
    late = probe_jitter(c, site)

    def when(at: list[float]) -> dict:
        return {"on": "time", "at": at, **({"jitter": late} if late else {})}

    if len(set(c.directions[:2])) == 2 and len(site.fronts) > 1:
        # two named sides: the probe comes from the first, the main attack from the second
        recipe = {"steps": [{"when": when([t]),
                             "then": [{"do": "spawn", "team": site.enemy, "units": {"light_bot": n}, "at": front},
                                      _attack(site)]}
                            for t, n, front in zip(times, (probe, main), site.fronts)]}
    else:
        # one front, or sides the request leaves open: the probe and the main attack each come from a
        # drawn front, never the same one
        spawn = {"do": "spawn", "team": site.enemy, "units": {"light_bot": probe}, "at": site.fronts[0],
                 "growth": main / probe}
        if len(site.fronts) > 1 and not site.sides_named:
            spawn.update(at=list(site.fronts), pick="random_no_repeat")
        recipe = {"steps": [{"when": when(times), "then": [spawn, _attack(site)]}]}
    comp = _component("probe_main", f"a probe of {probe} at {times[0]:g} s, then a main attack of {main} ({factor:g} "
                      f"times as big) at {times[1]:g} s; logs group_spawned and attack_ordered", recipe, ["probe_main"])
    expects = [V.late_window(_spawns_at(times[0], site.enemy, min=probe, max=probe), late),
               V.late_window(_spawns_at(times[1], site.enemy, min=math.ceil(factor * probe - 1e-9)), late)]
    return comp, {"probe_main": expects}


def probe_times(c: Concepts) -> list[float]:
    """The probe's and the main attack's times: as stated; a probe timed alone is followed by the main attack
    as far after it as the untimed pair are apart."""
    if len(c.wave_times) >= 2:
        return sorted(c.wave_times)[:2]
    if c.wave_times:
        return [c.wave_times[0], c.wave_times[0] + PROBE_TIMES[1] - PROBE_TIMES[0]]
    return list(PROBE_TIMES)


def probe_jitter(c: Concepts, site: Site) -> float:
    """How late (s) the probe and the main attack may come."""
    stated = site.times_stated and len(c.wave_times) >= 2
    return V.schedule_jitter(probe_times(c), stated)


def _air_strike(comp: RuleComponent) -> RuleComponent:
    """The library air_raid as a recipe: at each time its aircraft appear at one place and attack the
    tagged units, and the strike is marked and announced as the library rule does."""
    p = comp.params
    place = p["from"]
    # a list of places (not one [x, y] point): the strike draws one of them (seeded); the mark and the
    # message then name no place (they cannot know the draw), the spawn's own mark shows it
    drawn = isinstance(place, list) and len(place) > 1 and not all(isinstance(v, (int, float)) for v in place)
    if isinstance(place, list) and len(place) == 1:
        place = place[0]
    where = ("one of " + ", ".join(str(v) for v in place)) if drawn else (
        place if isinstance(place, str) else f"{place[0]:g},{place[1]:g}")
    attack = {"do": "attack", "team": p["team"], "target_team": p.get("target_team", 0)}
    attack.update({k: p[k] for k in ("target_tag", "target_type") if p.get(k)})
    when = {"on": "time", "at": list(p["times"])}
    if p.get("jitter"):
        when["jitter"] = p["jitter"]
    spawn = {"do": "spawn", "team": p["team"], "units": {p["unit_type"]: p["count"]}, "at": place}
    if drawn:
        spawn["pick"] = "random"
        then = [spawn, attack, {"do": "message", "text": "Enemy aircraft inbound!"}]
    else:
        then = [spawn, attack, {"do": "mark", "text": "air raid", "at": place},
                {"do": "message", "text": f"Enemy aircraft inbound from the {where}!"}]
    recipe = {"steps": [{"when": when, "then": then}]}
    times = ", ".join(f"{t:g}" for t in p["times"])
    return _component(comp.id, f"an air assault: {p['count']} {p['unit_type']} from {where} at {times} s"
                      + (f" (up to {p['jitter']:g} s late)" if p.get("jitter") else "") + " attack the player's "
                      "objectives; logs group_spawned, attack_ordered" + ("" if drawn else ", mark_placed")
                      + " and message_sent", recipe, list(comp.requirement_ids))


# library rules whose whole behaviour a recipe states: the designer emits the recipe instead, so the
# developer composes (or reuses a composed rule of the same shape) and the KB learns the rule
AS_RECIPE = {"air_raid": _air_strike}


def as_recipes(comps: list[RuleComponent]) -> list[RuleComponent]:
    """`comps` with every library component a recipe expresses exactly replaced by that recipe."""
    return [AS_RECIPE[c.library_rule](c) if c.library_rule in AS_RECIPE else c for c in comps]


def safe_zone(c: Concepts, size: tuple[int, int], time_limit: float) -> tuple[RuleComponent, dict[str, list[dict]]]:
    """A safe zone round the map centre, shrinking every interval from the whole map (every start is
    inside at first) to a last fighting ring by ZONE_END_SHARE of the game; every unit outside loses hp
    at each shrink."""
    every = c.zone_interval or ZONE_EVERY
    w, h = size
    radius = round(math.hypot(w, h) / 2, 1)
    firings = max(2, int(time_limit * ZONE_END_SHARE // every))
    shrink = round(max(0.0, radius - ZONE_MIN_RADIUS) / (firings - 1), 2)
    steps = [{"when": {"on": "period", "every": every, "first_at": every, "count": firings},
              "then": [{"do": "zone", "at": [w / 2, h / 2], "radius": radius, "shrink": shrink,
                        "min_radius": ZONE_MIN_RADIUS, "damage": ZONE_DAMAGE}]}]
    comp = _component("safe_zone", f"a safe zone round the map centre shrinks every {every:g} s from the whole map (radius "
                      f"{radius:g}) to {ZONE_MIN_RADIUS:g}; every unit outside loses {ZONE_DAMAGE:g} hp at each "
                      "shrink; logs zone_shrunk", {"steps": steps}, ["safe_zone"])
    shrunk = {"event": "rule_log", "where": {"rule": "safe_zone", "name": "zone_shrunk"}}
    expects = {"safe_zone": [
        {**shrunk, "where": {**shrunk["where"], "fields.index": 1}, "values": {"field": "fields.radius", "min": radius,
                                                                               "max": radius}, "min": 1, "max": 1},
        {**shrunk, "where": {**shrunk["where"], "fields.index": 2},
         "values": {"field": "fields.radius", "min": radius - shrink - 0.01, "max": radius - shrink + 0.01},
         "min": 1, "max": 1},
        {"event": "rule_damage", "where": {"rule": "safe_zone"}, "min": 1}]}
    return comp, expects


def components(c: Concepts, site: Site) -> tuple[list[RuleComponent], dict[str, list[dict]]]:
    """Recipe components for the request's clauses of these families, and the expectations (by
    requirement id) that evidence them."""
    if not site.fronts:
        return [], {}
    comps: list[RuleComponent] = []
    expects: dict[str, list[dict]] = {}
    families = []
    if c.probe_then_main:
        families.append(_probe_main)
    elif c.archetype == "production" and c.wave_times:
        families.append(_enemy_attack)
    if c.wave_interval and (c.raids or c.raid_target_type):
        families.append(_raids)
    for family in families:
        comp, found = family(c, site)
        comps.append(comp)
        expects.update(found)
    return comps, expects
