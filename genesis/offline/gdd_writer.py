"""Stage 2 offline: a brief -> a game design document, composed from the rule library."""
from __future__ import annotations

import math

from engine.catalog import load_catalog
from genesis.models import GDD, Brief, Concepts, Requirement, RuleComponent, TeamPlan, UnitPlacement
from genesis.offline import geometry as G

PLAYER, ENEMY = 0, 1
OBJECTIVE_TAG = "objective"
COMPACT_RADIUS = 12.0   # tiles: how far from home objectives under raids / fog may stand
COMMANDER_RAIDS = 2     # "the enemy commander may raid you": it leads this many raids


def _map_for(c: Concepts) -> dict:
    if c.map_hint:
        return {"name": c.map_hint}
    if c.archetype == "ffa":
        return {"generate": {"width": 96, "height": 96, "seed": 7, "cliff_density": 0.06, "water_density": 0.03,
                             "deposits": 16, "symmetry": "rotational"}}
    if c.archetype == "siege":
        return {"name": "plateau_fortress"}
    if c.archetype == "production":
        return {"name": "open_field"}
    if c.archetype in ("defense", "raids", "capture") and (c.fronts or 2) <= 2 and not c.random_side:
        return {"name": "two_front_corridor"}
    return {"name": "crossroads"}


def _wave_units(c: Concepts, strength: float = 1.0) -> dict[str, int]:
    if "artillery" in c.unit_kinds and c.archetype != "siege":
        return {"artillery_bot": max(1, round(2 * strength)), "light_bot": max(1, round(2 * strength))}
    if "tank" in c.unit_kinds:
        return {"light_tank": max(1, round(3 * strength))}
    return {"light_bot": max(1, round(4 * strength)), "assault_bot": max(1, round(1 * strength))}


def _main_type(c: Concepts) -> str:
    if "tank" in c.unit_kinds:
        return "light_tank"
    if "raider" in c.unit_kinds:
        return "raider_bot"
    return "light_bot"


def _defense_army(c: Concepts) -> list[UnitPlacement]:
    if c.archetype == "raids":
        # raiders are fast: only a fast defence reaches the economy in time
        army = [UnitPlacement(type="light_tank", count=5), UnitPlacement(type="light_bot", count=6)]
    else:
        army = [UnitPlacement(type="assault_bot", count=6), UnitPlacement(type="light_bot", count=6)]
    if c.air:
        army.append(UnitPlacement(type="aa_vehicle", count=3))
    return army


GROUP_OFFSETS = [(0, 0), (0, 5), (0, -5), (5, 0), (-5, 0), (5, 5), (-5, -5), (5, -5), (-5, 5)]


def _spread(m, groups: list[UnitPlacement], center: tuple[float, float], taken: list,
            safe: bool = False) -> list[UnitPlacement]:
    """Gives each unit group its own spot near `center` so groups placed in rings never overlap."""
    out = []
    for k, g in enumerate(groups):
        dx, dy = GROUP_OFFSETS[k % len(GROUP_OFFSETS)]
        x, y = G.passable_near(m, center[0] + dx, center[1] + dy, taken, clearance=4.0, main_region_only=safe)
        taken.append((x, y))
        out.append(g.model_copy(update={"at": None, "x": round(x, 1), "y": round(y, 1)}))
    return out


def _expect_spawns(**extra) -> dict:
    return {"event": "spawn", "where": {"source": "rule", "team": ENEMY}, **extra}


def design(brief: Brief, guidance: list[str] | None = None) -> GDD:
    c = brief.concepts
    builder = {"defense": _defense, "raids": _defense, "capture": _defense, "production": _production,
               "ffa": _ffa, "teams": _teams, "siege": _siege}.get(c.archetype)
    if builder is None:
        raise ValueError(f"the offline designer has no design for archetype {c.archetype!r}: use a real model (--model)")
    return builder(brief, c, guidance or [])


def _requirements(brief: Brief, expects: dict[str, list[dict]]) -> list[Requirement]:
    out = []
    for r in brief.requirements:
        exp = expects.get(r.id, [])
        out.append(Requirement.model_validate({**r.model_dump(), "expect": exp, "testable": r.testable and bool(exp)}))
    return out


def _strength(guidance: list[str]) -> float:
    """Enemy strength factor: every PM call for a stronger (weaker) enemy adds 50 % (removes 25 %)."""
    up = sum("stronger" in g or "harder" in g for g in guidance)
    down = sum("weaker" in g or "easier" in g for g in guidance)
    return max(0.25, 1.0 + 0.5 * up - 0.25 * down)


def _trapped(guidance: list[str]) -> bool:
    """The PM reported units trapped at their spawn: place only where units can leave."""
    return any("trapped" in g for g in guidance)


def _defense(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    map_ref = _map_for(c)
    safe = _trapped(guidance)
    m = G.load(map_ref)
    base_name, base = G.base_point(m)
    bridge = G.bridgehead(m) if c.map_hint == "river_bridges" else None
    if bridge:
        # hold the near end of the main bridge; the enemy comes from across the river, straight
        # across first
        base = bridge[0]
        fronts = sorted(bridge[1], key=lambda n: (math.dist(G.spawns(m)[n], base), n))[: c.fronts or 1]
    else:
        fronts = G.pick_fronts(m, base, c.fronts or 2)
    sp = G.spawns(m)
    taken: list[tuple[float, float]] = []
    objectives = []
    n_obj = c.objectives or len(fronts)
    # raiders are fast, and under fog the defence sees attackers late: then the objectives sit
    # closer to home so a defence can reach them in time
    reach = 0.3 if c.archetype == "raids" or c.fog else 0.45
    for i in range(n_obj):
        front = sp[fronts[i % len(fronts)]]
        # at a bridge the objective is the bridgehead itself
        t = 0.0 if bridge else (reach if i < len(fronts) else 0.15)
        if reach < 0.45:
            t = min(t, COMPACT_RADIUS / max(1.0, math.dist(base, front)))
        x, y = G.passable_near(m, *G.lerp(base, front, t), taken, 3.0, safe)
        taken.append((x, y))
        objectives.append(UnitPlacement(type=c.objective_type or "metal_storage", x=round(x, 1), y=round(y, 1),
                                        tag=OBJECTIVE_TAG))
    # at a bridge the army starts in a camp behind the bridgehead and must move up to hold it
    camp = G.lerp(base, sp[fronts[0]], -0.3) if bridge else base
    # where the defence waits between attacks: a spot its units can reach (the base may be walled in)
    home = G.passable_near(m, *camp, [], 0.0, main_region_only=True) if safe else camp
    army = _spread(m, _defense_army(c), camp, taken, safe)
    if c.fog and not c.scouting:
        # early warning under fog: without it a defence sees raiders only once they hit an objective
        x, y = G.passable_near(m, base[0], base[1] - 3, taken, 3.0, safe)
        army.append(UnitPlacement(type="radar_tower", x=round(x, 1), y=round(y, 1)))
    strength = _strength(guidance)
    times = list(c.wave_times) or [round(45 + i * 60) for i in range(c.waves or len(fronts))]
    comps: list[RuleComponent] = []
    expects: dict[str, list[dict]] = {}
    wave_ids = []
    if c.escalating:
        comps.append(RuleComponent(
            id="escalating_waves", purpose="waves each larger than the last", kind="spawn",
            library_rule="escalating_waves", requirement_ids=["escalation", "fronts"],
            params={"team": ENEMY, "from": fronts, "first_at": times[0], "interval": 60,
                    "count": c.waves or 3, "base_size": max(2, round(3 * strength)), "growth": 2,
                    "unit_type": _main_type(c), "target_tag": OBJECTIVE_TAG}))
        expects["escalation"] = [_expect_spawns(increasing={"gap": 20})]
    elif c.scouting:
        comps.append(RuleComponent(
            id="unscouted_side_attack", purpose="the attack comes from a side the player did not scout",
            kind="spawn", library_rule="unscouted_side_attack", requirement_ids=["scouting", "fronts"],
            params={"team": ENEMY, "sides": fronts, "scout_team": PLAYER, "scout_radius": 8,
                    # scouting a side means going most of the way out to it
                    "scout_points": [[round(v, 1) for v in G.lerp(base, sp[f], 0.7)] for f in fronts],
                    "times": times, "units": _wave_units(c, strength), "target_tag": OBJECTIVE_TAG}))
        expects["scouting"] = [{"event": "rule_log", "where": {"name": "attack", "fields.unscouted": True},
                                "min": 1},
                               {"event": "rule_log", "where": {"name": "scout_zone"}, "min": len(fronts)}]
    elif c.random_side or c.wave_interval:
        interval = c.wave_interval or 60
        comps.append(RuleComponent(
            id="periodic_raids", purpose="raids from a random side at a fixed interval", kind="spawn",
            library_rule="periodic_raids", requirement_ids=["interval", "fronts"],
            params={"team": ENEMY, "interval": interval, "first_at": min(interval, 120.0), "sides": fronts,
                    "size": max(2, round(3 * strength)), "unit_type": _main_type(c),
                    # a random side that never repeats, so the side really changes within one game
                    "avoid_repeat": c.random_side,
                    "target_type": c.objective_type or "metal_storage", "target_team": PLAYER}))
        expects["interval"] = [_expect_spawns(time_clusters={"min": 2, "gap": interval * 0.6})]
    elif c.staggered or len(set(times)) > 1:
        ground_times = times[:-1] if c.air and len(times) > 1 else times
        comps.append(RuleComponent(
            id="staggered_waves", purpose="each front is attacked at its own time", kind="spawn",
            library_rule="staggered_waves", requirement_ids=["fronts", "staggered", "wave_times"],
            params={"team": ENEMY, "fronts": [fronts[i % len(fronts)] for i in range(len(ground_times))],
                    "times": ground_times, "units": _wave_units(c, strength), "target_tag": OBJECTIVE_TAG,
                    # each front attacks the objective on its side, not the objectives' centroid
                    "targets": [[objectives[i % len(fronts) % n_obj].x, objectives[i % len(fronts) % n_obj].y]
                                for i in range(len(ground_times))]}))
        wave_ids.append("staggered_waves")
    else:
        comps.append(RuleComponent(
            id="waves_from_directions", purpose="simultaneous waves from several directions", kind="spawn",
            library_rule="waves_from_directions", requirement_ids=["fronts", "wave_times"],
            params={"team": ENEMY, "directions": fronts, "times": times[:1] or [60],
                    "units": _wave_units(c, 0.8 * strength), "target_tag": OBJECTIVE_TAG}))
    if c.air:
        comps.append(RuleComponent(
            id="air_raid", purpose="an air assault", kind="spawn", library_rule="air_raid",
            requirement_ids=["air"],
            params={"team": ENEMY, "times": [times[-1] if len(times) > 1 else 120], "from": fronts[-1],
                    "unit_type": "bomber", "count": max(1, round(3 * strength)), "target_tag": OBJECTIVE_TAG}))
        expects["air"] = [{"event": "spawn", "where": {"source": "rule", "team": ENEMY, "type": "bomber"}, "min": 1}]
    comps.append(RuleComponent(
        id="protect_objective_loss", purpose="losing any objective loses", kind="termination",
        library_rule="protect_objective_loss", requirement_ids=["objective_loss"],
        params={"team": PLAYER, "tag": OBJECTIVE_TAG, "mode": "any"}))
    comps.append(RuleComponent(
        id="survive_timer_win", purpose="surviving until the time limit wins", kind="termination",
        library_rule="survive_timer_win", requirement_ids=["survive_win"],
        params={"team": PLAYER, "time": c.time_limit}))
    # the scouting rule draws among unscouted sides, so one side may serve every attack
    n_dirs = 1 if c.scouting else min(len(fronts), len(times)) if not c.escalating else len(fronts)
    min_sectors = 2 if c.random_side and not c.scouting else max(1, n_dirs)
    expects["fronts"] = [_expect_spawns(distinct_sectors={"min": min_sectors, "center": list(base)})]
    if c.staggered or len(set(times)) > 1:
        expects["staggered"] = [_expect_spawns(time_clusters={"min": 2, "gap": 20})]
    if c.wave_times:
        expects["wave_times"] = [_expect_spawns(after=t - 1, before=t + 5, min=1) for t in c.wave_times]
    expects["objective_loss"] = [{"result": {"losers_include": PLAYER}}]
    expects["survive_win"] = [{"result": {"winners_include": PLAYER}}]
    teams = [
        TeamPlan(id=PLAYER, name="Defenders", role="player", controller={"type": "agent"}, units=objectives + army,
                 metal=0, energy=0),
        TeamPlan(id=ENEMY, name="Attackers", role="enemy", controller={"type": "ai", "behaviour": "idle"}),
    ]
    n = len(objectives)
    obj = (c.objective_type or "metal_storage").replace("_", " ")
    desc = ((f"Survive for {c.time_limit / 60:g} minutes without losing any of your {n} {obj}s. If even one is "
             "destroyed, you lose. " if n > 1 else
             f"Survive for {c.time_limit / 60:g} minutes without losing your {obj}. If it is destroyed, you lose. ")
            + ("It stands at the bridgehead and your army starts in a camp behind it. " if bridge else "")
            + (f"Enemies attack from {len(fronts)} directions" if len(fronts) > 1 else "Enemies attack")
            + (" at different times" if any(r.id == "staggered_waves" for r in comps) else "")
            + (", each wave larger than the last" if c.escalating else "")
            + (", and from the air" if c.air else "")
            + (", every time from a side you have not scouted: scout the approaches (marked on the map) to learn "
               "where they will come from" if c.scouting else "")
            + (f", raiding every {c.wave_interval / 60:g} minutes" if c.wave_interval else "")
            + (" from a random side" if c.random_side and not c.scouting else "")
            + ". Move your army to meet each attack."
            + (" A radar tower at home shows enemies approaching through the fog." if c.fog and not c.scouting else ""))
    return GDD(
        title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
        map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=bool(c.production),
        time_limit=c.time_limit + 30, requirements=_requirements(brief, expects),
        win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="defend",
        strategy_params={"protect_tag": OBJECTIVE_TAG, "home": list(home)},
    )


def _power(units: dict[str, int]) -> float:
    """Lanchester fighting strength of a group: total hp times total damage per second."""
    cat = load_catalog().units
    hp = sum(n * cat[t].hp for t, n in units.items())
    dps = sum(n * cat[t].weapon.damage / cat[t].weapon.reload for t, n in units.items() if cat[t].weapon)
    return hp * dps


def _guard_against(raid: dict[str, int], margin: float, unit_type: str = "assault_bot") -> int:
    """How many `unit_type` beat `raid` with `margin` times its fighting strength."""
    n = 1
    while _power({unit_type: n}) < margin * _power(raid):
        n += 1
    return n


RAID_INTERVAL = 150.0   # production games: seconds between raids when the request names no interval


def _production(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    map_ref = _map_for(c)
    m = G.load(map_ref)
    sp = G.spawns(m)
    home_name = "sw" if "sw" in sp else G.base_point(m)[0]
    home = sp.get(home_name, (m.width / 2, m.height / 2))
    raid_from = G.pick_fronts(m, home, 2)
    strength = _strength(guidance)
    comps = [RuleComponent(
        id="production_goal", purpose="own the target composition before the deadline", kind="termination",
        library_rule="production_goal", requirement_ids=["production_win", "deadline_loss"],
        params={"team": PLAYER, "units": c.target_composition, "deadline": c.time_limit})]
    expects = {"production_win": [{"result": {"winners_include": PLAYER}}],
               "deadline_loss": [{"result": {"losers_include": PLAYER}}]}
    start = [UnitPlacement(type="commander", tag="home"), UnitPlacement(type="constructor_bot")]
    raid_text = ""
    if c.raids:
        by_commander = "commander" in c.unit_kinds
        raider = "commander" if by_commander else ("raider_bot" if "raider" in c.unit_kinds else "light_bot")
        size = 1 if by_commander else max(2, round(2 * strength))
        interval = c.wave_interval or RAID_INTERVAL
        params = {"team": ENEMY, "interval": interval, "first_at": min(interval, 120.0), "sides": raid_from,
                  "size": size, "unit_type": raider, "target_type": "metal_extractor", "target_team": PLAYER,
                  "avoid_repeat": True}
        if c.random_timing:
            params["jitter"] = round(0.8 * interval)   # "at any time": each raid comes up to this much late
        if by_commander:
            params["raids"] = COMMANDER_RAIDS
        comps.append(RuleComponent(
            id="periodic_raids", purpose="enemy raids harass the economy", kind="spawn", library_rule="periodic_raids",
            requirement_ids=["raids"], params=params))
        expects["raids"] = [_expect_spawns(min=1)]
        if by_commander:
            expects["raider"] = [{"event": "spawn", "where": {"source": "rule", "team": ENEMY, "type": "commander"},
                                  "min": 1}]
        # a guard that beats one raid party with a margin, so raids cost time but can be held
        guard = _guard_against({raider: size}, margin=2.0 / strength)
        start.append(UnitPlacement(type="assault_bot", count=guard))
        raid_text = (f" {'The enemy commander' if by_commander else 'Enemy raiders'} will raid your extractors"
                     + (" at unpredictable times" if c.random_timing else f" every {interval / 60:g} minutes")
                     + f"; {guard} assault bots guard your base.")
    teams = [
        TeamPlan(id=PLAYER, name="Builder", role="player", controller={"type": "agent"}, metal=600, energy=1500,
                 units=_spread(m, start, home, [])),
        TeamPlan(id=ENEMY, name="Raiders", role="enemy", controller={"type": "ai", "behaviour": "idle"}),
    ]
    comp = ", ".join(f"{n} {t.replace('_', ' ')}" for t, n in c.target_composition.items())
    desc = (f"Produce {comp} within {c.time_limit / 60:g} minutes, the sooner the better. Build metal extractors on "
            "deposits and solar collectors, then the right factory." + raid_text)
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=True,
               time_limit=c.time_limit + 30, requirements=_requirements(brief, expects),
               win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="produce",
               strategy_params={"target": c.target_composition, "home": list(home)})


def _mixed_army() -> list[UnitPlacement]:
    return [UnitPlacement(type="light_bot", count=4), UnitPlacement(type="assault_bot", count=3),
            UnitPlacement(type="light_tank", count=2)]


def _ffa(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    map_ref = _map_for(c)
    m = G.load(map_ref)
    sp = G.spawns(m)
    taken: list = []
    corners = ["nw", "ne", "se", "sw"][: c.teams]
    teams = []
    for i, corner in enumerate(corners):
        # each AI side hunts the next side round the table (the last one hunts the player), so every
        # side is under pressure and sitting still is no safe way to rank first
        ctrl = {"type": "agent"} if i == PLAYER else {"type": "ai", "behaviour": "waves", "min_group": 1,
                                                       "target": {"team": (i + 1) % c.teams},
                                                       "first_at": 15 + 5 * i, "interval": 10}
        teams.append(TeamPlan(id=i, name=f"Team {corner.upper()}", role="player" if i == 0 else "enemy",
                              controller=ctrl, units=_spread(m, _mixed_army(), sp[corner], taken)))
    comps: list[RuleComponent] = []
    ranking = [{"kind": "rank_by_score", "metric": c.ranking or "damage_efficiency", "time": c.time_limit}]
    expects = {"teams": [{"event": "spawn", "where": {"source": "start"}, "distinct_sectors": {"min": c.teams, "center": "map_center"}}],
               "ranking": [{"result": {"ended_by": "condition", "duration_min": c.time_limit - 1}}]}
    desc = (f"Free-for-all between {c.teams} teams with equal forces. After {c.time_limit / 60:g} minutes teams are "
            f"ranked by {(c.ranking or 'damage efficiency').replace('_', ' ')}; rank first to win.")
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=False,
               time_limit=c.time_limit + 30, requirements=_requirements(brief, expects), conditions=ranking,
               win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="fight",
               strategy_params={"engage_at": c.time_limit * 0.5, "target": [m.width / 2, m.height / 2]})


def _nearest_enemy_team(i: int, teams: list[tuple[int, list[int], tuple[float, float]]]) -> int:
    """The enemy team whose start is closest to team i's start: whom its AI attacks first."""
    _, allies, home = teams[i]
    foes = [(math.dist(home, pos), t) for t, al, pos in teams if t != i and t not in allies]
    return min(foes)[1]


def _teams(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    map_ref = {"name": c.map_hint or "crossroads"}
    m = G.load(map_ref)
    sp = G.spawns(m)
    west = [s for s in ("nw", "sw", "west") if s in sp]
    east = [s for s in ("ne", "se", "east") if s in sp]
    size = c.team_size     # the brief keeps it within what the map's corners and sides hold
    layout = []
    for i in range(size * 2):
        side = west if i < size else east
        ally_ids = list(range(size)) if i < size else list(range(size, 2 * size))
        layout.append((i, [a for a in ally_ids if a != i], sp[side[(i % size) % len(side)]]))
    taken: list = []
    teams = []
    for i, allies, home in layout:
        # AI sides attack the nearest enemy team and, once it is gone, whatever enemy is nearest
        ctrl = {"type": "agent"} if i == PLAYER else {"type": "ai", "behaviour": "waves", "min_group": 1,
                                                       "target": {"team": _nearest_enemy_team(i, layout)},
                                                       "first_at": 10, "interval": 10}
        teams.append(TeamPlan(id=i, name=f"{'Blue' if i < size else 'Red'} {i % size + 1}",
                              role="player" if i == 0 else ("ally" if i < size else "enemy"), controller=ctrl,
                              allies=allies, units=_spread(m, _mixed_army(), home, taken)))
    metric = c.ranking or "damage_efficiency"
    # the battle ends when one alliance has no mobile units left; if both still stand at the time
    # limit, the side of the best-ranked team wins, so every game has a decision
    conditions = [{"kind": "last_survivor", "mobile_only": True}, {"kind": "rank_by_score", "metric": metric}]
    expects = {"alliances": [{"event": "spawn", "where": {"source": "start"}, "distinct_sectors": {"min": 2, "center": "map_center"}}],
               "no_production": [{"event": "spawn", "where": {"source": "production"}, "max": 0}],
               "decisive": [{"result": {"ended_by": "condition"}}]}
    desc = (f"A {size}v{size} battle with fixed forces and no production. Your ally is controlled by the AI and "
            f"will not communicate. The last alliance with mobile units standing wins; if both still stand after "
            f"{c.time_limit / 60:g} minutes, the alliance of the team with the best {metric.replace('_', ' ')}"
            + (" (damage dealt / damage received)" if metric == "damage_efficiency" else "") + " wins.")
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=[], fog_of_war=bool(c.fog), production=False,
               time_limit=c.time_limit, requirements=_requirements(brief, expects), conditions=conditions,
               win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="fight",
               strategy_params={"engage_at": 0, "with_allies": True, "home": list(layout[PLAYER][2])})


def _siege(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    map_ref = _map_for(c)
    m = G.load(map_ref)
    sp = G.spawns(m)
    fort_name, fort = G.base_point(m)
    start = G.pick_fronts(m, fort, 1)[0]
    artillery = "artillery" in c.unit_kinds
    army = ([UnitPlacement(type="artillery_bot", count=8)] if artillery else
            [UnitPlacement(type="assault_bot", count=8), UnitPlacement(type="artillery_bot", count=4),
             UnitPlacement(type="light_tank", count=4)])
    army = _spread(m, army, sp[start], [])
    target = c.objective_type if c.objective_type in ("metal_storage", "energy_storage", "commander") else "metal_storage"
    teams = [
        TeamPlan(id=PLAYER, name="Besiegers", role="player", controller={"type": "agent"}, units=army,
                 metal=300 if c.production else 0, energy=600 if c.production else 0),
        TeamPlan(id=ENEMY, name="Garrison", role="enemy", controller={"type": "ai", "behaviour": "hold"},
                 units=[UnitPlacement(type=target, x=fort[0], y=fort[1], tag="target")]),
    ]
    comps = [
        RuleComponent(id="static_fortification", purpose="a turret ring around the target", kind="setup",
                      library_rule="static_fortification", requirement_ids=["fortification"],
                      params={"team": ENEMY, "center": [fort[0], fort[1]], "radius": 7,
                              "turrets": max(2, round(6 * _strength(guidance))),
                              "turret_type": "light_turret", "walls": 0}),
    ]
    expects = {"fortification": [{"event": "spawn", "where": {"source": "rule", "team": ENEMY}, "min": 3}],
               "destroy_win": [{"result": {"winners_include": PLAYER}}],
               "deadline_loss": [{"result": {"losers_include": PLAYER}}]}
    if artillery:
        expects["artillery_only"] = [{"event": "spawn", "where": {"team": PLAYER, "source": "start", "type": "artillery_bot"}, "min": 1}]
    desc = (f"Destroy the enemy {target.replace('_', ' ')} inside its fortified base within {c.time_limit / 60:g} "
            "minutes." + (" Fog of war is on: scout before you commit." if c.fog else "")
            + (" Your army is artillery only: outrange the turrets." if artillery else ""))
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=bool(c.production),
               time_limit=c.time_limit + 30, requirements=_requirements(brief, expects),
               conditions=[{"kind": "destroy_target", "team": PLAYER, "target": {"tag": "target", "team": ENEMY},
                            "deadline": c.time_limit}],
               win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="attack",
               strategy_params={"target_tag": "target", "target": list(fort)})
