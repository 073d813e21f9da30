"""Trace expectations: declarative checks of what a simulation run must show.

One expectation is a small dict (written in YAML or JSON by rule tests and by the pipeline when it
checks a GDD requirement against a run); its typed models are in `engine.schema.expect`. Three
families:

  {event: spawn, where: {source: rule, team: 1}, min: 4, max: 40, after: 25, before: 35}
      counts the trace events of that kind whose fields match `where` (dotted paths such as
      `fields.from` reach into nested dicts; a list value means "any of these"; a field that holds a list
      matches a value it contains) inside the time
      window [after, before], and checks the count against [min, max]. Optional shape checks on the
      same events: `distinct_sectors`, `sectors_named` (the named compass sides, in order when
      asked), `time_clusters`, `cluster_times` (each cluster at its time, +/- a tolerance),
      `increasing` (strictly, or by a factor) and `values` (a numeric field in range); see `_SHAPE_CHECKS`.
  {result: {winners_include: 0, ended_by: condition, duration_min: 100}}
      checks the run's outcome; every key given must hold.
  {state: {at: 60, team: 1, type: metal_storage, units_max: 0, metal_min: 100}}
      checks the engine state at a game second: living units matching team/type/tag/within/hp, the
      teams owning them and their alliances, and a team's resources. The state is sampled while the run plays (`run_sampled`); a run without a
      sample at that time fails the check.

`evaluate` never raises for a malformed expectation: it reports it as a failed check whose detail
says what is wrong, so a generated requirement cannot crash the verifier. `validate` lists the
problems up front. Details always carry the observed numbers, because they are fed back to the
agent that has to fix the rule or the level.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from pydantic import BaseModel, TypeAdapter, ValidationError

from engine.schema.expect import EVENT_KINDS, FAMILIES, TEAM_COUNT_KEYS, Expectation, ResultSpec

RESULT_KEYS = tuple(ResultSpec.model_fields)
_EXPECTATION = TypeAdapter(Expectation)
_COMPASS = {
    4: ("E", "N", "W", "S"),
    8: ("E", "NE", "N", "NW", "W", "SW", "S", "SE"),
    16: ("E", "ENE", "NE", "NNE", "N", "NNW", "NW", "WNW", "W", "WSW", "SW", "SSW", "S", "SSE", "SE", "ESE"),
}


@dataclass
class ExpectationResult:
    expectation: dict
    passed: bool
    detail: str
    description: str = ""

    def to_dict(self) -> dict:
        return {"expectation": self.expectation, "passed": self.passed,
                "detail": self.detail, "description": self.description}


@dataclass
class RunView:
    """The parts of a run that expectations read, whatever object or dict the run came as."""

    events: list[dict]
    winners: list[int] = field(default_factory=list)
    losers: list[int] = field(default_factory=list)
    reason: str = ""
    ended_by: str = ""
    duration: float = 0.0
    states: dict[float, dict] = field(default_factory=dict)  # game second -> `sample_state` at that time


class ExpectationError(ValueError):
    """An expectation is malformed (unknown key, wrong type, unknown event kind)."""


# --- public API ----------------------------------------------------------------------------------
def evaluate(expectations: Iterable[Mapping], result: Any, map_size: tuple[float, float] | None = None) -> list[ExpectationResult]:
    """Check each expectation against a run (RunResult, its `.to_dict()`, or a RunView)."""
    run = as_run_view(result)
    return [check(exp, run, map_size) for exp in expectations]


def check(expectation: Mapping, result: Any, map_size: tuple[float, float] | None = None) -> ExpectationResult:
    """Check one expectation; a malformed one yields a failed result naming the problem."""
    run = result if isinstance(result, RunView) else as_run_view(result)
    if isinstance(expectation, BaseModel):
        expectation = expectation.model_dump(mode="json", exclude_none=True)
    problems = validate(expectation)
    exp = dict(expectation) if isinstance(expectation, Mapping) else {"invalid": expectation}
    if problems:
        return ExpectationResult(exp, False, "invalid expectation: " + "; ".join(problems), _safe_describe(exp))
    if "result" in exp:
        passed, detail = _check_result(exp["result"], run)
    elif "state" in exp:
        passed, detail = _check_state(exp["state"], run)
    else:
        try:
            passed, detail = _check_events(exp, run, map_size)
        except ExpectationError as err:
            passed, detail = False, f"invalid expectation: {err}"
    return ExpectationResult(exp, passed, detail, describe(exp))


def validate(expectation: Any) -> list[str]:
    """Problems with the form of one expectation (empty when it is well formed), from its typed model."""
    try:
        _EXPECTATION.validate_python(expectation)
    except ValidationError as err:
        return [_problem(e) for e in err.errors()]
    return []


def _problem(error: Mapping) -> str:
    """One pydantic error as a sentence that names the key and what is allowed."""
    family = str(error["loc"][0]) if error["loc"] else ""
    loc = [str(p) for p in error["loc"][1:]]  # the first element is the family's union tag
    where = ".".join(loc)
    kind, value = error["type"], error.get("input")
    if kind == "expectation_family":
        return "an expectation needs exactly one of `event`, `result` or `state`"
    if kind == "extra_forbidden":
        section = "result key" if loc[:1] == ["result"] else ("state key" if loc[:1] == ["state"] else "key")
        allowed = _allowed_keys(loc[:-1], FAMILIES.get(family))
        return f"unknown {section} {loc[-1]!r}" + (f" (allowed: {', '.join(allowed)})" if allowed else "")
    if loc == ["event"]:
        return f"unknown event kind {value!r} (one of {', '.join(EVENT_KINDS)})"
    if kind in ("int_parsing", "float_parsing", "int_type", "float_type", "int_from_float"):
        return f"`{where}` must be a number, got {value!r}"
    if kind == "missing":
        return f"`{where}` is required"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def _allowed_keys(path: list[str], model: Any) -> list[str]:
    for part in path:
        field = getattr(model, "model_fields", {}).get(part)
        if field is None:
            return []
        model = next((a for a in getattr(field.annotation, "__args__", (field.annotation,)) if hasattr(a, "model_fields")), None)
    return sorted(getattr(model, "model_fields", {}))


def describe(expectation: Mapping) -> str:
    """One English sentence saying what the expectation demands."""
    if "result" in expectation:
        spec = expectation["result"]
        parts = [_describe_result_key(k, v) for k, v in spec.items()] if isinstance(spec, Mapping) else [repr(spec)]
        return "run outcome: " + ", ".join(parts)
    if "state" in expectation:
        return _describe_state(expectation["state"])
    what = f"{expectation.get('event')} events"
    where = expectation.get("where") or {}
    if where:
        what += " with " + ", ".join(f"{k}={_show(v)}" for k, v in where.items())
    after, before = expectation.get("after"), expectation.get("before")
    if after is not None and before is not None:
        what += f" between t={_num(after)}s and t={_num(before)}s"
    elif after is not None:
        what += f" at or after t={_num(after)}s"
    elif before is not None:
        what += f" at or before t={_num(before)}s"
    demands = []
    count = _count_bounds(expectation)
    if count is not None:
        demands.append("count " + _bounds_text(*count))
    if "distinct_sectors" in expectation:
        spec = expectation["distinct_sectors"]
        center = spec.get("center", "map_center")
        center_text = "the map centre" if center == "map_center" else f"({_num(center[0])}, {_num(center[1])})"
        demands.append(f"positions in {_bounds_text(spec.get('min', 1), spec.get('max'))} distinct of "
                       f"{spec.get('sectors', 8)} sectors around {center_text}")
    if "time_clusters" in expectation:
        spec = expectation["time_clusters"]
        demands.append(f">= {spec.get('min', 1)} time clusters separated by >= {_num(spec['gap'])}s"
                       + (f", <= {spec['max']}" if "max" in spec else ""))
    if "increasing" in expectation:
        spec = expectation["increasing"]
        demands.append(f"strictly increasing counts per time cluster (gap {_num(spec['gap'])}s)"
                       + (f", each >= {_num(spec['factor'])} x the previous" if spec.get("factor") is not None else ""))
    if "sectors_named" in expectation:
        spec = expectation["sectors_named"]
        center = spec.get("center", "map_center")
        center_text = "the map centre" if center == "map_center" else f"({_num(center[0])}, {_num(center[1])})"
        names = ", ".join(spec["names"])
        demands.append(f"time clusters (gap {_num(spec['gap'])}s) from sectors {names} in that order around {center_text}"
                       if spec.get("ordered") else f"positions in exactly the sectors {names} around {center_text}")
    if "cluster_times" in expectation:
        spec = expectation["cluster_times"]
        demands.append(f"exactly {len(spec['times'])} time clusters (gap {_num(spec['gap'])}s) starting at t="
                       + ", ".join(_num(t) for t in spec["times"]) + f" (+/- {_num(spec.get('tolerance', 10))}s)")
    if "values" in expectation:
        spec = expectation["values"]
        demands.append(f"every {spec['field']} {_range_text(spec.get('min'), spec.get('max'))}")
    return what + ": " + "; ".join(demands)


def as_run_view(result: Any) -> RunView:
    """Normalise a RunResult (pydantic/dataclass), its dict form, or a bare event list."""
    if isinstance(result, RunView):
        return result
    if isinstance(result, list):
        return RunView(events=list(result))
    data = result if isinstance(result, Mapping) else _object_fields(result)
    events = data.get("trace")
    if events is None and data.get("trace_path"):
        events = _read_jsonl(data["trace_path"])
    return RunView(
        events=list(events or []),
        winners=[int(t) for t in data.get("winners") or []],
        losers=[int(t) for t in data.get("losers") or []],
        reason=str(data.get("reason") or ""),
        ended_by=str(data.get("ended_by") or ""),
        duration=float(data.get("duration") or 0.0),
        states={float(t): v for t, v in (data.get("states") or {}).items()},
    )


def matching_events(expectation: Mapping, events: Iterable[Mapping]) -> list[Mapping]:
    """Events of the expectation's kind whose fields match `where` inside its time window."""
    kind = expectation.get("event")
    where = expectation.get("where") or {}
    after, before = expectation.get("after"), expectation.get("before")
    out = []
    for ev in events:
        if ev.get("event") != kind:
            continue
        t = float(ev.get("t", 0.0))
        if after is not None and t < after - 1e-9:
            continue
        if before is not None and t > before + 1e-9:
            continue
        if all(_matches(_lookup(ev, path), wanted) for path, wanted in where.items()):
            out.append(ev)
    return out


def sector_name(x: float, y: float, cx: float, cy: float, sectors: int = 8) -> str:
    """Compass sector of (x, y) seen from (cx, cy); y grows down the map, so north is smaller y."""
    dx, dy = x - cx, cy - y
    if math.hypot(dx, dy) < 1e-6:
        return "centre"
    width = 360.0 / sectors
    angle = math.degrees(math.atan2(dy, dx)) % 360.0
    index = int(((angle + width / 2) % 360.0) // width) % sectors
    names = _COMPASS.get(sectors)
    return names[index] if names else f"sector{index}"


def time_clusters(times: Iterable[float], gap: float) -> list[list[float]]:
    """Split sorted times into runs where consecutive times are less than `gap` apart."""
    clusters: list[list[float]] = []
    for t in sorted(times):
        if clusters and t - clusters[-1][-1] < gap:
            clusters[-1].append(t)
        else:
            clusters.append([t])
    return clusters


# --- event checks --------------------------------------------------------------------------------
def _check_events(exp: Mapping, run: RunView, map_size) -> tuple[bool, str]:
    events = matching_events(exp, run.events)
    label = _event_label(exp)
    checks: list[tuple[bool, str]] = []
    bounds = _count_bounds(exp)
    if bounds is not None:
        lo, hi = bounds
        times = _times_text([float(e.get("t", 0.0)) for e in events])
        checks.append((len(events) >= lo and (hi is None or len(events) <= hi),
                       f"{len(events)} {label}{times}; needed {_bounds_text(lo, hi)}"))
    for key, fn in _SHAPE_CHECKS.items():
        if key == "values" and key in exp and not events and bounds is not None and bounds[0] == 0:
            continue    # every matching event's value, and "min: 0" allows none: nothing to bound
        if key in exp:
            checks.append(fn(exp[key], events, label, map_size))
    passed = all(ok for ok, _ in checks)
    if len(checks) == 1:
        return passed, checks[0][1]
    # several checks on the same events: say which one failed
    return passed, " | ".join(("ok: " if ok else "FAILED: ") + note for ok, note in checks)


def _check_sectors(spec: Mapping, events: list[Mapping], label: str, map_size) -> tuple[bool, str]:
    n_sectors = int(spec.get("sectors", 8))
    need, most = int(spec.get("min", 1)), spec.get("max")
    center = spec.get("center", "map_center")
    if center == "map_center":
        if map_size is None:
            raise ExpectationError("distinct_sectors with center 'map_center' needs the map size")
        cx, cy = float(map_size[0]) / 2.0, float(map_size[1]) / 2.0
    else:
        cx, cy = float(center[0]), float(center[1])
    seen: dict[str, int] = {}
    unplaced = 0
    for ev in events:
        pos = _position(ev)
        if pos is None:
            unplaced += 1
            continue
        name = sector_name(pos[0], pos[1], cx, cy, n_sectors)
        seen[name] = seen.get(name, 0) + 1
    named = [s for s in seen if s != "centre"]
    order = _COMPASS.get(n_sectors)
    named.sort(key=lambda s: order.index(s) if order and s in order else s)
    listing = ", ".join(f"{s}:{seen[s]}" for s in named) or "none"
    note = (f"{label} in {len(named)} distinct sectors ({listing}) around ({_num(cx)}, {_num(cy)}); "
            f"needed {_bounds_text(need, most)}")
    if unplaced:
        note += f"; {unplaced} event(s) had no position"
    return len(named) >= need and (most is None or len(named) <= int(most)), note


def _check_clusters(spec: Mapping, events: list[Mapping], label: str, _map_size) -> tuple[bool, str]:
    gap = float(spec["gap"])
    clusters = time_clusters((float(e.get("t", 0.0)) for e in events), gap)
    need, most = int(spec.get("min", 1)), spec.get("max")
    ok = len(clusters) >= need and (most is None or len(clusters) <= int(most))
    return ok, (f"{label} form {len(clusters)} time clusters (gap >= {_num(gap)}s) {_clusters_text(clusters)}; "
                f"needed {_bounds_text(need, most)}")


def _check_increasing(spec: Mapping, events: list[Mapping], label: str, _map_size) -> tuple[bool, str]:
    gap = float(spec["gap"])
    clusters = time_clusters((float(e.get("t", 0.0)) for e in events), gap)
    need = int(spec.get("min_buckets", 2))
    counts = [len(c) for c in clusters]
    factor = spec.get("factor")
    rising = all(b > a and (factor is None or b >= float(factor) * a - 1e-9) for a, b in zip(counts, counts[1:]))
    ok = rising and len(counts) >= need
    growth = "strictly increasing" + (f", each >= {_num(factor)} x the previous" if factor is not None else "")
    verdict = growth if rising else "not " + growth
    return ok, (f"{label} per time cluster (gap >= {_num(gap)}s): counts {counts} {_clusters_text(clusters)} "
                f"are {verdict}; needed {growth} over >= {need} clusters")


def _center(spec: Mapping, map_size, shape: str) -> tuple[float, float]:
    center = spec.get("center", "map_center")
    if center == "map_center":
        if map_size is None:
            raise ExpectationError(f"{shape} with center 'map_center' needs the map size")
        return float(map_size[0]) / 2.0, float(map_size[1]) / 2.0
    return float(center[0]), float(center[1])


def _check_named_sectors(spec: Mapping, events: list[Mapping], label: str, map_size) -> tuple[bool, str]:
    cx, cy = _center(spec, map_size, "sectors_named")
    names = [str(n).upper() for n in spec["names"]]
    placed = [(float(e.get("t", 0.0)), _position(e)) for e in events]
    unplaced = sum(1 for _, pos in placed if pos is None)
    sectors = [(t, sector_name(pos[0], pos[1], cx, cy, 8)) for t, pos in placed if pos is not None]
    around = f"around ({_num(cx)}, {_num(cy)})"
    wanted = ", ".join(n.lower() for n in names)
    if spec.get("ordered"):
        gap = float(spec["gap"])
        clusters: list[list[tuple[float, str]]] = []
        for t, name in sorted(sectors):
            if clusters and t - clusters[-1][-1][0] < gap:
                clusters[-1].append((t, name))
            else:
                clusters.append([(t, name)])
        seen = [sorted({n for _, n in c}) for c in clusters]
        shown = "; ".join(f"t={_num(c[0][0])}: {'/'.join(s.lower() for s in ss)}" for c, ss in zip(clusters, seen))
        ok = len(clusters) == len(names) and all(ss == [n] for ss, n in zip(seen, names))
        note = (f"{label} form {len(clusters)} time clusters (gap >= {_num(gap)}s) from sectors [{shown or 'none'}] "
                f"{around}; needed exactly {len(names)} clusters in order [{wanted}]")
    else:
        counts: dict[str, int] = {}
        for _, name in sectors:
            counts[name] = counts.get(name, 0) + 1
        stray = sorted(n for n in counts if n not in names)
        missing = [n for n in names if n not in counts]
        ok = bool(sectors) and not stray and not missing
        listing = ", ".join(f"{n.lower()}:{k}" for n, k in sorted(counts.items())) or "none"
        note = (f"{label} by sector {around}: {listing}; needed every one of [{wanted}] and no other"
                + (f" (missing {', '.join(m.lower() for m in missing)})" if missing else "")
                + (f" (stray {', '.join(m.lower() for m in stray)})" if stray else ""))
    if unplaced:
        note += f"; {unplaced} event(s) had no position"
    return ok, note


def _check_cluster_times(spec: Mapping, events: list[Mapping], label: str, _map_size) -> tuple[bool, str]:
    gap, tol = float(spec["gap"]), float(spec.get("tolerance", 10.0))
    times = [float(t) for t in spec["times"]]
    clusters = time_clusters((float(e.get("t", 0.0)) for e in events), gap)
    starts = [c[0] for c in clusters]
    off = [i for i, (s, t) in enumerate(zip(starts, times)) if abs(s - t) > tol + 1e-9]
    ok = len(clusters) == len(times) and not off
    return ok, (f"{label} form {len(clusters)} time clusters (gap >= {_num(gap)}s) starting at "
                f"t=[{', '.join(_num(s) for s in starts)}]; needed exactly {len(times)} starting at "
                f"t=[{', '.join(_num(t) for t in times)}] (+/- {_num(tol)}s)"
                + (f"; cluster(s) {', '.join(str(i + 1) for i in off)} off time" if off else ""))


def _check_values(spec: Mapping, events: list[Mapping], label: str, _map_size) -> tuple[bool, str]:
    path, lo, hi = spec["field"], spec.get("min"), spec.get("max")
    found = [_lookup(e, path) for e in events]
    values = [float(v) for v in found if _is_number(v)]
    lacking = len(found) - len(values)
    outside = [v for v in values if (lo is not None and v < lo - 1e-9) or (hi is not None and v > hi + 1e-9)]
    ok = bool(values) and not outside and not lacking
    shown = ", ".join(_num(v) for v in values[:8]) + (", ..." if len(values) > 8 else "")
    return ok, (f"{label}: {path} = [{shown}]; needed every value {_range_text(lo, hi)}"
                + (f" ({len(outside)} outside)" if outside else "")
                + (f" ({lacking} event(s) without a numeric {path})" if lacking else "")
                + ("" if events else " (no matching events)"))


_SHAPE_CHECKS = {"distinct_sectors": _check_sectors, "time_clusters": _check_clusters, "increasing": _check_increasing,
                 "sectors_named": _check_named_sectors, "cluster_times": _check_cluster_times, "values": _check_values}


# --- state checks --------------------------------------------------------------------------------
def state_times(expectations: Iterable[Any]) -> list[float]:
    """The game seconds at which `expectations` read the engine state."""
    times = set()
    for exp in expectations:
        spec = exp.get("state") if isinstance(exp, Mapping) else getattr(exp, "state", None)
        at = spec.get("at") if isinstance(spec, Mapping) else getattr(spec, "at", None)
        if _is_number(at):
            times.add(float(at))
    return sorted(times)


def sample_state(sim: Any) -> dict:
    """What state expectations read: living units and every team's resources, now."""
    w = sim.world
    units = [{k: u[k] for k in ("id", "type", "team", "tag", "x", "y", "hp", "max_hp")}
             for u in map(w.unit_dict, w.alive_idx.tolist())]
    teams = {str(t): {"metal": round(float(s.metal), 3), "energy": round(float(s.energy), 3),
                      "allies": sorted(int(a) for a in s.allies if a != t)} for t, s in sim.teams.items()}
    return {"t": round(float(sim.time), 3), "units": units, "teams": teams}


def run_sampled(sim: Any, until: float | None, times: Iterable[float]) -> tuple[Any, dict[float, dict]]:
    """Run `sim` like `sim.run(until)`, sampling the state at each of `times` (at the end if it ends earlier)."""
    samples: dict[float, dict] = {}
    for t in sorted(times):
        stop = t if until is None else min(t, until)
        while not sim.done and sim.time < stop - 1e-9:
            sim.step()
        samples[t] = sample_state(sim)
    return sim.run(until=until), samples


def _check_state(spec: Mapping, run: RunView) -> tuple[bool, str]:
    at = float(spec["at"])
    sample = run.states.get(at)
    if sample is None:
        return False, (f"no state sample at t={_num(at)}s: this run was not sampled (rule tests and requirement "
                       "evidence sample the state while the run plays)")
    failures, observed = [], []
    if "units_min" in spec or "units_max" in spec:
        n = sum(1 for u in sample["units"] if _unit_matches(u, spec))
        observed.append(f"{n} matching units")
        lo, hi = spec.get("units_min", 0), spec.get("units_max")
        if n < lo or (hi is not None and n > hi):
            failures.append(f"{n} matching units, needed {_bounds_text(lo, hi)}")
    if any(spec.get(k) is not None for k in TEAM_COUNT_KEYS):
        observed_teams, team_failures = _team_counts(spec, sample)
        observed.append(observed_teams)
        failures += team_failures
    team = sample["teams"].get(str(spec.get("team")), {})
    for res in ("metal", "energy"):
        lo, hi = spec.get(f"{res}_min"), spec.get(f"{res}_max")
        if lo is None and hi is None:
            continue
        have = float(team.get(res, 0.0))
        observed.append(f"{res} {have:g}")
        if (lo is not None and have < lo - 1e-9) or (hi is not None and have > hi + 1e-9):
            failures.append(f"team {spec.get('team')} {res} is {have:g}, needed {_bounds_text(lo if lo is not None else 0, hi)}")
    when = f"at t={_num(sample['t'])}s" + ("" if abs(sample["t"] - at) < 1e-6 else f" (the run ended before t={_num(at)}s)")
    if failures:
        return False, "; ".join(failures) + f" {when}"
    return True, ", ".join(observed) + f" {when}"


def _team_counts(spec: Mapping, sample: Mapping) -> tuple[str, list[str]]:
    """Teams owning a matching living unit, grouped into alliances (connected through `allies`)."""
    owners = sorted({int(u["team"]) for u in sample["units"] if _unit_matches(u, spec)})
    allies = {int(t): {int(a) for a in info.get("allies", [])} for t, info in sample["teams"].items()}
    alliances: list[list[int]] = []
    left = set(owners)
    while left:
        group, todo = set(), [min(left)]
        while todo:
            t = todo.pop()
            if t in group or t not in left:
                continue
            group.add(t)
            todo += [a for a in allies.get(t, set()) if a in left]
            todo += [o for o in left if t in allies.get(o, set())]
        left -= group
        alliances.append(sorted(group))
    sizes = sorted({len(a) for a in alliances})
    failures = []
    for key, have in (("teams", len(owners)), ("alliances", len(alliances))):
        lo, hi = spec.get(f"{key}_min"), spec.get(f"{key}_max")
        if (lo is not None and have < lo) or (hi is not None and have > hi):
            failures.append(f"{have} {key}, needed {_bounds_text(lo or 0, hi)}")
    size = spec.get("alliance_size")
    if size is not None and sizes != [int(size)]:
        failures.append(f"alliance sizes {sizes or 'none'}, needed every alliance of exactly {size}")
    shown = " ".join("{" + ",".join(map(str, a)) + "}" for a in alliances) or "none"
    return f"{len(owners)} teams in {len(alliances)} alliances ({shown})", failures


def _unit_matches(unit: Mapping, spec: Mapping) -> bool:
    for key in ("team", "type", "tag"):
        if spec.get(key) is not None and unit.get(key) != spec[key]:
            return False
    area = spec.get("within")
    if area is not None and math.hypot(unit["x"] - area["x"], unit["y"] - area["y"]) > area["radius"]:
        return False
    hp, share = unit.get("hp", 0.0), unit.get("hp", 0.0) / max(unit.get("max_hp", 1.0), 1e-9)
    for have, key in ((hp, "hp"), (share, "hp_share")):
        lo, hi = spec.get(f"{key}_min"), spec.get(f"{key}_max")
        if (lo is not None and have < lo - 1e-9) or (hi is not None and have > hi + 1e-9):
            return False
    return True


def _describe_state(spec: Mapping) -> str:
    parts = []
    if "units_min" in spec or "units_max" in spec:
        who = " ".join(str(spec[k]) for k in ("type",) if spec.get(k)) or "units"
        filters = [f"team {spec['team']}" if spec.get("team") is not None else "", f"tagged {spec['tag']}" if spec.get("tag") else ""]
        area = spec.get("within")
        if area:
            filters.append(f"within {_num(area['radius'])} of ({_num(area['x'])}, {_num(area['y'])})")
        for key, what in (("hp", "hp"), ("hp_share", "share of max hp")):
            if spec.get(f"{key}_min") is not None or spec.get(f"{key}_max") is not None:
                filters.append(f"with {what} {_bounds_text(spec.get(f'{key}_min') or 0, spec.get(f'{key}_max'))}")
        parts.append(f"living {who} " + " ".join(f for f in filters if f) + f": count {_bounds_text(spec.get('units_min', 0), spec.get('units_max'))}")
    for key in ("teams", "alliances"):
        if spec.get(f"{key}_min") is not None or spec.get(f"{key}_max") is not None:
            parts.append(f"{key} owning matching units: {_bounds_text(spec.get(f'{key}_min') or 0, spec.get(f'{key}_max'))}")
    if spec.get("alliance_size") is not None:
        parts.append(f"every alliance of exactly {spec['alliance_size']} team(s)")
    for res in ("metal", "energy"):
        if spec.get(f"{res}_min") is not None or spec.get(f"{res}_max") is not None:
            parts.append(f"team {spec.get('team')} {res} {_bounds_text(spec.get(f'{res}_min') or 0, spec.get(f'{res}_max'))}")
    return f"state at t={_num(spec['at'])}s: " + "; ".join(parts)


# --- result checks -------------------------------------------------------------------------------
def _check_result(spec: Mapping, run: RunView) -> tuple[bool, str]:
    observed = (f"winners={run.winners} losers={run.losers} ended_by={run.ended_by!r} "
                f"reason={run.reason!r} duration={_num(run.duration)}s")
    failures = []
    for key, value in spec.items():
        if key == "winners_include":
            missing = [int(t) for t in _as_list(value) if int(t) not in run.winners]
            if missing:
                failures.append(f"team(s) {missing} not among winners")
        elif key == "winners_exclude":
            present = [int(t) for t in _as_list(value) if int(t) in run.winners]
            if present:
                failures.append(f"team(s) {present} among winners")
        elif key == "losers_include":
            missing = [int(t) for t in _as_list(value) if int(t) not in run.losers]
            if missing:
                failures.append(f"team(s) {missing} not among losers")
        elif key == "losers_exclude":
            present = [int(t) for t in _as_list(value) if int(t) in run.losers]
            if present:
                failures.append(f"team(s) {present} among losers")
        elif key == "ended_by":
            if run.ended_by not in _as_list(value):
                failures.append(f"ended_by is {run.ended_by!r}, wanted {_show(value)}")
        elif key == "reason_contains":
            if str(value).lower() not in run.reason.lower():
                failures.append(f"reason does not contain {str(value)!r}")
        elif key == "duration_min":
            if run.duration < float(value) - 1e-9:
                failures.append(f"duration {_num(run.duration)}s < {_num(value)}s")
        elif key == "duration_max":
            if run.duration > float(value) + 1e-9:
                failures.append(f"duration {_num(run.duration)}s > {_num(value)}s")
    if failures:
        return False, "; ".join(failures) + f" (observed {observed})"
    return True, f"observed {observed}"


def _describe_result_key(key: str, value: Any) -> str:
    texts = {
        "winners_include": "winners include {v}", "winners_exclude": "winners exclude {v}",
        "losers_include": "losers include {v}", "losers_exclude": "losers exclude {v}",
        "ended_by": "ended by {v}", "reason_contains": "reason mentions {v}",
        "duration_min": "lasts >= {v}s", "duration_max": "lasts <= {v}s",
    }
    return texts.get(key, key + " {v}").format(v=_show(value))


# --- helpers -------------------------------------------------------------------------------------
def _lookup(event: Mapping, path: str) -> Any:
    node: Any = event
    for part in str(path).split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING = _Missing()


def _matches(actual: Any, wanted: Any) -> bool:
    if actual is _MISSING:
        return False
    if isinstance(actual, list):    # a list field (a rule event's ids, from, teams) matches a value it holds
        return any(_matches(a, wanted) for a in actual)
    if isinstance(wanted, list):
        return any(_matches(actual, w) for w in wanted)
    if _is_number(actual) and _is_number(wanted):
        return math.isclose(float(actual), float(wanted), abs_tol=1e-9)
    if isinstance(actual, str) and _is_number(wanted):
        return actual == str(wanted)
    if isinstance(wanted, str) and _is_number(actual):  # YAML may quote team ids
        return str(actual) == wanted or (wanted.lstrip("-").isdigit() and int(wanted) == actual)
    return actual == wanted


def _position(event: Mapping) -> tuple[float, float] | None:
    """Event position: top-level x/y (spawn, death) or fields.x/fields.y (rule_log)."""
    for holder in (event, event.get("fields") if isinstance(event.get("fields"), Mapping) else None):
        if holder and _is_number(holder.get("x")) and _is_number(holder.get("y")):
            return float(holder["x"]), float(holder["y"])
    return None


def _count_bounds(exp: Mapping) -> tuple[int, int | None] | None:
    """Count bounds to enforce; a bare event expectation means 'at least one'."""
    if "min" in exp or "max" in exp:
        return int(exp.get("min", 0)), (int(exp["max"]) if exp.get("max") is not None else None)
    if any(k in exp for k in _SHAPE_CHECKS):
        return None
    return 1, None


def _range_text(lo: Any, hi: Any) -> str:
    if lo is not None and hi is not None:
        return f"in [{_num(lo)}, {_num(hi)}]"
    return f">= {_num(lo)}" if lo is not None else f"<= {_num(hi)}"


def _bounds_text(lo: Any, hi: Any) -> str:
    if hi is None:
        return f">= {lo}"
    if lo in (0, None):
        return f"<= {hi}"
    return f"{lo}..{hi}" if lo != hi else f"exactly {lo}"


def _event_label(exp: Mapping) -> str:
    label = f"{exp['event']} events"
    where = exp.get("where") or {}
    if where:
        label += " (" + ", ".join(f"{k}={_show(v)}" for k, v in where.items()) + ")"
    after, before = exp.get("after"), exp.get("before")
    if after is not None or before is not None:
        label += f" in t=[{_num(after) if after is not None else 0}, {_num(before) if before is not None else 'end'}]"
    return label


def _times_text(times: list[float], limit: int = 8) -> str:
    if not times:
        return ""
    distinct = sorted(set(round(t, 1) for t in times))
    shown = ", ".join(_num(t) for t in distinct[:limit]) + (", ..." if len(distinct) > limit else "")
    return f" at t=[{shown}]"


def _clusters_text(clusters: list[list[float]], limit: int = 8) -> str:
    parts = [f"{_num(c[0])}" if c[0] == c[-1] else f"{_num(c[0])}-{_num(c[-1])}" for c in clusters[:limit]]
    return "at t=[" + ", ".join(parts) + (", ..." if len(clusters) > limit else "") + "]"


def _object_fields(obj: Any) -> dict:
    names = ("trace", "trace_path", "winners", "losers", "reason", "ended_by", "duration")
    if any(hasattr(obj, k) for k in names):  # read attributes: to_dict() would deep-copy the trace
        return {k: getattr(obj, k) for k in names if hasattr(obj, k)}
    if hasattr(obj, "model_dump"):
        return obj.model_dump()
    return obj.to_dict() if hasattr(obj, "to_dict") else {}


def _read_jsonl(path: Any) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def _safe_describe(exp: Mapping) -> str:
    try:
        return describe(exp)
    except Exception:  # a malformed expectation still gets a readable label
        return repr(dict(exp))


def _as_list(value: Any) -> list:
    return list(value) if isinstance(value, (list, tuple, set)) else [value]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_int_like(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, str) and value.isdigit())


def _is_point(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and len(value) == 2 and all(_is_number(v) for v in value)


def _num(value: Any) -> str:
    v = float(value)
    return str(int(v)) if v.is_integer() else f"{v:.1f}"


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "any of [" + ", ".join(str(v) for v in value) + "]"
    return str(value)
