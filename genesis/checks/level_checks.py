"""Stage 4 checks on the assembled level and its full simulations."""
from __future__ import annotations

import math
from statistics import mean

from engine import Simulation, load_level
from engine.errors import EngineError
import numpy as np

from engine.maps import ground_passable, label_regions, reachable_mask, terrain_array
from engine.snapshot import CATEGORIES
from genesis.checks.context import CheckContext
from genesis.checks.messages import EVIDENCE_CHARS, evidence_detail
from genesis.simulate import SimRun, end_text

MOBILE_GROUND = {CATEGORIES.index(c) for c in ("commander", "bot", "vehicle")}
MIN_REGION_SHARE = 0.5   # a unit "gets away" when its ground region is at least half the map's largest one


def _load(ctx: CheckContext):
    if ctx.level_path is None:
        raise EngineError("no level written")
    return load_level(ctx.level_path)


def schema(ctx: CheckContext) -> tuple[bool, str]:
    try:
        _load(ctx)
    except EngineError as exc:
        return False, str(exc)
    # one rule per GDD component: a component left out of the level silently drops its mechanic
    have = {r.get("id") for r in (ctx.level or {}).get("rules") or [] if isinstance(r, dict)}
    left_out = [c.id for c in ctx.gdd.rule_components if c.id not in have] if ctx.gdd is not None else []
    if left_out:
        return False, (f"the level leaves out the GDD's rule component(s) {', '.join(left_out)}: give each a rule "
                       "{id, script \"rules/<id>.lua\", params}")
    return True, "level validates against the engine schema and loads"


def _initial(ctx: CheckContext):
    level = _load(ctx)
    return level, Simulation(level, seed=0, policies={}).snapshot()


def _who(sim: Simulation, uid: int, by_rule: set[int]) -> str:
    """"unit 21 (light_bot of team 1, spawned by a rule)": which unit, so the stage that placed it knows."""
    return (f"unit {uid} ({sim.world.type_name(uid)} of team {int(sim.world.team[uid])}"
            + (", spawned by a rule)" if uid in by_rule else ")"))


def placement(ctx: CheckContext) -> tuple[bool, str]:
    level = _load(ctx)
    sim = Simulation(level, seed=0, policies={})
    snap = sim.snapshot()
    by_rule = {int(e["id"]) for e in sim.trace.events if e.get("event") == "spawn" and e.get("source") == "rule"}
    problems = []
    for i in range(len(snap.ids)):
        for j in range(i + 1, len(snap.ids)):
            gap = math.dist((snap.x[i], snap.y[i]), (snap.x[j], snap.y[j]))
            if gap < 0.5 * (snap.size[i] + snap.size[j]):
                problems.append(f"{_who(sim, int(snap.ids[i]), by_rule)} and {_who(sim, int(snap.ids[j]), by_rule)} "
                                f"overlap ({gap:.2f} tiles apart)")
                if len(problems) >= 5:
                    break
    on_map = all(0 <= x < snap.width and 0 <= y < snap.height for x, y in zip(snap.x, snap.y))
    if not on_map:
        problems.append("a unit is off the map")
    return not problems, "; ".join(problems) or f"{len(snap.ids)} units on the map, on passable tiles, no overlap"


def pathability(ctx: CheckContext) -> tuple[bool, str]:
    level, snap = _initial(ctx)
    passable = ground_passable(terrain_array(level.map))
    labels, n = label_regions(passable)
    largest = int(np.bincount(labels.ravel())[1:].max()) if n else 0
    trapped = []
    for uid, x, y, cat in zip(snap.ids, snap.x, snap.y, snap.category):
        if int(cat) in MOBILE_GROUND:
            room = int(reachable_mask(passable, float(x), float(y)).sum())
            if room < float(ctx.params.get("min_region_share", MIN_REGION_SHARE)) * largest:
                trapped.append(f"unit {uid} at ({x:.0f}, {y:.0f}) can reach only {room} of {largest} tiles")
    return not trapped, "; ".join(trapped[:5]) or "every mobile unit has a path away from its spawn"


def _runs(ctx: CheckContext, policy: str) -> list[SimRun]:
    return [r for r in ctx.runs if r.policy == policy]


def terminates(ctx: CheckContext) -> tuple[bool, str]:
    errors = [r for r in ctx.runs if not r.ok]
    if errors:
        return False, f"{len(errors)} run(s) failed: {errors[0].error}"
    # "decided": stopped once the game's own verdict had settled the player's outcome
    by_self = [r for r in ctx.runs if r.ended_by in ("condition", "rule", "decided")]
    if not by_self:
        return False, "no run ended by the game's own win/loss conditions (all hit the time limit)"
    return True, f"{len(by_self)}/{len(ctx.runs)} runs ended by the game's own conditions"


def player_score(run: SimRun, team: int = 0) -> float:
    """1 for a win, 0 for a loss, 0.5 for no decision; ranked games use the rank score."""
    ranks = run.team_stats.get(str(team), {}).get("rank") if run.team_stats else None
    if team in run.winners:
        return 1.0
    if ranks:
        n = max(len(run.team_stats), 2)
        return 1.0 - (int(ranks) - 1) / (n - 1)
    if team in run.losers:
        return 0.0
    return 0.5


def _errors(ctx: CheckContext) -> str:
    """Why the outcome of these runs means nothing: a run that ended in an error has no real outcome."""
    failed = [r for r in ctx.runs if not r.ok]
    if not failed:
        return ""
    return (f"{len(failed)} run(s) ended in an error, so their outcome proves nothing "
            f"({failed[0].policy} seed {failed[0].seed}: {failed[0].error})")


def outcome_discrimination(ctx: CheckContext) -> tuple[bool, str]:
    ref, idle = _runs(ctx, "reference"), _runs(ctx, "idle")
    if not ref or not idle:
        return False, "needs reference and idle runs"
    if _errors(ctx):
        return False, _errors(ctx)
    rs, iss = mean(player_score(r) for r in ref), mean(player_score(r) for r in idle)
    detail = (f"reference policy scores {rs:.2f} over {len(ref)} runs ({_outcomes(ref)}); idle scores {iss:.2f} "
              f"over {len(idle)} runs ({_outcomes(idle)}); a run scores 1 for a win, 0.5 undecided, 0 for a loss "
              "(ranked games: by rank)")
    return rs > iss, detail


def _outcomes(runs: list[SimRun]) -> str:
    return "; ".join(f"seed {r.seed}: {player_score(r):g} ({r.reason or r.ended_by})" for r in runs)


def reference_wins(ctx: CheckContext) -> tuple[bool, str]:
    """The designed strategy achieves the objective in every seed: a level it loses now and then is
    a balance coin-flip, not a diagnostic (a fair player would be scored on luck)."""
    by_seed = {r.seed: r for r in _runs(ctx, "reference")}
    if not by_seed:
        return False, "needs reference runs"
    if _errors(ctx):
        return False, _errors(ctx)
    lost = [r for r in by_seed.values() if player_score(r) < 1.0]
    detail = f"reference policy won {len(by_seed) - len(lost)}/{len(by_seed)} seeds"
    return not lost, detail + "".join(f"; seed {r.seed}: {r.reason or r.ended_by}"
                                      + (f" ({end_text(r)})" if end_text(r) else "") for r in lost)


def determinism(ctx: CheckContext) -> tuple[bool, str]:
    """Same level and seed, same trace: a replayed prefix (or a whole repeated run) must hash the same."""
    replayed = [r for r in ctx.runs if r.ok and r.replay_prefix_hash]
    bad = []
    for r in replayed:
        if r.replay_prefix_hash != r.prefix_hash:
            failed = r.replay_prefix_hash.startswith("replay failed")
            bad.append(f"{r.policy} seed {r.seed}: {r.replay_prefix_hash if failed else 'different trace hashes'}")
    seen: dict[tuple[str, int], set[str]] = {}
    for r in ctx.runs:
        if r.ok:
            seen.setdefault((r.policy, r.seed), set()).add(r.trace_hash)
    repeated = {k: v for k, v in seen.items() if sum(1 for r in ctx.runs if (r.policy, r.seed) == k) > 1}
    bad += [f"{p} seed {s}: different trace hashes" for (p, s), v in repeated.items() if len(v) > 1]
    if not replayed and not repeated:
        return False, "no repeated run to compare"
    if bad:
        return False, "; ".join(bad)
    same = [f"{r.policy} seed {r.seed} replayed for its first {r.prefix_t:g} s" for r in replayed]
    same += [f"{p} seed {s} run twice" for p, s in repeated]
    return True, "identical trace hashes: " + ", ".join(same)


def requirement_evidence(ctx: CheckContext) -> tuple[bool, str]:
    """Every testable requirement is shown by its expectations; one without any is unverified, not passed."""
    if not ctx.evidence:
        return False, "no requirement evidence computed"
    failed = [e for e in ctx.evidence if e["testable"] and e["passed"] is not True]
    if failed:
        share = EVIDENCE_CHARS // len(failed)
        return False, "; ".join(f"{e['id']}: {e['status']}: {evidence_detail(e, share)}" for e in failed)
    n = sum(e["testable"] for e in ctx.evidence)
    return True, f"{n} testable requirement(s) backed by trace evidence"


def visual(ctx: CheckContext) -> tuple[bool, str]:
    v = ctx.visual
    if v is None:
        return False, "no visual review"
    ok = v.playable and v.aligned
    # problems first, whatever the verdict: the PM reads this reason, and a passing review may still flag something
    said = [f"problem: {p}" for p in v.problems[:6]] + v.observations[:max(0, 6 - len(v.problems))]
    return ok, f"{v.judged_by}: " + "; ".join(said)


CHECKS = {"schema": schema, "placement": placement, "pathability": pathability, "terminates": terminates,
          "outcome_discrimination": outcome_discrimination, "reference_wins": reference_wins,
          "determinism": determinism,
          "requirement_evidence": requirement_evidence, "visual": visual}
