"""The independent alignment checker: does a scenario folder do what its request asked?

Each expected property is decided from the artifacts (level.json, the map, the validation runs'
traces in runs/*.jsonl, the brief's own account of what it did not honour), never from the
pipeline's requirement verdicts. A scenario is aligned when it is playable (or refused, when a
refusal is expected) and every property holds. A non-aligned scenario that reports nothing as not
honoured is a silent substitution.

    PYTHONPATH=tests/genesis python -m corpus.check FOLDER [--id CORPUS_ID | --expect JSON]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from corpus.artifacts import ArtifactError, Group, Scenario, Wave, category, load_scenario
from corpus.schema import Entry, Expected, load_corpus

TIME_TOLERANCE_S = 10.0
# objectives are what the player keeps standing: buildings and the commander, not its army
OBJECTIVE_CATEGORIES = ("commander", "defense", "economy", "factory")
ATTACK_LOG_WORDS = ("wave", "attack", "raid", "assault", "strike", "probe", "main")


class Verdict(BaseModel):
    request: str
    folder: str
    aligned: bool
    playable: bool
    refused: bool
    failures: dict[str, str]
    reported: list[str]
    silent: bool

    def reason(self) -> str:
        return "; ".join(f"{k}: {v}" for k, v in self.failures.items())


# ---- helpers over traces and levels ------------------------------------------------------------------
def _events(trace: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in trace if e.get("event") == kind]


def _end(trace: list[dict[str, Any]]) -> dict[str, Any] | None:
    ends = _events(trace, "end")
    return ends[-1] if ends else None


def _won(trace: list[dict[str, Any]], team: int = 0) -> float | None:
    """Game second of `team`'s win, None when it did not win."""
    end = _end(trace)
    if end is None or team not in (end.get("winners") or []):
        return None
    wins = [e["t"] for e in _events(trace, "win") if e.get("team") == team]
    return min(wins) if wins else end["t"]


def _lost_at(trace: list[dict[str, Any]], team: int = 0) -> float | None:
    losses = [e["t"] for e in _events(trace, "lose") if e.get("team") == team]
    end = _end(trace)
    if not losses and end is not None and team in (end.get("losers") or []):
        losses = [end["t"]]
    return min(losses) if losses else None


def _params(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every leaf of a rule's params, with its dotted key path."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _params(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _params(v, f"{path}[{i}]")
    else:
        yield path, value


def _param_times(sc: Scenario, words: tuple[str, ...]) -> list[tuple[str, float]]:
    """Numeric rule params whose key names one of `words`, and numeric condition fields likewise."""
    out = []
    for rule in sc.rules():
        for key, v in _params(rule.get("params") or {}):
            if isinstance(v, (int, float)) and not isinstance(v, bool) and any(w in key.lower() for w in words):
                out.append((f"rule {rule.get('id')} {key}", float(v)))
    for cond in sc.conditions():
        for key, v in _params(cond):
            if isinstance(v, (int, float)) and not isinstance(v, bool) and any(w in key.lower() for w in words):
                out.append((f"condition {cond.get('kind')} {key}", float(v)))
    return out


def _mentions(sc: Scenario, text: str) -> list[str]:
    """Rules and conditions whose params name `text` (a unit type or tag)."""
    out = [f"rule {r.get('id')}" for r in sc.rules() if any(v == text for _, v in _params(r.get("params") or {}))]
    out += [f"condition {c.get('kind')}" for c in sc.conditions() if any(v == text for _, v in _params(c))]
    return out


def _near(a: float, b: float, tol: float = TIME_TOLERANCE_S) -> bool:
    return abs(a - b) <= tol


def _fmt(xs: list[float]) -> str:
    return "[" + ", ".join(f"{x:g}" for x in xs) + "]"


def _reference(sc: Scenario) -> list[tuple[str, list[dict[str, Any]]]]:
    return list(sc.runs("reference").items())


def _per_reference_run(sc: Scenario, check: Callable[[list[dict[str, Any]]], str | None]) -> str | None:
    """The first reference run the check fails on, with why; None when every run passes."""
    runs = _reference(sc)
    if not runs:
        return "no reference run trace in runs/"
    for name, trace in runs:
        why = check(trace)
        if why:
            return f"{name}: {why}"
    return None


# ---- the properties ----------------------------------------------------------------------------------
def check_playable(sc: Scenario, _: Expected) -> str | None:
    if not (sc.validation or {}).get("playable"):
        return f"not playable: {(sc.validation or {}).get('reason') or 'no validation verdict'}"
    if sc.level is None:
        return "playable but no level.json"
    lost = [n for n, tr in _reference(sc) if _won(tr) is None]
    if not _reference(sc) or lost:
        return f"the reference player does not win runs {lost or 'none recorded'}"
    idle_wins = [n for n, tr in sc.runs("idle").items() if _won(tr) is not None]
    if idle_wins:
        return f"an idle player wins {idle_wins}"
    return None


def check_refused(sc: Scenario, exp: Expected) -> str | None:
    refused = (sc.brief or {}).get("is_game") is False or (sc.validation or {}).get("status") == "refused"
    if exp.refused and not refused:
        return "expected a refusal, the request was accepted"
    if exp.refused and not sc.reported():
        return "refused without saying why"
    return None


def check_not_honoured(sc: Scenario, exp: Expected) -> str | None:
    text = " | ".join(sc.reported()).lower()
    missing = [s for s in exp.not_honoured_contains if s.lower() not in text]
    return f"not reported as not honoured: {missing} (reported: {sc.reported() or 'nothing'})" if missing else None


def check_teams(sc: Scenario, exp: Expected) -> str | None:
    sides = sc.sides()
    if exp.teams is not None and len(sides) != exp.teams:
        return f"{len(sides)} sides in the level {[sorted(s) for s in sides]}, asked {exp.teams}"
    if exp.team_size is not None and any(len(s) != exp.team_size for s in sides):
        return f"side sizes {[len(s) for s in sides]}, asked {exp.team_size} per side"
    if exp.ffa:
        allied = {t["id"]: t.get("allies") for t in sc.teams if t.get("allies")}
        if allied:
            return f"alliances in a free-for-all: {allied}"
        trace = next(iter(sc.runs("reference").values()), [])
        fielded = {e.get("team") for e in _events(trace, "spawn")}
        empty = sorted({t["id"] for t in sc.teams} - fielded)
        if empty:
            return f"teams {empty} field no units in the reference run"
    return None


def _labelled(sc: Scenario, waves: list[Wave], flanks: bool) -> list[tuple[Group, set[str]]]:
    groups = [g for w in waves for g in w.groups]
    if not flanks:
        return [(g, sc.sides_of(g)) for g in groups]
    target = sc.facing_target()
    out = []
    for g in groups:
        side = sc.flank(g, target) if target else None
        out.append((g, {side} if side else set()))
    return out


def _describe(labelled: list[tuple[Group, set[str]]]) -> str:
    return ", ".join(f"t={g.t:g} ({g.x:g},{g.y:g}) {'/'.join(sorted(s)) or 'ahead/behind'} x{g.size}"
                     for g, s in labelled[:12])


def _first_times(labelled: list[tuple[Group, set[str]]], wanted: list[str]) -> dict[str, float]:
    first: dict[str, float] = {}
    for g, names in labelled:
        for name in names & set(wanted):
            first.setdefault(name, g.t)
    return first


def check_directions(sc: Scenario, exp: Expected) -> str | None:
    if not exp.directions:
        return None
    flanks = any(d in ("left", "right") for d in exp.directions)

    def run(trace: list[dict[str, Any]]) -> str | None:
        labelled = _labelled(sc, sc.waves(trace), flanks)
        if not labelled:
            return "no enemy rule spawns"
        stray = [(g, s) for g, s in labelled if not s & set(exp.directions)]
        if stray:
            return f"groups from unasked sides: {_describe(stray)}"
        first = _first_times(labelled, exp.directions)
        missing = [d for d in exp.directions if d not in first]
        if missing:
            return f"no attack from {missing}; groups: {_describe(labelled)}"
        order = sorted(exp.directions, key=lambda d: first[d])
        if order != list(exp.directions) and len(set(first[d] for d in exp.directions)) == len(exp.directions):
            return f"sides attack in the order {order}, asked {list(exp.directions)}"
        if exp.direction_times:
            off = [f"{d} at {first[d]:g}s (asked {t:g}s)" for d, t in zip(exp.directions, exp.direction_times)
                   if not _near(first[d], t)]
            if off:
                return "; ".join(off)
        return None

    return _per_reference_run(sc, run)


def check_fronts(sc: Scenario, exp: Expected) -> str | None:
    if exp.fronts is None:
        return None

    def run(trace: list[dict[str, Any]]) -> str | None:
        sectors = {sc.compass(g.x, g.y) for w in sc.waves(trace) for g in w.groups}
        return None if len(sectors) == exp.fronts else f"attacks from {len(sectors)} sectors {sorted(sectors)}, asked {exp.fronts}"

    return _per_reference_run(sc, run)


def _sizes(waves: list[Wave]) -> str:
    return f"sizes {[w.size for w in waves]} at t={_fmt([w.t for w in waves])}"


def check_waves(sc: Scenario, exp: Expected) -> str | None:
    if exp.waves is None and exp.wave_sizes is None and exp.growth_factor is None:
        return None

    def run(trace: list[dict[str, Any]]) -> str | None:
        waves = sc.waves(trace)
        if exp.waves is not None and len(waves) != exp.waves:
            return f"{len(waves)} waves ({_sizes(waves)}), asked {exp.waves}"
        if (exp.wave_sizes or exp.growth_factor) and len(waves) < 2:
            return f"growth needs at least 2 waves: {_sizes(waves)}"
        pairs = list(zip(waves, waves[1:]))
        if exp.wave_sizes == "increasing" and not all(b.size > a.size for a, b in pairs):
            return f"not strictly increasing: {_sizes(waves)}"
        if exp.growth_factor and not all(b.size >= exp.growth_factor * a.size for a, b in pairs):
            return f"not each >= {exp.growth_factor:g}x the previous: {_sizes(waves)}"
        return None

    return _per_reference_run(sc, run)


def check_probe_main(sc: Scenario, exp: Expected) -> str | None:
    if not exp.probe_main:
        return None
    factor = exp.main_factor or 2.0

    def run(trace: list[dict[str, Any]]) -> str | None:
        waves = sc.waves(trace)
        if len(waves) < 2:
            return f"no probe then main attack: {_sizes(waves)}"
        probe, main = waves[0], waves[1]
        if main.size < factor * probe.size:
            return f"main attack {main.size} is not >= {factor:g}x the probe {probe.size} ({_sizes(waves)})"
        return None

    return _per_reference_run(sc, run)


def _attack_starts(sc: Scenario, trace: list[dict[str, Any]]) -> list[tuple[float, Wave | None]]:
    """Enemy attack starts: rule spawn waves, and rule logs that announce an attack by enemy units
    already on the map (rules' own orders are not traced)."""
    starts: list[tuple[float, Wave | None]] = [(w.t, w) for w in sc.waves(trace)]
    for e in _events(trace, "rule_log"):
        if any(word in str(e.get("name", "")).lower() for word in ATTACK_LOG_WORDS) and \
                not str(e.get("name", "")).lower().endswith(("planned", "skipped")):
            starts.append((e["t"], None))
    return sorted(starts, key=lambda s: s[0])


def check_attack_times(sc: Scenario, exp: Expected) -> str | None:
    if not exp.enemy_attack_times:
        return None

    def run(trace: list[dict[str, Any]]) -> str | None:
        starts = _attack_starts(sc, trace)
        problems = []
        for i, t in enumerate(exp.enemy_attack_times):
            near = [(s, w) for s, w in starts if _near(s, t)]
            if not near:
                problems.append(f"no enemy attack near {t:g}s (attacks at {_fmt(sorted({s for s, _ in starts}))})")
                continue
            if exp.attack_domains:
                waves = [w for _, w in near if w is not None]
                if not waves:
                    problems.append(f"the attack at {t:g}s spawns no units whose domain can be checked")
                    continue
                air = [category(u) == "air" for w in waves for u in w.types]
                want_air = exp.attack_domains[i] == "air"
                if (all(air) if want_air else not any(air)) is False:
                    problems.append(f"the attack at {t:g}s is {sorted({u for w in waves for u in w.types})}, "
                                    f"asked {exp.attack_domains[i]}")
        return "; ".join(problems) or None

    return _per_reference_run(sc, run)


def check_hold(sc: Scenario, exp: Expected) -> str | None:
    if exp.hold_time is None:
        return None
    params = _param_times(sc, ("hold",))
    # a zone rule may name its hold time otherwise ("seconds", "duration"): any time param of a rule about a zone
    params += [(f"rule {r.get('id')} {k}", float(v)) for r in sc.rules()
               if any(w in str(r.get("id", "")) for w in ("zone", "capture", "hold", "king"))
               for k, v in _params(r.get("params") or {}) if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not any(_near(v, exp.hold_time, 1.0) for _, v in params):
        return f"no zone rule holds for {exp.hold_time:g}s (hold params: {params or 'none'})"

    def run(trace: list[dict[str, Any]]) -> str | None:
        won = _won(trace)
        if won is None:
            return "the reference player does not win"
        captures = [e["t"] for e in _events(trace, "rule_log") if "captur" in str(e.get("name", "")).lower()
                    and e["t"] <= won]
        held = won - (captures[-1] if captures else 0.0)
        if held < exp.hold_time - 2:
            return f"won at {won:g}s after holding {held:g}s, asked {exp.hold_time:g}s"
        return None

    return _per_reference_run(sc, run)


def check_deadline(sc: Scenario, exp: Expected) -> str | None:
    if exp.deadline is None:
        return None
    d = exp.deadline
    structural = [k for k, v in _param_times(sc, ("deadline", "time_limit", "limit")) if _near(v, d, 1.0)]
    idle_lost = [n for n, tr in sc.runs("idle").items() if (_lost_at(tr) or -1) >= d - 2 and _lost_at(tr) <= d + 5]
    if not structural and not idle_lost:
        losses = {n: _lost_at(tr) for n, tr in sc.runs("idle").items()}
        return (f"no loss at {d:g}s: no deadline param or condition at {d:g}s and no idle run lost then "
                f"(idle losses at {losses}, time limit {sc.switches().get('time_limit')})")
    late = [f"{n} won at {_won(tr)}" for n, tr in _reference(sc) if _won(tr) is not None and _won(tr) > d + 1]
    return f"the reference wins after the deadline: {late}" if late else None


def check_time_limit(sc: Scenario, exp: Expected) -> str | None:
    if exp.time_limit is None:
        return None
    t = exp.time_limit
    ends = {n: (_end(tr) or {}).get("t") for n, tr in _reference(sc)}
    if ends and all(e is not None and _near(e, t) for e in ends.values()):
        return None
    structural = [k for k, v in _param_times(sc, ("time", "duration", "limit", "until")) if _near(v, t, 1.0)]
    limit = sc.switches().get("time_limit")
    survive_early = [n for n, e in ends.items() if e is not None and e < t - TIME_TOLERANCE_S
                     and _won(dict(_reference(sc))[n]) is not None and not exp.ranking and not exp.hold_time]
    if structural and not survive_early:
        return None
    return f"the game is not decided at {t:g}s: reference runs end at {ends}, time limit {limit}, " \
           f"no param or condition at {t:g}s" + (f", {survive_early} won early" if survive_early else "")


def check_raids(sc: Scenario, exp: Expected) -> str | None:
    problems = []
    if exp.raid_domain is not None:
        def domain(trace: list[dict[str, Any]]) -> str | None:
            types = [u for w in sc.waves(trace) for u in w.types]
            if not types:
                return "no raiders spawned"
            air = [category(u) == "air" for u in types]
            ok = all(air) if exp.raid_domain == "air" else not any(air)
            return None if ok else f"raiders {sorted(set(types))}, asked {exp.raid_domain}"
        problems.append(_per_reference_run(sc, domain))
    if exp.raid_target is not None:
        problems.append(_raid_target(sc, exp.raid_target))
    if exp.raid_interval is not None:
        def interval(trace: list[dict[str, Any]]) -> str | None:
            starts = [w.t for w in sc.waves(trace)]
            gaps = [b - a for a, b in zip(starts, starts[1:])]
            if not gaps:
                return f"fewer than 2 raids (at {_fmt(starts)})"
            off = [g for g in gaps if not _near(g, exp.raid_interval)]
            return f"raids at {_fmt(starts)}: gaps {_fmt(gaps)}, asked every {exp.raid_interval:g}s" if off else None
        problems.append(_per_reference_run(sc, interval))
    if exp.random_side:
        sides = {sc.compass(g.x, g.y) for _, tr in _reference(sc) + list(sc.runs("idle").items())
                 for w in sc.waves(tr) for g in w.groups}
        if len(sides) < 2:
            problems.append(f"raids come only from {sorted(sides) or 'nowhere'}")
    return "; ".join(p for p in problems if p) or None


def _raid_target(sc: Scenario, target: str) -> str | None:
    if sc.start_count(0, target) == 0:
        return f"the player has no {target} to raid"
    enemies = sc.enemy_teams()
    killed = [n for n, tr in sc.traces.items() for e in _events(tr, "death")
              if e.get("team") == 0 and e.get("type") == target and e.get("killer_team") in enemies]
    if killed or _mentions(sc, target):
        return None
    return f"no rule sends raids at {target} and no run shows an enemy destroying one"


def check_protect(sc: Scenario, exp: Expected) -> str | None:
    u = exp.protect_unit
    if u is None:
        return None
    if sc.start_count(0, u) == 0:
        return f"the player has no {u}"
    tags = {x.get("tag") for x in sc.start_units(0) if x["type"] == u and x.get("tag")}
    paths = _mentions(sc, u) + [m for tag in tags for m in _mentions(sc, tag)]
    paths += [f"condition {c['kind']}" for c in sc.conditions() if c.get("kind") == "protect_target"
              and c.get("team") == 0 and ((c.get("target") or {}).get("type") == u or (c.get("target") or {}).get("tag") in tags)]
    if not paths:
        return f"no loss path: no rule or condition names the {u} (tags {sorted(tags) or 'none'})"
    for name, trace in sc.traces.items():
        died = [e["t"] for e in _events(trace, "death") if e.get("team") == 0 and e.get("type") == u]
        lost = _lost_at(trace)
        if died and (lost is None or lost > min(died) + 3):
            return f"{name}: the {u} died at {min(died):g}s and the player did not lose (lost at {lost})"
    return None


def check_objectives(sc: Scenario, exp: Expected) -> str | None:
    if exp.objectives is None and exp.objective_type is None:
        return None
    side = sc.player_side()
    tagged = [u for u in sc.start_units() if u["team"] in side and category(u["type"]) in OBJECTIVE_CATEGORIES
              and (exp.objective_type is None or u["type"] == exp.objective_type)
              and (u.get("tag") and _mentions(sc, u["tag"]) or _mentions(sc, u["type"]))]
    count = sum(u["count"] for u in tagged)
    if exp.objective_type and count == 0:
        return f"no protected {exp.objective_type} (player start units: " \
               f"{sorted({(u['type'], u.get('tag')) for u in sc.start_units(0)}, key=str)})"
    if exp.objectives is not None and count != exp.objectives:
        return f"{count} protected objectives {[(u['type'], u['count']) for u in tagged]}, asked {exp.objectives}"
    return None


def check_produce(sc: Scenario, exp: Expected) -> str | None:
    if not exp.produce:
        return None
    if not sc.switches().get("production", True):
        return "production is off"

    def run(trace: list[dict[str, Any]]) -> str | None:
        won = _won(trace)
        if won is None:
            return "the reference player does not win"
        short = {}
        for unit, n in exp.produce.items():
            made = sum(1 for e in _events(trace, "spawn") if e.get("team") == 0 and e.get("type") == unit
                       and e.get("source") in ("production", "build") and e["t"] <= won)
            died = sum(1 for e in _events(trace, "death") if e.get("team") == 0 and e.get("type") == unit and e["t"] <= won)
            owned = sc.start_count(0, unit) + made - died
            if made == 0 or owned < n:
                short[unit] = f"produced {made}, owned {owned} at the win ({won:g}s), asked {n}"
        return f"{short}" if short else None

    return _per_reference_run(sc, run)


def check_destroy(sc: Scenario, exp: Expected) -> str | None:
    if exp.destroy_type is None:
        return None
    enemies = sc.enemy_teams()

    def run(trace: list[dict[str, Any]]) -> str | None:
        if not sc.enemy_units_of(trace, exp.destroy_type):
            return f"the enemy has no {exp.destroy_type}"
        won = _won(trace)
        killed = [e["t"] for e in _events(trace, "death") if e.get("team") in enemies and e.get("type") == exp.destroy_type]
        if won is None or not killed:
            return f"the reference player {'wins' if won is not None else 'does not win'} and destroys " \
                   f"{len(killed)} {exp.destroy_type}"
        return None

    return _per_reference_run(sc, run)


def check_switches(sc: Scenario, exp: Expected) -> str | None:
    s = sc.switches()
    problems = []
    if exp.production is not None and bool(s.get("production", True)) != exp.production:
        problems.append(f"production {s.get('production')}, asked {exp.production}")
    if exp.fog is not None and bool(s.get("fog_of_war", True)) != exp.fog:
        problems.append(f"fog of war {s.get('fog_of_war')}, asked {exp.fog}")
    if exp.ranking is not None:
        metrics = [c.get("metric") for c in sc.conditions() if c.get("kind") == "rank_by_score"]
        metrics += [v for r in sc.rules() for k, v in _params(r.get("params") or {}) if k.endswith("metric")]
        if exp.ranking not in metrics:
            problems.append(f"ranked by {metrics or 'nothing'}, asked {exp.ranking}")
    return "; ".join(problems) or None


def check_scouting(sc: Scenario, exp: Expected) -> str | None:
    if not exp.scouting:
        return None

    def run(trace: list[dict[str, Any]]) -> str | None:
        zones = [e.get("fields") or {} for e in _events(trace, "rule_log") if "scout" in str(e.get("name", "")).lower()
                 and "x" in (e.get("fields") or {})]
        if len(zones) < 2:
            return "fewer than 2 scouting zones"
        scouted = {str(f.get("side")) for e in _events(trace, "rule_log") if str(e.get("name")) == "scouted"
                   for f in [e.get("fields") or {}]}
        waves = sc.waves(trace)
        if not waves:
            return "no attack"
        visited = [(z["x"], z["y"]) for z in zones if str(z.get("side")) in scouted]
        hit = [g for w in waves for g in w.groups if any(math.hypot(g.x - x, g.y - y) < 20 for x, y in visited)]
        return f"attacks come from scouted sides {sorted(scouted)}" if hit else None

    return _per_reference_run(sc, run)


PROPERTY_CHECKS: dict[str, Callable[[Scenario, Expected], str | None]] = {
    "teams": check_teams, "directions": check_directions, "fronts": check_fronts, "waves": check_waves,
    "probe_main": check_probe_main, "attack_times": check_attack_times, "hold": check_hold,
    "deadline": check_deadline, "time_limit": check_time_limit, "raids": check_raids, "protect": check_protect,
    "objectives": check_objectives, "produce": check_produce, "destroy": check_destroy,
    "switches": check_switches, "scouting": check_scouting,
}


def check_folder(folder: Path, exp: Expected, request: str = "") -> Verdict:
    sc = load_scenario(folder)
    failures: dict[str, str] = {}
    refused = (sc.brief or {}).get("is_game") is False or (sc.validation or {}).get("status") == "refused"
    why = check_refused(sc, exp)
    if why:
        failures["refused"] = why
    if exp.not_honoured_contains:
        why = check_not_honoured(sc, exp)
        if why:
            failures["not_honoured"] = why
    playable = check_playable(sc, exp) is None
    if exp.playable and not playable:
        failures["playable"] = check_playable(sc, exp)
    if exp.playable is False and not exp.refused and playable:
        failures["playable"] = "expected not playable"
    if playable and not exp.refused:
        for name, check in PROPERTY_CHECKS.items():
            why = check(sc, exp)
            if why:
                failures[name] = why
    reported = sc.reported()
    aligned = not failures
    return Verdict(request=request or (sc.brief or {}).get("query", ""), folder=str(folder), aligned=aligned,
                   playable=playable, refused=refused, failures=failures, reported=reported,
                   silent=not aligned and not reported)


def check_entry(entry: Entry, folder: Path) -> Verdict:
    return check_folder(folder, entry.expect, entry.request)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="corpus.check", description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--id", help="a corpus entry id (tests/genesis/corpus/requests.yaml)")
    parser.add_argument("--expect", help="expected properties as JSON (corpus schema)")
    args = parser.parse_args(argv)
    try:
        if args.id:
            entry = next((e for e in load_corpus() if e.id == args.id), None)
            if entry is None:
                raise ValueError(f"no corpus entry {args.id!r}")
            verdict = check_entry(entry, args.folder)
        else:
            verdict = check_folder(args.folder, Expected.model_validate(json.loads(args.expect or "{}")))
    except (ValueError, ValidationError, ArtifactError, OSError) as err:
        print(f"corpus.check: {str(err).splitlines()[0]}", file=sys.stderr)
        return 2
    print(verdict.model_dump_json(indent=1))
    return 0 if verdict.aligned else 1


if __name__ == "__main__":
    sys.exit(main())
