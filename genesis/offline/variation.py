"""What the seed varies in an offline design, and the design's exploit probes (GDD.variation).

The engine's rules draw from the run's seed (`random()`, `random_int()`), so a design varies per seed
what its request leaves open: which front each wave hits and in what order, the sides raids come
from, the times within a window. A time the request states comes within a few seconds of it
(STATED_JITTER); an open one within a wider window. A request that fixes every event (sides, order
and times) is a fixed drill: its clause is quoted in `fixed_by`.

The helpers here are shared by the offline designer's families: what a request states (from the
brief's clause accounts), the jitter of a schedule, widened evidence windows, the reference's
reaction radius, and the probes (cheap blind plans) of a design."""
from __future__ import annotations

import math
import re

from engine.agent.scripted import Probe, ScriptedOrder
from genesis.models import Brief, SeedVariation, Variation

STATED_JITTER = 5.0       # seconds: a time the request states comes at most this much late
OPEN_JITTER_MAX = 20.0    # seconds: an open time (the designer's assumption) comes at most this much late ...
OPEN_JITTER_SHARE = 0.3   # ... and at most this share of the closest gap between two attack times
STATED_INTERVAL_SHARE = 0.15   # a stated raid interval: each raid comes up to this share of it late
OPEN_INTERVAL_SHARE = 0.35     # an interval the designer chose


def stated(brief: Brief, *ids: str) -> str | None:
    """The request's own words (its honoured or partial clauses, in order) that ask for any of the requirements
    `ids`, or None when no clause does (the value is the designer's assumption)."""
    runs: list[str] = []
    last = None
    for k, cl in enumerate(brief.clauses):
        if cl.status not in ("honoured", "partial") or not set(cl.requirement_ids) & set(ids):
            continue
        if last is not None and last == k - 1:
            runs[-1] += cl.text          # clauses cover the request in order: neighbours join verbatim
        else:
            runs.append(cl.text)
        last = k
    words = [r.strip(" ,;.") for r in runs]
    return " ... ".join(w for w in words if w) or None


def has_requirement(brief: Brief, *ids: str) -> bool:
    return any(r.id in ids for r in brief.requirements)


def times_stated(brief: Brief) -> str | None:
    """The clause that states the attack times, if the request states them."""
    if has_requirement(brief, "front_times"):
        return stated(brief, "front_times", "wave_times") or "the stated times of each side"
    return stated(brief, "wave_times", "enemy_attack")


def order_fixed(brief: Brief) -> bool:
    """The request pins which side attacks when (a stated order, or each side's own time)."""
    return has_requirement(brief, "front_order", "front_times")


def schedule_jitter(times: list[float], is_stated: bool) -> float:
    """How late (seconds) each attack of `times` may come: a few seconds for stated times; for open
    ones up to OPEN_JITTER_MAX, never so much that two attacks swap or merge (a share of the closest gap)."""
    steps = [b - a for a, b in zip(sorted(times), sorted(times)[1:]) if b > a]
    cap = STATED_JITTER if is_stated else OPEN_JITTER_MAX
    if steps:
        cap = min(cap, OPEN_JITTER_SHARE * min(steps))
    return float(round(max(0.0, cap), 1))


def interval_jitter(interval: float, is_stated: bool) -> float:
    """How late (seconds) each attack of a regular schedule may come: a stated interval's attacks at most
    STATED_JITTER late, as any stated time ("the first at 0:45, then one every 75 s" never comes at 0:56)."""
    if is_stated:
        return float(round(min(interval * STATED_INTERVAL_SHARE, STATED_JITTER), 1))
    return float(round(interval * OPEN_INTERVAL_SHARE, 1))


def late_window(expect: dict, jitter: float) -> dict:
    """An expectation with a `before` bound widened by `jitter` seconds (the attack may come that late)."""
    if jitter > 0 and "before" in expect:
        return {**expect, "before": round(expect["before"] + jitter, 2)}
    return expect


def reaction_radius(objectives: list[tuple[float, float]], fronts: list[tuple[float, float]],
                    least: float = 25.0, margin: float = 6.0, most: float = 50.0) -> float:
    """How far from an objective the reference meets an enemy: far enough to see a wave as it appears
    at the front nearest to any objective, so a defence at home leaves in time for the far objective.
    (The reference still reacts only to enemies it sees: under fog it meets what its units see.)"""
    if not objectives or not fronts:
        return least
    reach = max(min(math.dist(f, o) for o in objectives) for f in fronts)
    return float(round(min(most, max(least, reach + margin)), 1))


# --- probes ---------------------------------------------------------------------------------------
def park(name: str, xy: tuple[float, float], exploit: str, tag: str | None = None) -> Probe:
    """Every armed unit (or those tagged) fight-moves to `xy` at the start and stays there."""
    return Probe(name=name[:80], exploit=exploit[:300],
                 orders=[ScriptedOrder(t=0.0, kind="fight", x=round(xy[0], 1), y=round(xy[1], 1), tag=tag)])


def schedule_probe(name: str, stops: list[tuple[float, tuple[float, float]]], exploit: str,
                   lead: float = 15.0) -> Probe | None:
    """Fight-move to each stop `lead` seconds before its time (a plan read off a listed schedule)."""
    orders = [ScriptedOrder(t=max(0.0, round(t - lead, 1)), kind="fight", x=round(xy[0], 1), y=round(xy[1], 1))
              for t, xy in sorted(stops)][:20]
    if not orders:
        return None
    return Probe(name=name[:80], exploit=exploit[:300], orders=orders)


def objective_probes(objectives: list[tuple[float, float]], what: str = "objective", limit: int = 3) -> list[Probe]:
    """One probe per objective (at most `limit`): the whole army parked on it from the start."""
    out = []
    for i, xy in enumerate(objectives[:limit], 1):
        out.append(park(f"all_to_{what}_{i}", xy, f"fight-move every unit to {what} {i} at the start and stay there, "
                        "whatever comes"))
    return out


def variation(varies: list[SeedVariation], probes: list[Probe | None] = (), fixed_by: str | None = None,
              knob: str | None = None) -> Variation:
    named: dict[str, Probe] = {}
    for p in probes:
        if p is not None and p.name not in named:
            named[p.name] = p
    # the request's words that fix the drill, as one verbatim stretch: `stated` joins clauses apart with " ... "
    quoted = max(fixed_by.split(" ... "), key=len)[:300] if fixed_by else None
    return Variation(varies=varies[:8], fixed_by=quoted, probes=list(named.values())[:4], knob=knob)


def vary(what: str, how: str, observe: str) -> SeedVariation:
    return SeedVariation(what=what[:300], how=how[:200], observe=observe[:300])


def recipe_varies(comp) -> list[SeedVariation]:
    """The seeded draws of a composed component (a RuleComponent with a recipe): spawn places drawn
    per firing (`pick`) and firings that come late (`jitter`), named by the composed rule's params."""
    recipe = getattr(comp, "recipe", None)
    if recipe is None:
        return []
    out = []
    for i, step in enumerate(recipe.steps, 1):
        jitter = getattr(step.when, "jitter", None)
        if jitter:
            out.append(vary(f"when each of {comp.id}'s firings comes: up to {jitter:g} s late",
                            f"{comp.id}.s{i}_jitter", "the attack as it appears, not the clock"))
        for j, action in enumerate(step.then, 1):
            if getattr(action, "do", None) == "spawn" and getattr(action, "pick", "cycle") != "cycle":
                out.append(vary(f"where each of {comp.id}'s groups appears: one of {len(action.at)} places, drawn "
                                + ("never the previous one" if action.pick == "random_no_repeat" else "each time"),
                                f"{comp.id}.s{i}_a{j}_pick", "where the group appears and what it goes for; a "
                                "defence waiting at one side loses what the other side attacks"))
    return out


# --- the enemy's fortified staging base -------------------------------------------------------------
# A defence measures where and when the army meets each attack. With nothing but the waves on the map,
# attacking the nearest enemy in sight is itself a sound defence, so a scripted rush wins as often as
# good play. The enemy's staging base makes the choice real: it stands far from every objective, front
# and approach, it never attacks, and its turrets outgun the whole defence: an army that goes for the
# enemy it sees first (or for the enemy's start) is lost there, while the defence that stays on its
# objectives never comes near it.
BASE_TURRET = "heavy_turret"
BASE_MARGIN = 1.5         # the base's fighting strength over the player's whole army
BASE_CLEARANCE = 4.0      # tiles beyond the turrets' reach kept from every front and approach ...
BASE_OUTSIDE = 3.0        # ... and beyond the defence's reaction circle around every objective and home


def _power(units: dict[str, int]) -> float:
    """Lanchester fighting strength of a group: total hp times total damage per second."""
    from engine.catalog import load_catalog

    cat = load_catalog().units
    hp = sum(n * cat[t].hp for t, n in units.items() if t in cat)
    dps = sum(n * cat[t].weapon.damage / cat[t].weapon.reload for t, n in units.items()
              if t in cat and cat[t].weapon)
    return hp * dps


def _segment_dist(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / length))
    return math.dist(p, (ax + t * dx, ay + t * dy))


def staging_base_site(width: float, height: float, candidates: list[tuple[float, float]],
                      objectives: list[tuple[float, float]], home: tuple[float, float],
                      fronts: list[tuple[float, float]], radius: float) -> tuple[float, float] | None:
    """Where the enemy's staging base stands: the candidate farthest from the defence's business (outside
    the reaction circle of every objective and home, so the defence never targets it, and clear of every
    front and of the approaches from the fronts to the objectives and home by the turrets' reach and a
    margin, so a defence meeting a wave is never under its fire), or None when no spot is clear."""
    from engine.catalog import load_catalog

    reach = load_catalog().units[BASE_TURRET].weapon.range + BASE_CLEARANCE
    guarded = [*objectives, home]
    best, best_score = None, 0.0
    for p in candidates:
        if not (4 <= p[0] <= width - 4 and 4 <= p[1] <= height - 4):
            continue
        score = min([math.dist(p, g) - (radius + BASE_OUTSIDE) for g in guarded]
                    + [math.dist(p, f) - reach for f in fronts]
                    + [_segment_dist(p, f, g) - reach for f in fronts for g in guarded])
        if score > best_score:
            best, best_score = p, score
    return best


def staging_base_turrets(army: dict[str, int]) -> int:
    """Heavy turrets whose fighting strength is BASE_MARGIN times the player's whole army."""
    n = 1
    while _power({BASE_TURRET: n}) < BASE_MARGIN * _power(army) and n < 12:
        n += 1
    return n


def component_of(how: str) -> str:
    """The component id a variation's `how` names ('<id>.<param>' or '<id>: random'), or '' for a switch
    or a team's setting."""
    head = how.split(":")[0].split(".")[0].strip()
    return "" if head in ("switches",) else head


def of_components(varies: list[SeedVariation], comps) -> list[SeedVariation]:
    """The variations whose component is still in the design (a composed recipe may replace a library
    component, and its own draws are declared instead)."""
    ids = {c.id for c in comps}
    return [v for v in varies if component_of(v.how) in ids or not component_of(v.how)]


def open_ground_near(m, x: float, y: float, taken: list[tuple[float, float]], clearance: float = 3.0,
                     margin: int = 3, main_region_only: bool = True) -> tuple[float, float]:
    """The nearest tile centre to (x, y) with open ground all around it (no cliff or water within `margin`
    tiles) that keeps `clearance` from every taken point: an objective there can be reached, and attacked,
    from every side, so where an attack hits is decided by its side, not by a cliff lip that shelters the
    objective from one approach. Falls back to the nearest ground tile."""
    import numpy as np

    from genesis.offline import geometry as G

    ok = G.walkable(m, main_region_only)
    h, w = ok.shape
    padded = np.zeros((h + 2 * margin, w + 2 * margin), dtype=bool)
    padded[margin:margin + h, margin:margin + w] = ok
    open_ = np.ones_like(ok)
    for dy in range(-margin, margin + 1):
        for dx in range(-margin, margin + 1):
            open_ &= padded[margin + dy:margin + dy + h, margin + dx:margin + dx + w]
    ys, xs = np.nonzero(open_)
    if not len(xs):
        return G.passable_near(m, x, y, taken, clearance, main_region_only)
    cx, cy = xs + 0.5, ys + 0.5
    d = (cx - x) ** 2 + (cy - y) ** 2
    for tx, ty in taken:
        d = np.where((cx - tx) ** 2 + (cy - ty) ** 2 < clearance ** 2, np.inf, d)
    i = int(np.argmin(d))
    if not np.isfinite(d[i]):
        return G.passable_near(m, x, y, taken, clearance, main_region_only)
    return float(cx[i]), float(cy[i])


_ATTACK_WORDS = re.compile(r"\b(?:attacks?|raids?|raiders?|waves?|counterattacks?|ambush(?:es)?|assaults?|strikes?|"
                           r"columns?|squads?|bombers?|parties|party|probe|push)\b", re.I)


def told(var: Variation) -> str:
    """What the agent is told of the variation (never the draws themselves): that the sides and the
    times change from game to game, so it must watch for each attack."""
    # only what varies about attacks: a start corner drawn per seed is not an attack's side
    attacks = [v for v in var.varies if _ATTACK_WORDS.search(v.what)]
    if var.fixed_by or not attacks:
        return ""
    sides = any(not v.how.endswith("jitter") for v in attacks)
    times = any(v.how.endswith("jitter") for v in attacks)
    what = ("Which side each attack comes from, and its exact time, change" if sides and times else
            "Which side each attack comes from changes" if sides else "The exact time of each attack changes")
    return f" {what} from game to game: watch for them."
