"""Stage 2 checks on the game design document."""
from __future__ import annotations

import json
import math
import re

from engine.catalog import load_catalog
from engine.errors import EngineError
from engine.level import place_units
from engine.maps import load_map
from engine.schema.level import StartUnit, Team
from genesis.checks.context import CheckContext
from genesis.checks.api_claims import impossible_demands
from genesis.simulate import PROBE

# An objective component ends the game when its purpose says who wins or loses (it calls win()/lose()).
ENDS_GAME = re.compile(r"\b(win|wins|won|lose|loses|lost|victory|defeat)\b", re.I)


def schema(ctx: CheckContext) -> tuple[bool, str]:
    gdd = ctx.gdd
    if gdd is None:
        return False, "no GDD"
    problems = []
    try:
        m = load_map(gdd.map, None)
    except (EngineError, ValueError) as exc:
        problems.append(f"map: {exc}")
        m = None
    units = load_catalog().units
    spawns = {sp.name for sp in m.spawns} if m else set()
    for t in gdd.teams:
        for u in t.units:
            if u.type not in units:
                problems.append(f"team {t.id}: unknown unit type {u.type!r}")
            if (u.at is None) == (u.x is None or u.y is None):
                problems.append(f"team {t.id}: {u.type} needs either `at` or both x and y")
            elif m and u.at is not None and u.at not in spawns:
                problems.append(f"team {t.id}: {u.type} at unknown spawn {u.at!r} (the map has: {', '.join(sorted(spawns))})")
            elif m and u.at is None and not (0 <= u.x < m.width and 0 <= u.y < m.height):
                problems.append(f"team {t.id}: {u.type} at ({u.x:g}, {u.y:g}) is off the {m.width}x{m.height} map")
    if not any(t.role == "player" for t in gdd.teams):
        problems.append("no player team")
    allied = {a for t in gdd.teams for a in t.allies} | {t.id for t in gdd.teams if t.allies}
    for t in gdd.teams:
        if t.role == "neutral" and (t.id == 0 or t.controller.type == "agent" or t.id in allied):
            problems.append(f"team {t.id}: a neutral team is not team 0, has an ai or none controller and no allies")
    problems += reinforce_problems(gdd, units) + produce_problems(gdd)
    if m is not None and not problems:
        problems += placement_problems(gdd, m)
    return not problems, "; ".join(problems) or ("GDD is well formed; map and unit types exist; every start unit "
                                                 "can stand where it is placed, without overlap")


def reinforce_problems(gdd, units) -> list[str]:
    """Why the reference's `reinforce` would produce nothing: it orders only team 0's idle factories (start
    buildings that make the type), and only with production on; the policy itself fails silently."""
    kinds = gdd.strategy_params.get("reinforce")
    if not kinds:
        return []
    kinds = [kinds] if isinstance(kinds, str) else list(kinds) if isinstance(kinds, list) else [kinds]
    unknown = [k for k in kinds if not isinstance(k, str) or k not in units]
    if unknown:
        return [f"strategy_params.reinforce: unknown unit type(s) {unknown}"]
    if not gdd.production:
        return [f"strategy_params.reinforce {kinds} produces nothing with production false"]
    def makes(type_id: str) -> bool:     # a building (factories stand still) that produces one of the kinds
        return units[type_id].speed == 0 and any(k in units[type_id].builds for k in kinds)

    if any(u.type in units and makes(u.type) for t in gdd.teams if t.id == 0 for u in t.units):
        return []
    makers = sorted(key for key in units if makes(key))
    # a factory a rule spawns (its component's params name the type) serves as well as a start one
    if any(re.search(rf"\b{m}\b", json.dumps(c.params)) for c in gdd.rule_components for m in makers):
        return []
    return [f"strategy_params.reinforce {kinds}: team 0 starts with no factory that makes them and no rule component's "
            f"params name one, so the reference produces nothing (factories that do: {', '.join(makers) or 'none'}; a "
            "builder or commander is never ordered to build one under this strategy)"]


def produce_problems(gdd) -> list[str]:
    """Why the reference's `produce` would build nothing: it acts only on a target composition, with production on."""
    if gdd.reference_strategy != "produce":
        return []
    if not gdd.production:
        return ["reference_strategy produce builds nothing with production false"]
    if not gdd.strategy_params.get("target"):
        return ["reference_strategy produce has no strategy_params.target: it builds nothing (not even extractors) "
                "without a {unit type: count} composition to own"]
    return []


def start_placement(gdd, m):
    """Where the engine puts the GDD's start units (in team and group order), and what it rejects."""
    teams = [Team(id=t.id, name=t.name, units=[StartUnit(**u.model_dump(exclude_none=True)) for u in t.units])
             for t in gdd.teams]
    return place_units(teams, m, load_catalog())


def overlaps(placed):
    """The pairs (i, j, gap) of placed start units, i < j, that stand closer than half their sizes summed
    (the level check's overlap rule), in placement order."""
    catalog = load_catalog()
    for j, b in enumerate(placed):
        for i, a in enumerate(placed[:j]):
            gap = math.dist((a.x, a.y), (b.x, b.y))
            if gap < 0.5 * (catalog.units[a.type].size + catalog.units[b.type].size):
                yield i, j, gap


def placement_problems(gdd, m) -> list[str]:
    """The engine's own start-unit placement run on the GDD's teams, plus the level check's overlap rule."""
    placed, problems = start_placement(gdd, m)
    problems = [p.replace("teams.", "team index ", 1) for p in problems]
    for i, j, gap in overlaps(placed):
        a, b = placed[i], placed[j]
        problems.append(f"team {a.team} {a.type} at ({a.x:.1f}, {a.y:.1f}) and team {b.team} {b.type} at "
                        f"({b.x:.1f}, {b.y:.1f}) overlap ({gap:.2f} tiles apart)")
        if len(problems) >= 8:
            break
    return problems


UNTESTED = "testable requirements without evidence expectations"   # the offline PM reads the ids after it


def requirements_covered(ctx: CheckContext) -> tuple[bool, str]:
    if ctx.brief is None or ctx.gdd is None:
        return False, "brief or GDD missing"
    gdd_ids = {r.id for r in ctx.gdd.requirements}
    missing = [r.id for r in ctx.brief.requirements if r.id not in gdd_ids]
    untested = [r.id for r in ctx.gdd.requirements if r.testable and not r.expect]
    # a requirement the brief can check must not escape its check by being declared untestable
    brief_testable = {r.id for r in ctx.brief.requirements if r.testable}
    dropped = [r.id for r in ctx.gdd.requirements if not r.testable and r.id in brief_testable]
    probes = {p.name for p in ctx.gdd.variation.probes}
    unplayed = [f"{r.id} ({r.on})" for r in ctx.gdd.requirements
                if r.on.startswith(PROBE) and r.on[len(PROBE):] not in probes]
    clauses = {c.text.strip() for c in ctx.brief.clauses}
    stray = [ch.clause for ch in ctx.gdd.clause_changes if ch.clause.strip() not in clauses]
    testable = {r.id for r in ctx.gdd.requirements if r.testable}
    unshown = [ch.clause for ch in ctx.gdd.clause_changes if ch.status == "honoured"
               and (not ch.requirement_ids or not set(ch.requirement_ids) <= testable)]
    if missing or untested or dropped or unplayed or stray or unshown:
        return False, "; ".join(filter(None, [
            f"brief requirements missing from the GDD: {missing}" if missing else "",
            f"{UNTESTED}: {untested}" if untested else "",
            f"requirements the brief marks testable but the GDD marks untestable: {dropped}" if dropped else "",
            f"requirements on a probe that `variation.probes` does not name: {unplayed} (probes: "
            f"{', '.join(sorted(probes)) or 'none'})" if unplayed else "",
            f"clause_changes name no clause of the brief: {stray} (copy a clause's `text` verbatim)" if stray else "",
            f"clause_changes raised to honoured without testable requirements of this GDD that show them: {unshown} "
            "(give `requirement_ids`)" if unshown else ""]))
    return True, f"all {len(gdd_ids)} requirements mapped"


def win_loss_defined(ctx: CheckContext) -> tuple[bool, str]:
    gdd = ctx.gdd
    if gdd is None:
        return False, "no GDD"
    enders = [c for c in gdd.rule_components
              if c.kind == "termination" or (c.kind == "objective" and ENDS_GAME.search(c.purpose))] + gdd.conditions
    if not gdd.win_paths or not gdd.loss_paths or not enders:
        return False, (f"win paths {len(gdd.win_paths)}, loss paths {len(gdd.loss_paths)}, "
                       f"game-ending mechanisms {len(enders)} (conditions, termination components, objective "
                       f"components whose purpose says they call win()/lose()): each must be at least 1")
    return True, f"{len(gdd.win_paths)} win / {len(gdd.loss_paths)} loss paths, {len(enders)} game-ending mechanisms"


def rules_known_api(ctx: CheckContext) -> tuple[bool, str]:
    gdd = ctx.gdd
    if gdd is None:
        return False, "no GDD"
    unknown = [c.id for c in gdd.rule_components if c.library_rule and c.library_rule not in ctx.known_rules]
    vague = [c.id for c in gdd.rule_components if not c.library_rule and len(c.purpose) < 10]
    impossible = {c.id: impossible_demands(c.purpose) for c in gdd.rule_components if not c.library_rule}
    impossible = {cid: limits for cid, limits in impossible.items() if limits}
    if unknown or vague or impossible:
        return False, "; ".join(filter(None, [
            f"unknown library rules {unknown}" if unknown else "",
            f"components without a clear purpose {vague}" if vague else "",
            *[f"component {cid!r} needs what the rule API cannot do ({'; '.join(limits)}): redesign it with what "
              f"exists" for cid, limits in impossible.items()]]))
    return True, f"{len(gdd.rule_components)} rule components, each reusable or clearly specified"


_MECHANISM = re.compile(r"\s*([\w-]+)\s*(?:\.\s*([\w-]+))?\s*(?:[:=(]\s*(\w+))?")


def _mechanism_problem(gdd, how: str) -> str | None:
    """Why a variation's `how` names no seeded mechanism of the design, or None when it does. It starts
    with '<component id>.<param>', '<component id>: random', 'switches.spawn_jitter' or '<team>.choose_target'
    (anything after, such as '= 3' or ': drawn per raid', is the writer's note)."""
    m = _MECHANISM.match(how)
    head, param, note = (m.group(1), m.group(2), m.group(3)) if m else ("", None, None)
    components = {c.id: c for c in gdd.rule_components}
    teams = {str(t.id): t for t in gdd.teams} | {t.name: t for t in gdd.teams}
    if head == "switches" and param == "spawn_jitter":
        return None
    if head in components and (param is None and note and note.startswith("random")):
        return None
    if head in components and param:
        return None if param in components[head].params else f"{how!r}: component {head!r} passes no param {param!r}"
    if head in teams and param == "choose_target":
        return None if getattr(teams[head].controller, "choose_target", False) else \
            f"{how!r}: team {head}'s controller does not set choose_target"
    return (f"{how!r} names no seeded mechanism of this design (start it with '<component id>.<param>', "
            f"'<component id>: random', 'switches.spawn_jitter' or '<team id>.choose_target')")


def variation_declared(ctx: CheckContext) -> tuple[bool, str]:
    """The design says what the seed varies through mechanisms it has, or quotes the request's clause that
    fixes every event; the certificate then shows on the level whether the seed really matters."""
    gdd = ctx.gdd
    if gdd is None:
        return False, "no GDD"
    var = gdd.variation
    if var.fixed_by:
        query = ctx.brief.query if ctx.brief else ""
        if " ".join(var.fixed_by.lower().split()) not in " ".join(query.lower().split()):
            return False, f"variation.fixed_by {var.fixed_by!r} is not a clause of the request: quote it verbatim"
        return True, f"fixed drill: {var.fixed_by!r}"
    if not var.varies:
        return False, ("variation.varies is empty: declare what the seed varies (what the request leaves open: "
                       "sides, order, timings, positions, composition) and the mechanism that draws it, or quote in "
                       "variation.fixed_by the request's clause that fixes every event")
    problems = [p for v in var.varies if (p := _mechanism_problem(gdd, v.how))]
    if problems:
        return False, "; ".join(problems)
    return True, f"{len(var.varies)} seeded variation(s): " + "; ".join(f"{v.what} ({v.how})" for v in var.varies)


CHECKS = {"schema": schema, "requirements_covered": requirements_covered, "win_loss_defined": win_loss_defined,
          "rules_known_api": rules_known_api, "variation_declared": variation_declared}
