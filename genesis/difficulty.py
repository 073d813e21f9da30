"""Difficulty on request: the certificate's band, and a search of the design's balance knob for it.

The band comes from the certificate's ladder (easy: a cheap policy wins some seed; medium: none does,
the blind replay wins some; hard: neither). When a request asks for a band the level misses, the
design's `variation.knob` ('<rule id>.<param>': an enemy strength, wave size or interval, a
deadline) is scaled and each trial level certified on every seed: the factor is bracketed by
doubling away from the level as built, then bisected (geometrically), and the first trial whose
certificate holds in the asked band wins. Every trial is recorded.

With no band asked, the same search rebalances a level its reference cannot win on every seed, or that
a cheap policy wins everywhere: any certified band will do, so the first trial that certifies (the
reference wins every seed, no cheap policy wins them all) is the level that ships.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel

BANDS = ("easy", "medium", "hard")
# How hard a certificate's level plays, on one scale: a level a cheap policy wins everywhere is below
# easy, one the reference cannot win above hard.
RANK = {"trivial": 0, "easy": 1, "medium": 2, "hard": 3, "impossible": 4}
MAX_TRIALS = 5
MIN_FACTOR, MAX_FACTOR = 0.25, 4.0
# with no band asked the search only rebalances: the level stays near the design (a knob scaled x4 was a convoy
# halting 48 s where the agent was told 'a few seconds')
REBALANCE_FACTOR = 2.0
# params where a larger value gives the player more time: larger is easier
EASIER_WHEN_LARGER = ("interval", "delay", "deadline", "time", "first_at", "gap", "hold", "limit")


class Trial(BaseModel):
    factor: float
    value: Any
    band: str | None
    certified: bool
    held: bool | None = None           # every requirement holds on it (certified trials of a checked search)
    why: str = ""                      # what kept it from shipping: the certificate's failed checks, or requirements


TRIAL_WHY_CHARS = 160


def trial_why(got: dict, failed: str = "") -> str:
    """Why a trial did not ship, short: each failed certificate check by name, or the requirements it failed."""
    from genesis.checks.messages import shorten     # here: the checks package imports the models, which import this
    checks = got.get("checks") or {}
    said = [f"{name}: {c.get('detail', '')}" for name, c in checks.items() if not c.get("passed")]
    if failed:
        said.append(failed)
    return shorten("; ".join(said) or ("not in the wanted band" if got.get("valid") else "not certified"),
                   TRIAL_WHY_CHARS)


class DifficultySearch(BaseModel):
    asked: str
    knob: str | None
    found: bool
    start_band: str | None
    value: Any = None                  # the knob's value in the level that shipped
    because: str = ""                  # why the search ran, in the run's own terms (what failed, which way it went)
    trials: list[Trial] = []
    note: str = ""


def band_of(cert: dict | None) -> str | None:
    """The certificate's band, 'impossible' when the reference loses a seed, 'trivial' when a cheap
    policy wins every seed; None when the certificate says neither (e.g. it was skipped)."""
    if not cert or cert.get("skipped"):
        return None
    checks = cert.get("checks") or {}
    if cert.get("impossible") or not (checks.get("reference_wins") or {}).get("passed", True):
        return "impossible"
    if cert.get("trivial") or not (checks.get("no_cheap_win") or {}).get("passed", True):
        return "trivial"
    return cert.get("difficulty")


def tunable(cert: dict | None) -> bool:
    """A balance knob can move this certificate's band: it failed, if at all, only on who wins."""
    failing = {name for name, c in ((cert or {}).get("checks") or {}).items() if not c.get("passed")}
    return bool(cert) and not cert.get("skipped") and failing <= {"reference_wins", "no_cheap_win", "idle_loses"}


# what a certified trial's requirements say (see `search`'s `holds`)
HELD, SHORT, PAST = "held", "short", "past"
# a level that fails only on these at validation lost on balance: its knob may rebalance it
REBALANCED = frozenset({"check:reference_wins", "check:outcome_discrimination", "check:requirement_evidence"})


def tuning_target(asked: str | None, cert: dict | None, failing: set[str], level: dict,
                  knob: str | None, careless_unpunished: bool = False) -> tuple[str, tuple[str, ...]] | None:
    """(the band the level plays, the bands wanted) when the knob search should run before the gate,
    None when the gate judges the level as it is. `failing` are the kinds of the mandatory criteria the
    validation failed (the certificate only runs on a level that passes them all); `careless_unpunished`:
    every requirement that failed is on a careless run (idle, rush, a probe), so the level plays too easy
    for what it says such a player suffers ('trivial': the search makes it harder until they hold)."""
    want = (asked,) if asked else BANDS
    has_knob = knob_param(level, knob) is not None
    if failing:
        lost = "check:reference_wins" in failing and failing <= REBALANCED
        if lost and has_knob:
            return "impossible", want
        easy = failing == {"check:requirement_evidence"} and careless_unpunished
        return ("trivial", want) if easy and has_knob else None
    band = band_of(cert)
    if asked:
        return (band, want) if band != asked and tunable(cert) else None
    return (band, want) if band in ("trivial", "impossible") and tunable(cert) and has_knob else None


def knob_param(level: dict, knob: str | None) -> tuple[int, str, Any] | None:
    """(rule index, param, value) of a numeric knob '<rule id>.<param>' of `level`, or None."""
    if not knob or "." not in knob:
        return None
    rid, param = knob.split(".", 1)
    for i, rule in enumerate(level.get("rules") or []):
        if rule.get("id") == rid and _numeric(rule.get("params", {}).get(param)):
            return i, param, rule["params"][param]
    return None


def _numeric(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    if isinstance(value, dict):
        return bool(value) and all(_numeric(v) for v in value.values())
    if isinstance(value, list):
        return bool(value) and all(_numeric(v) for v in value)
    return False


def scaled(value: Any, factor: float) -> Any:
    """`value` times `factor`: integers stay integers of at least 1, containers scale every member."""
    if isinstance(value, dict):
        return {k: scaled(v, factor) for k, v in value.items()}
    if isinstance(value, list):
        return [scaled(v, factor) for v in value]
    if isinstance(value, int):
        return max(1, round(value * factor))
    return round(value * factor, 2)


def harder_when_larger(param: str) -> bool:
    return not any(w in param.lower() for w in EASIER_WHEN_LARGER)


def search(level_path: Path, start: str | None, want: tuple[str, ...], knob: str | None,
           certify: Callable[[Path], dict], holds: Callable[[Path], tuple[str, str]] | None = None,
           harder: str | None = None, widest: float = MAX_FACTOR) -> tuple[DifficultySearch, dict | None, dict | None]:
    """Tunes `knob` of the level at `level_path`, which plays in band `start`, until a trial certifies in
    one of the bands `want` and, with `holds`, its requirements hold on it (`holds(path)`: (HELD, ""); SHORT
    when only requirements that failed before still fail: not far enough; PAST when one that held before fails:
    too far; each with the failed requirements said). Returns the search, and the tuned level config and its
    certificate when one was found.
    `harder`: 'larger' or 'smaller', the way the knob makes the game harder (else read from its name);
    `widest`: the largest factor tried either way (x 1/widest .. x widest)."""
    asked = " or ".join(want)
    level = json.loads(Path(level_path).read_text())
    record = DifficultySearch(asked=asked, knob=knob, found=False, start_band=start)
    found = knob_param(level, knob)
    if start is None or start not in RANK:
        record.note = "the certificate gives no band to tune from"
        return record, None, None
    if found is None:
        record.note = (f"the design declares no numeric balance knob ('<rule id>.<param>') to tune; knob: {knob!r}"
                       if knob else "the design declares no balance knob (variation.knob) to tune")
        return record, None, None
    index, param, base = found
    record.value = base
    low, high = min(RANK[b] for b in want), max(RANK[b] for b in want)

    def below(band: str) -> bool:           # plays easier than every wanted band
        return RANK[band] < low

    larger_is_harder = harder_when_larger(param) if harder is None else harder == "larger"
    going_harder = below(start)
    step = 1 if going_harder == larger_is_harder else -1    # log2 of the factor's direction
    lo, hi = 0.0, None                  # log2 factors: lo on the start's side of the wanted bands, hi past them
    trials_left, exponent = MAX_TRIALS, float(step)
    while trials_left:
        factor = 2.0 ** exponent
        if not 1 / widest - 1e-9 <= factor <= widest + 1e-9:
            break
        trials_left -= 1
        trial = json.loads(json.dumps(level))
        trial["rules"][index]["params"][param] = value = scaled(base, factor)
        path = Path(level_path).with_name(f"level.difficulty-{len(record.trials) + 1}.json")
        path.write_text(json.dumps(trial))
        try:
            got = certify(path)
            band = band_of(got)
            certified = band in want and bool(got.get("valid"))
            said, failed = holds(path) if holds is not None and certified else (HELD if certified else None, "")
        finally:
            path.unlink(missing_ok=True)
        record.trials.append(Trial(factor=round(factor, 3), value=value, band=band, certified=bool(got.get("valid")),
                                   held=None if holds is None or said is None else said == HELD,
                                   why="" if said == HELD else trial_why(got, failed)))
        if said == HELD:
            record.found, record.value = True, value
            record.note = f"{knob} x{factor:.3g}: {base} -> {value}"
            return record, trial, got
        if band is None or band not in RANK:
            break
        if said == PAST:
            hi = exponent
        elif band in want or below(band) == going_harder:     # still on the start's side (or in band, not yet valid)
            lo = exponent
        else:
            hi = exponent
        exponent = exponent + step if hi is None else (lo + hi) / 2
    tried = "; ".join(f"{t.value} ({t.band or 'no band'}: {t.why})" for t in record.trials)
    record.note = (f"no value of {knob} within x{1 / widest:g}-x{widest:g} certified in the {asked} band"
                   + (" with every requirement holding" if holds is not None else "")
                   + f" after {len(record.trials)} trial(s)" + (f"; tried {base} -> {tried}" if tried else ""))
    return record, None, None


def difficulty_reason(asked: str | None, cert: dict | None, search_record: dict | None) -> tuple[bool, str]:
    """The difficulty criterion: the band asked for (if any) is the certificate's band."""
    band = band_of(cert)
    if not asked:
        return True, f"no difficulty asked; the level plays {band or 'without a band (no certificate)'}"
    if band == asked:
        tuned = (search_record or {}).get("note") if (search_record or {}).get("found") else ""
        return True, f"{asked} as asked" + (f" (tuned: {tuned})" if tuned else "")
    why = f"asked for {asked}, the certificate's ladder puts the level at {band or 'no band'}"
    if search_record:
        why += f"; knob search: {search_record.get('note')}"
    way = "harder" if band and RANK.get(band, 0) < RANK[asked] else "easier"
    return False, f"{why}. Make the design {way} (the enemy, its timings or the deadline), or declare a numeric " \
                  f"variation.knob the pipeline can tune"
