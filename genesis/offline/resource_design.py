"""The offline resource-goal family: stockpile a resource, or reach an income of it, before a deadline.

The player starts with builders and a little metal and energy: the goal is reached only by building an
economy (extractors on deposits, solar collectors, and storages when the goal is more than the start
can hold). A start that earns or holds the goal by itself would let an idle player win: then it has no
commander (which earns 2 metal and 25 energy a second and stores 500 and 1000), only constructor bots
and two solar collectors, which store less than the goal. Reaching the goal wins (`resource_goal`), the
deadline loses. The reference plays `produce` for the storages the goal needs (or none), building
extractors and solar on the way. The seed draws the start corner, so a build order memorised for one
corner builds nothing useful from another; raids on the economy come when the request asks for
harassment.
"""
from __future__ import annotations

import math

from engine.catalog import load_catalog
from engine.engagement import worth
from genesis.models import GDD, Brief, Concepts, RuleComponent, TeamPlan, UnitPlacement
from genesis.offline import geometry as G
from genesis.offline.composed_designs import AIR_RAIDER, raider_type
from genesis.offline import variation as V

PLAYER, ENEMY = 0, 1
GUARD_TYPE, AIR_GUARD_TYPE = "light_tank", "aa_vehicle"   # the player's guard against raids on the ground, by air
RAIDERS = 2                   # light bots' worth of raiders a party holds at enemy strength 1
EDGE_SPAWNS = ("north", "east", "south", "west")
RAID_INTERVAL = 75.0          # seconds between raids when the request names no interval
START_METAL = 400.0           # metal the builders start with (an extractor and a solar collector or two)
START_ENERGY = 1000.0         # energy they start with (two extractors)
EXPAND_RADIUS = {"small": 48.0, "large": 64.0}   # tiles from the start the reference builds extractors within
STORAGE = {"metal": "metal_storage", "energy": "energy_storage"}
BUILDERS = 2                  # constructor bots at the start without a commander ...
SOLARS = 2                    # ... and solar collectors
# the energy income the reference keeps up per metal income: solar collectors cost metal, so a metal goal
# keeps few; an energy goal builds them first
ENERGY_PER_METAL = {"metal": 4.0, "energy": 20.0}
START_SHARE = 0.3             # of a stockpile goal, the most of that resource the start holds


MAPS = {"small": "open_field", "large": "crossroads"}   # the larger one has more deposits, for high incomes


def map_size(c: Concepts) -> str:
    """Which of MAPS the goal needs: the large one when the reference builds more than six extractors."""
    deadline = float(c.deadline or c.time_limit or 300.0)
    return "large" if extractors_needed(c, start_units(c, deadline)[1]) > 6 else "small"


INCOME_MARGIN = 0.9           # of the most the deposits within reach give, the highest income built


def income_cap(c: Concepts) -> float | None:
    """The highest metal income the design can ask for: INCOME_MARGIN of what the commander and extractors
    on every deposit within the reference's reach of the poorest start corner earn (None: no cap applies,
    the goal is not a metal income)."""
    if not c.resource_income or (c.resource_kind or "metal") != "metal":
        return None
    cat = load_catalog().units
    m = G.load(map_for(c))
    sp = G.spawns(m)
    corners = [sp[n] for n in ("sw", "ne", "nw", "se") if n in sp] or [(m.width / 2, m.height / 2)]
    radius = EXPAND_RADIUS[map_size(c)]
    richness = min(sum(d.richness for d in m.deposits if math.dist((d.x + 0.5, d.y + 0.5), xy) <= radius)
                   for xy in corners)
    return math.floor(INCOME_MARGIN * (cat["commander"].metal_income + cat["metal_extractor"].metal_income * richness))


def map_for(c: Concepts) -> dict:
    """The map the goal is played on (the request's own, else one of MAPS)."""
    return {"name": c.map_hint or MAPS[map_size(c)]}


IDLE_SHARE = 0.8              # of the goal, the most an idle player may hold (or earn) by the deadline
# The reference's metal economy on the small map, measured: it spends about SPEND of its start on its first
# buildings and earns RATE a second from RAMP seconds on (1500 metal reached at 185-196 s of a 400-metal start)
RAMP, RATE, SPEND = 110.0, 16.0, 400.0
REACH_BY = 0.85               # of the deadline, when the reference should reach a stockpile of metal
RICHEST_START = 0.6           # of a stockpile of metal, the most the start may hold to make it reachable


def _commander_alone(c: Concepts, deadline: float) -> float:
    """What a commander left alone holds (or earns) of the goal's resource by the deadline, from nothing."""
    cmd = load_catalog().units["commander"]
    metal = (c.resource_kind or "metal") == "metal"
    income = cmd.metal_income if metal else cmd.energy_income
    if c.resource_income:
        return income
    return min(cmd.storage_metal if metal else cmd.storage_energy, income * deadline)


def start_units(c: Concepts, deadline: float) -> tuple[list[str], bool]:
    """The start's unit types, and whether it has a commander: only when the commander alone (its income
    and what it stores) stays short of the goal, so an idle player never wins."""
    if _commander_alone(c, deadline) < IDLE_SHARE * c.resource_amount:
        return ["commander", "constructor_bot"], True
    # solar collectors power the first buildings; they earn energy but store far less than any goal
    return ["constructor_bot"] * BUILDERS + ["solar_collector"] * SOLARS, False


def start_resources(c: Concepts, deadline: float, commander: bool, strength: float = 1.0) -> tuple[float, float]:
    """Metal and energy at the start: enough to lay the economy's first buildings, and for a stockpile of
    metal enough that the reference reaches it by REACH_BY of the deadline (more after a lost game, as the
    PM asks for a weaker enemy); never so much of the goal's resource that an idle player, who adds only
    what the commander earns up to its storage, holds IDLE_SHARE of the goal by the deadline."""
    metal, energy = START_METAL, START_ENERGY
    if c.resource_income:
        return metal, energy
    goal = c.resource_amount
    cmd = load_catalog().units["commander"]
    kind = c.resource_kind or "metal"
    cap = (cmd.storage_metal if kind == "metal" else cmd.storage_energy) if commander else 0.0
    earned = (cmd.metal_income if kind == "metal" else cmd.energy_income) * deadline if commander else 0.0
    # an idle player below the commander's storage adds what it earns up to it; above it, nothing
    idle_bound = IDLE_SHARE * goal if cap <= IDLE_SHARE * goal else IDLE_SHARE * goal - earned
    if kind == "energy":
        return metal, max(0.0, min(energy, round(START_SHARE * goal, -1), idle_bound))
    needed = goal / REACH_BY - RATE * max(0.0, REACH_BY * deadline - RAMP) + SPEND
    # builders without a commander earn nothing until their first extractors stand: the start pays for them
    # (two extractors started at once with too little metal each stall half-built, for good)
    first = 0.0 if commander else (BUILDERS + 1) * load_catalog().units["metal_extractor"].cost_metal
    wanted = max(min(metal, START_SHARE * goal), needed, first) / min(1.0, strength)
    return max(0.0, round(min(wanted, RICHEST_START * goal, idle_bound), -1)), energy


def reference_target(c: Concepts, commander: bool) -> dict[str, int]:
    """What the reference builds beyond its economy: the storages a stockpile needs beyond what the
    commander holds (without a commander, a metal stockpile is held by the extractors themselves, see
    `extractors_needed`); else one building it owns at the start, so it only builds the economy."""
    cat = load_catalog().units
    kind = c.resource_kind or "metal"
    if not c.resource_income and (commander or kind == "energy"):
        held = (cat["commander"].storage_metal if kind == "metal" else cat["commander"].storage_energy) \
            if commander else 0.0
        store = cat[STORAGE[kind]].storage_metal if kind == "metal" else cat[STORAGE[kind]].storage_energy
        if c.resource_amount > held:
            return {STORAGE[kind]: math.ceil((c.resource_amount - held) / store)}
    return {"commander": 1} if commander else {"constructor_bot": BUILDERS}


def extractors_needed(c: Concepts, commander: bool) -> int:
    """Extractors the reference builds: for a metal income, enough to earn it with a margin of one; for a
    metal stockpile without a commander (a small one), enough to store it with a margin of one."""
    cat = load_catalog().units["metal_extractor"]
    base = load_catalog().units["commander"].metal_income if commander else 0.0
    if c.resource_income and (c.resource_kind or "metal") == "metal":
        return max(2, math.ceil((c.resource_amount - base) / cat.metal_income) + 1)
    if not c.resource_income and not commander and (c.resource_kind or "metal") == "metal":
        return max(2, math.ceil(c.resource_amount / cat.storage_metal) + 1)
    return 6


def design(brief: Brief, c: Concepts, strength: float, requirements) -> GDD:
    """The resource-goal GDD; `requirements(expects)` attaches the evidence to the brief's requirements."""
    from genesis.offline.gdd_writer import _drawn_start_corner, _guard_against, _scaled, _spread

    deadline = float(c.deadline or c.time_limit)
    kind = c.resource_kind or "metal"
    types, commander = start_units(c, deadline)
    n_extractors = extractors_needed(c, commander)
    size = map_size(c)
    map_ref = map_for(c)
    m = G.load(map_ref)
    sp = G.spawns(m)
    home = sp.get("sw", sp.get(G.base_point(m)[0], (m.width / 2, m.height / 2)))
    measure = "income" if c.resource_income else "stockpile"
    goal = {"team": PLAYER, "resource": kind, "amount": c.resource_amount, "measure": measure,
            "deadline": deadline}
    if c.resource_keep:
        goal["keep_type"] = c.resource_keep
    comps = [RuleComponent(id="resource_goal", purpose=f"reaching the {measure} goal wins; the deadline loses",
                           kind="termination", library_rule="resource_goal",
                           requirement_ids=["resource_win", "resource_idle", "deadline", "resource_keep"],
                           params=goal)]
    start = [UnitPlacement(type=t) for t in types]
    varies: list = []
    knob = "resource_goal.deadline"
    raid_text = ""
    if c.raids:
        # the start corner is drawn per game: raids come from the edges' middles, away from every corner
        edges = [n for n in EDGE_SPAWNS if n in sp] or G.pick_fronts(m, (m.width / 2, m.height / 2), 4)
        interval = c.wave_interval or float(min(RAID_INTERVAL, round(deadline / 4)))
        # the raiders the request names ("raider bots harass your extractors"), as many as the usual party is
        # worth; a party the request counts is that many
        raider = raider_type(c)
        guard_type = AIR_GUARD_TYPE if raider == AIR_RAIDER else GUARD_TYPE
        party = c.raid_size or max(1, round(_scaled(RAIDERS, strength) / worth(raider)))
        target = c.raid_target_type or "metal_extractor"
        params = {"team": ENEMY, "interval": interval, "first_at": min(interval, 90.0), "sides": edges,
                  "size": party, "unit_type": raider, "target_type": target, "target_team": PLAYER,
                  "avoid_repeat": True, "chase": True,
                  "jitter": V.interval_jitter(interval, bool(c.wave_interval))}
        comps.append(RuleComponent(id="periodic_raids", purpose="enemy raids harass the economy", kind="spawn",
                                   library_rule="periodic_raids", requirement_ids=["raids", "raid_target", "raid_domain"],
                                   params=params))
        varies += [V.vary("which side each raid comes from, never the previous raid's", "periodic_raids.sides: random",
                          "where the raiders appear: the building nearest to them is the one they go for"),
                   V.vary(f"each raid's time, up to {params['jitter']:g} s after its slot on the {interval:g} s grid",
                          "periodic_raids.jitter", "the raiders as they come; a guard sent by the clock arrives late")]
        knob = "periodic_raids.size"
        guard = _guard_against({raider: party}, margin=2.0 / strength, unit_type=guard_type)
        start.append(UnitPlacement(type=guard_type, count=guard))
        raid_text = (f" Enemy raiders come for your {target.replace('_', ' ')}s about every {interval:g} seconds "
                     f"from changing sides; {guard} {guard_type.replace('_', ' ')}s guard your base.")
    placed = _spread(m, start, home, [])
    target = reference_target(c, commander)
    metal, energy = start_resources(c, deadline, commander, strength)
    # no home: the reference builds round its own start, wherever the seed puts it
    strategy = {"target": target, "extractors": n_extractors, "expand_radius": EXPAND_RADIUS[size],
                "energy_per_metal": ENERGY_PER_METAL[kind]}
    teams = [TeamPlan(id=PLAYER, name="Economy", role="player", controller={"type": "agent"}, metal=metal,
                      energy=energy, units=placed),
             TeamPlan(id=ENEMY, name="Raiders", role="enemy", controller={"type": "ai", "behaviour": "idle"})]
    # the seed draws the start corner, so a build order memorised for one corner (its coordinates) builds
    # nothing useful from another
    comps, corner = _drawn_start_corner(m, home, placed, comps)
    varies = corner + varies
    teams[0] = teams[0].model_copy(update={"units": []})
    expects = _expects(c, deadline, measure, attacked=c.raids)
    if c.raids:
        expects["raids"] = [{"event": "spawn", "where": {"source": "rule", "team": ENEMY}, "min": 1}]
        air = sorted(n for n, u in load_catalog().units.items() if u.category == "air")
        ground = sorted(n for n, u in load_catalog().units.items() if u.category != "air")
        expects["raid_domain"] = [{"event": "spawn", "where": {"source": "rule", "team": ENEMY, "type": raider},
                                   "min": 1},
                                  {"event": "spawn", "where": {"source": "rule", "team": ENEMY,
                                                               "type": ground if raider == AIR_RAIDER else air}, "max": 0}]
        expects["raid_target"] = [{"event": "rule_log", "where": {"rule": "periodic_raids", "name": "raid",
                                                                  "fields.target_type": params["target_type"]},
                                   "min": 1}]
    who = ("a commander and a constructor bot" if commander
           else f"{BUILDERS} constructor bots, {SOLARS} solar collectors")
    goal_text = (f"an income of {c.resource_amount:g} {kind} per second" if c.resource_income
                 else f"{c.resource_amount:g} {kind} in stock")
    desc = (f"Reach {goal_text} within {deadline / 60:g} minutes: you win as soon as you do, and lose at the deadline. "
            f"You start with {who}, {metal:g} metal and {energy:g} energy. Build metal extractors on "
            "deposits and solar collectors; what you hold is capped by your storage (extractors and solar collectors "
            "store a little, a metal or energy storage much more)."
            + (f" Losing a {c.resource_keep.replace('_', ' ')} loses the game." if c.resource_keep else "")
            + raid_text + " Your start corner changes from game to game.")
    variation = V.variation(varies, fixed_by=None, knob=knob)
    desc += V.told(variation)
    return GDD(title=brief.title, competency=brief.competency, summary=brief.summary, agent_description=desc,
               map=map_ref, teams=teams, rule_components=comps, fog_of_war=bool(c.fog), production=True,
               time_limit=deadline + 30, requirements=requirements(expects), win_paths=brief.win_conditions,
               loss_paths=brief.loss_conditions, reference_strategy="produce", strategy_params=strategy,
               variation=variation)


def _expects(c: Concepts, deadline: float, measure: str, attacked: bool) -> dict:
    """The evidence: the reference reaches the goal before the deadline (the rule logs it) and wins;
    an idle player never reaches it and loses at the deadline (under raids it may be wiped out first)."""
    kind = c.resource_kind or "metal"
    reached = {"event": "rule_log", "where": {"rule": "resource_goal", "name": "goal_reached", "fields.resource": kind,
                                              "fields.measure": measure}, "before": deadline, "min": 1, "max": 1}
    won = {"result": {"winners_include": PLAYER, "ended_by": "rule", "reason_contains": "reached",
                      "duration_max": deadline}}
    lost = {"losers_include": PLAYER, "duration_max": deadline + 2}
    if not attacked:
        lost.update(duration_min=deadline - 1, reason_contains="deadline passed")
    idle = [{"result": lost},
            {"event": "rule_log", "where": {"rule": "resource_goal", "name": "goal_reached"}, "max": 0}]
    out = {"resource_win": [won, reached], "resource_idle": idle, "deadline": [won, reached]}
    if c.resource_keep:
        out["resource_keep"] = [{"event": "rule_log", "where": {"rule": "resource_goal", "name": "resource_goal",
                                                                "fields.keep_type": c.resource_keep}, "min": 1,
                                 "max": 1}]
    return out
