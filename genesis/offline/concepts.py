"""Reads a request and recognises the scenario concepts of the offline vocabulary."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from genesis.models import Concepts
from genesis.offline import vocabulary as V

# "two versus two" reads as "2v2"
_SMALL = {"one": 1, "two": 2, "three": 3, "four": 4}
_WORD_TEAMS = re.compile(r"\b(one|two|three|four)\s+(?:versus|vs\.?|against)\s+(one|two|three|four)\b")
_NUM = r"(\d+(?:\.\d+)?|" + "|".join(sorted(V.NUMBER_WORDS, key=len, reverse=True)) + r")"
_UNIT = r"(minutes?|mins?|seconds?|secs?|s|m)\b"
_WORD_UNIT = r"(minutes?|mins?|seconds?|secs?)\b"   # spelled out: a bare "m" / "s" would match inside words


@dataclass
class Reading:
    concepts: Concepts
    is_game: bool
    refusal: str | None = None
    assumptions: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    matched: list[str] = field(default_factory=list)


def number(word: str) -> float:
    return float(word) if word[0].isdigit() else float(V.NUMBER_WORDS[word])


def _seconds(value: str, unit: str) -> float:
    return number(value) * (60.0 if unit.startswith("m") else 1.0)


def _has(text: str, phrase: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(phrase) + r"(?![\w-])", text) is not None


def _count_before(text: str, nouns: str) -> int | None:
    m = re.search(_NUM + r"\s+(?:\w+\s+){0,2}?(?:" + nouns + r")\b", text)
    return int(number(m.group(1))) if m else None


def is_english(text: str) -> bool:
    """Mostly ASCII letters, and not more foreign function words ("deux", "contre", "gegen") than English ones."""
    letters = [c for c in text if c.isalpha()]
    if not letters or sum(c.isascii() for c in letters) / len(letters) <= 0.9:
        return False
    words = re.findall(r"[^\W\d_]+", text.lower())
    foreign = sum(w in V.FOREIGN_FUNCTION_WORDS for w in words)
    english = sum(w in V.ENGLISH_FUNCTION_WORDS for w in words)
    return foreign == 0 or english > foreign


def read(query: str) -> Reading:
    text = " ".join(query.lower().split())
    c = Concepts()
    r = Reading(concepts=c, is_game=True)

    if not is_english(text):
        r.is_game = False
        r.refusal = ("the offline backend understands English requests only; rephrase in English or use a real "
                     "model with --model")
        return r
    words = set(re.findall(r"[a-z0-9-]+", text))
    hits = sorted(words & V.GAME_WORDS)
    if not hits:
        r.is_game = False
        r.refusal = ("this does not read as an RTS scenario request: none of the game words the offline backend "
                     "knows (defend, attack, waves, produce, destroy, survive, teams, ...) appear in it")
        return r
    r.matched.append("game words: " + ", ".join(hits[:8]))

    if any(w in text for w in V.FORBIDDEN_RULE_WORDS):
        r.unsupported.append("rule scripts run in a sandbox with the rule API only; requests for os/io/files/"
                             "shell access were ignored")

    for arch, triggers in V.ARCHETYPE_TRIGGERS.items():
        if any(_has(text, t) for t in triggers):
            c.archetype = arch  # type: ignore[assignment]
            r.matched.append(f"archetype {arch}")
            break

    # "build 4 light tanks", "train two assault bots": a unit count to obtain is a production goal
    units_re = "|".join(re.escape(n) for n in sorted(V.PRODUCIBLE_NAMES, key=len, reverse=True))
    if c.archetype in ("defense", "raids") and re.search(
            r"\b(?:build|train|make|get|own|field)\s+" + _NUM + r"\s+(?:" + units_re + ")", text):
        c.archetype = "production"
        r.matched.append("archetype production (a unit count to obtain)")

    # teams: "four teams", "2v2", "free-for-all"
    m = re.search(r"(\d)\s*v\s*(\d)", _WORD_TEAMS.sub(lambda w: f"{_SMALL[w.group(1)]}v{_SMALL[w.group(2)]}", text))
    if m:
        c.team_size = int(m.group(1))
        if m.group(1) != m.group(2):
            r.unsupported.append(f"uneven sides ({m.group(1)}v{m.group(2)}) are played as "
                                 f"{m.group(1)}v{m.group(1)}: team battles are symmetric")
        c.teams = 2
        if c.archetype not in ("teams",):
            c.archetype = "teams"
        r.matched.append(f"{m.group(1)}v{m.group(2)} teams")
    n_teams = _count_before(text, r"teams?|players|sides|factions|armies")
    if n_teams and c.archetype == "ffa":
        c.teams = max(3, min(n_teams, 4))
        if n_teams > 4:
            r.unsupported.append(f"{n_teams} teams requested; the largest free-for-all map holds 4")
    elif c.archetype == "ffa":
        c.teams = 4
        r.assumptions.append("no team count given: 4 teams")

    c.fronts = _count_before(text, r"fronts?|directions?|sides|approaches|lanes")
    if c.fronts is None and "multiple directions" in text:
        c.fronts = 3
    if "two allied bases" in text or "two bases" in text:
        c.allied_bases = 2
        c.fronts = c.fronts or 2
    c.objectives = _count_before(text, r"metal storages?|storages?|objectives?|extractors?|bases|generators?")
    for phrase, unit_type in sorted(V.OBJECTIVE_TYPES.items(), key=lambda kv: -len(kv[0])):
        # "the enemy commander" names an attacker, not something of yours to protect
        if _has(text, phrase) and not re.search(r"(?:enemy|their|opponent'?s?)\s+" + re.escape(phrase), text):
            c.objective_type = unit_type
            break

    c.waves = _count_before(text, r"waves?|attacks|assaults")
    c.staggered = any(_has(text, w) for w in ("staggered", "one after another", "different times", "early", "late"))
    c.escalating = any(_has(text, w) for w in ("larger than the last", "escalating", "growing", "bigger each", "increasing", "each larger"))
    c.random_side = any(_has(text, w) for w in ("random side", "random sides", "random direction", "random directions",
                                                 "random approach", "whichever side", "anywhere", "any side",
                                                 "any direction"))
    if c.random_side and c.fronts == 1:
        c.fronts = None     # "from a random direction" is one of several, not a single front
    c.scouting = "scout" in text
    c.random_timing = any(_has(text, w) for w in V.RANDOM_TIMING_TRIGGERS)

    # times: "at minute 3", "at 90 seconds", "every two minutes", "for 10 minutes", "after 30 minutes"
    # kept in the order the request names them; an air assault's time goes last (see below)
    found = [(m.start(), number(m.group(1)) * 60) for m in re.finditer(r"(?:at|by)\s+minute\s+" + _NUM, text)]
    found += [(m.start(), _seconds(m.group(1), m.group(2))) for m in re.finditer(r"at\s+" + _NUM + r"\s*" + _UNIT, text)]
    found.sort()
    m = re.search(r"every\s+(?:" + _NUM + r"\s+)?" + _UNIT, text)
    if m:
        c.wave_interval = _seconds(m.group(1) or "1", m.group(2))
    limit = None
    m = re.search(r"(?:survive|for|within|after|in|lasting|last|before)\s+(?:the\s+first\s+)?" + _NUM + r"\s*" + _UNIT, text)
    if m:
        limit = _seconds(m.group(1), m.group(2))
    # "a 20-minute limit", "20 minute deadline", "time limit of 8 minutes", "15 minutes long"
    m = m or re.search(r"\b" + _NUM + r"[\s-]*" + _WORD_UNIT + r"[\s-]*(?:time\s+)?(?:limit|deadline|timer|game|match|"
                       r"battle|long)\b", text) \
        or re.search(r"\b(?:limit|deadline|timer)\s+(?:of\s+)?" + _NUM + r"\s*" + _UNIT, text)
    if m and limit is None:
        limit = _seconds(m.group(1), m.group(2))
    if limit is None:
        # a bare duration ("..., 4 minutes, ...") that is no wave time ("at 2 minutes") or interval ("every")
        for m in re.finditer(r"\b" + _NUM + r"[\s-]*" + _WORD_UNIT, text):
            before = text[:m.start()].split()[-1:] or [""]
            if before[0] not in ("at", "every", "by", "minute", "each", "of"):
                limit = _seconds(m.group(1), m.group(2))
                break
    if limit is not None:
        if limit > 3600:
            r.unsupported.append(f"a {limit / 60:.0f}-minute game exceeds the 60-minute cap; capped")
            limit = 3600.0
        c.time_limit = limit

    c.air = any(_has(text, t) for t in V.UNIT_KIND_TRIGGERS["air"])
    if c.air and len(found) > 1:
        # the time named closest to the air words is the air assault's: designs read it as the last one
        air_at = min(m.start() for t in V.UNIT_KIND_TRIGGERS["air"] for m in re.finditer(re.escape(t), text))
        found.sort(key=lambda f: abs(f[0] - air_at))
        found = sorted(found[1:]) + found[:1]
    c.wave_times = [t for _, t in found]
    c.ground = not c.air or any(_has(text, w) for w in ("ground", "land"))
    c.unit_kinds = [k for k, ts in V.UNIT_KIND_TRIGGERS.items() if any(_has(text, t) for t in ts)]
    if "artillery only" in text or "only artillery" in text:
        c.unit_kinds = ["artillery"]

    if _has(text, "no production") or _has(text, "without production") or _has(text, "fixed forces"):
        c.production = False
    elif c.archetype == "production" or _has(text, "production"):
        c.production = True
    if re.search(r"fog of war (?:on|enabled)|with fog|fog on", text):
        c.fog = True
    elif re.search(r"fog of war off|no fog|without fog|fog off", text):
        c.fog = False

    for phrase, unit_type in sorted(V.PRODUCIBLE_NAMES.items(), key=lambda kv: -len(kv[0])):
        m = re.search(_NUM + r"\s+" + re.escape(phrase), text)
        if m and c.archetype == "production":
            c.target_composition[unit_type] = int(number(m.group(1)))
            break
    if "efficien" in text:
        c.ranking = "damage_efficiency"
    elif re.search(r"\b(?:kills|kill count|most kills)\b", text):
        c.ranking = "kills"
    elif "damage dealt" in text:
        c.ranking = "damage_dealt"
    elif re.search(r"\b(?:hp|health|hit points) (?:left|remaining)\b", text):
        c.ranking = "hp_remaining"
    elif "surviv" in text and c.archetype == "ffa":
        c.ranking = "survival"
    for phrase, name in V.MAP_HINTS.items():
        if _has(text, phrase):
            c.map_hint = name
            break
    c.raids = any(_has(text, w) for w in ("raid", "raids", "raiders", "harass"))
    if c.archetype == "defense" and c.raids:
        c.archetype = "raids"
    return r
