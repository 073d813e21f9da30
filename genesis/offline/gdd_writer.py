"""Stage 2 offline: a brief -> a game design document, composed from the rule library."""
from __future__ import annotations

from genesis.models import GDD, Brief, Concepts, Requirement, RuleComponent, TeamPlan, UnitPlacement
from genesis.offline import geometry as G

PLAYER, ENEMY = 0, 1
OBJECTIVE_TAG = "objective"


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
               "ffa": _ffa, "teams": _teams, "siege": _siege}[c.archetype]
    return builder(brief, c, guidance or [])


def _requirements(brief: Brief, expects: dict[str, list[dict]]) -> list[Requirement]:
    out = []
    for r in brief.requirements:
        exp = expects.get(r.id, [])
        out.append(r.model_copy(update={"expect": exp, "testable": r.testable and bool(exp)}))
    return out


def _trapped(guidance: list[str]) -> bool:
    """The PM reported units trapped at their spawn: place only where units can leave."""
    return any("trapped" in g for g in guidance)


def _defense(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    map_ref = _map_for(c)
    safe = _trapped(guidance)
    m = G.load(map_ref)
    base_name, base = G.base_point(m)
    fronts = G.pick_fronts(m, base, c.fronts or 2)
    sp = G.spawns(m)
    taken: list[tuple[float, float]] = []
    objectives = []
    n_obj = c.objectives or len(fronts)
    for i in range(n_obj):
        front = sp[fronts[i % len(fronts)]]
        x, y = G.passable_near(m, *G.lerp(base, front, 0.45 if i < len(fronts) else 0.15), taken, 3.0, safe)
        taken.append((x, y))
        objectives.append(UnitPlacement(type=c.objective_type or "metal_storage", x=round(x, 1), y=round(y, 1),
                                        tag=OBJECTIVE_TAG))
    army = _spread(m, _defense_army(c), base, taken, safe)
    strength = 1.0 + 0.5 * sum("stronger" in g or "harder" in g for g in guidance) \
        - 0.25 * sum("weaker" in g or "easier" in g for g in guidance)
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
    elif c.random_side or c.wave_interval:
        comps.append(RuleComponent(
            id="periodic_raids", purpose="raids from a random side at a fixed interval", kind="spawn",
            library_rule="periodic_raids", requirement_ids=["interval", "fronts"],
            params={"team": ENEMY, "interval": c.wave_interval or 60, "first_at": 30, "sides": fronts,
                    "size": max(2, round(5 * strength)), "unit_type": _main_type(c),
                    "target_type": c.objective_type or "metal_storage", "target_team": PLAYER}))
        expects["interval"] = [_expect_spawns(time_clusters={"min": 2, "gap": (c.wave_interval or 60) * 0.6})]
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
                    "unit_type": "bomber", "count": 3, "target_tag": OBJECTIVE_TAG}))
        expects["air"] = [{"event": "spawn", "where": {"source": "rule", "team": ENEMY, "type": "bomber"}, "min": 1}]
    comps.append(RuleComponent(
        id="protect_objective_loss", purpose="losing any objective loses", kind="termination",
        library_rule="protect_objective_loss", requirement_ids=["objective_loss"],
        params={"team": PLAYER, "tag": OBJECTIVE_TAG, "mode": "any"}))
    comps.append(RuleComponent(
        id="survive_timer_win", purpose="surviving until the time limit wins", kind="termination",
        library_rule="survive_timer_win", requirement_ids=["survive_win"],
        params={"team": PLAYER, "time": c.time_limit}))
    n_dirs = min(len(fronts), len(times)) if not c.escalating else len(fronts)
    expects["fronts"] = [_expect_spawns(distinct_sectors={"min": max(1, n_dirs) if not c.random_side else 2,
                                                          "center": list(base)})]
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
    desc = (f"Survive for {c.time_limit / 60:g} minutes without losing any of your {n} {obj}s. If even one is "
            f"destroyed, you lose. Enemies attack from {len(fronts)} directions"
            + (" at different times" if c.staggered or len(set(times)) > 1 else "")
            + (", each wave larger than the last" if c.escalating else "")
            + (", and from the air" if c.air else "") + ". Move your army to meet each attack.")
    return GDD(
        title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
        map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=bool(c.production),
        time_limit=c.time_limit + 30, requirements=_requirements(brief, expects),
        win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="defend",
        strategy_params={"protect_tag": OBJECTIVE_TAG, "home": list(base)},
    )


def _production(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    map_ref = _map_for(c)
    m = G.load(map_ref)
    sp = G.spawns(m)
    home_name = "sw" if "sw" in sp else G.base_point(m)[0]
    raid_from = G.pick_fronts(m, sp.get(home_name, (m.width / 2, m.height / 2)), 2)
    comps = [RuleComponent(
        id="production_goal", purpose="own the target composition before the deadline", kind="termination",
        library_rule="production_goal", requirement_ids=["production_win", "deadline_loss"],
        params={"team": PLAYER, "units": c.target_composition, "deadline": c.time_limit})]
    expects = {"production_win": [{"result": {"winners_include": PLAYER}}],
               "deadline_loss": [{"result": {"losers_include": PLAYER}}]}
    if c.raids:
        comps.append(RuleComponent(
            id="periodic_raids", purpose="enemy raids harass the base", kind="spawn", library_rule="periodic_raids",
            requirement_ids=["raids"],
            params={"team": ENEMY, "interval": 150, "first_at": 120, "sides": raid_from, "size": 2,
                    "unit_type": "light_bot", "target_type": "commander", "target_team": PLAYER}))
        expects["raids"] = [_expect_spawns(min=1)]
    teams = [
        TeamPlan(id=PLAYER, name="Builder", role="player", controller={"type": "agent"}, metal=600, energy=1500,
                 units=_spread(m, [UnitPlacement(type="commander", tag="home"),
                                   UnitPlacement(type="constructor_bot")], sp.get(home_name, (m.width / 2, m.height / 2)), [])),
        TeamPlan(id=ENEMY, name="Raiders", role="enemy", controller={"type": "ai", "behaviour": "idle"}),
    ]
    comp = ", ".join(f"{n} {t.replace('_', ' ')}" for t, n in c.target_composition.items())
    desc = (f"Produce {comp} within {c.time_limit / 60:g} minutes. Build metal extractors on deposits and solar "
            "collectors, then the right factory." + (" Enemy raiders will harass your base." if c.raids else ""))
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=True,
               time_limit=c.time_limit + 30, requirements=_requirements(brief, expects),
               win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="produce",
               strategy_params={"target": c.target_composition})


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
        ctrl = {"type": "agent"} if i == PLAYER else {"type": "ai", "behaviour": "waves", "target": {"x": m.width / 2, "y": m.height / 2},
                                                       "first_at": 20 + 15 * i, "interval": 40}
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


def _teams(brief: Brief, c: Concepts, guidance: list[str]) -> GDD:
    map_ref = {"name": c.map_hint or "crossroads"}
    m = G.load(map_ref)
    sp = G.spawns(m)
    west = [s for s in ("nw", "sw", "west") if s in sp]
    east = [s for s in ("ne", "se", "east") if s in sp]
    size = max(2, min(c.team_size, 2))
    taken: list = []
    teams = []
    for i in range(size * 2):
        side = west if i < size else east
        ally_ids = list(range(size)) if i < size else list(range(size, 2 * size))
        at = side[(i % size) % len(side)]
        enemy_side = east if i < size else west
        ex, ey = sp[enemy_side[0]]
        ctrl = {"type": "agent"} if i == PLAYER else {"type": "ai", "behaviour": "waves", "target": {"x": ex, "y": ey},
                                                       "first_at": 10, "interval": 30}
        teams.append(TeamPlan(id=i, name=f"{'Blue' if i < size else 'Red'} {i % size + 1}",
                              role="player" if i == 0 else ("ally" if i < size else "enemy"), controller=ctrl,
                              allies=[a for a in ally_ids if a != i],
                              units=_spread(m, _mixed_army(), sp[at], taken)))
    comps = [RuleComponent(id="last_survivor", purpose="the last alliance with units wins", kind="termination",
                           library_rule="last_survivor", requirement_ids=["alliances"], params={})]
    expects = {"alliances": [{"event": "spawn", "where": {"source": "start"}, "distinct_sectors": {"min": 2, "center": "map_center"}}],
               "no_production": [{"event": "spawn", "where": {"source": "production"}, "max": 0}]}
    desc = (f"A {size}v{size} battle with fixed forces and no production. Your ally is controlled by the AI and "
            "will not communicate. The last alliance with units standing wins.")
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=False,
               time_limit=c.time_limit, requirements=_requirements(brief, expects),
               win_paths=brief.win_conditions, loss_paths=brief.loss_conditions, reference_strategy="fight",
               strategy_params={"engage_at": 5, "target": list(sp[east[0]])})


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
                      params={"team": ENEMY, "center": [fort[0], fort[1]], "radius": 7, "turrets": 6,
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
