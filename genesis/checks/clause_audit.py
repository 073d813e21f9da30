"""What an honoured clause names, looked up in the level that shipped.

A clause is honoured only when the level builds it. Requirement evidence shows the mechanics a design
chose to check; this audit catches what a design quietly swapped or left out: a clause that names unit or
building types, fog or production, times, counts of a unit type or a number of teams the shipped level does
not hold is on record as partial, naming what is missing. It reads only the clause's words and the level
(with its rule scripts), so it holds whichever backend wrote the brief. It is deliberately loose — a name
counts as present anywhere in the level — so what it reports is missing for certain."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator

from engine.catalog import load_catalog
from genesis.quantities import canonical, clock

_SMALL = {"a": 1, "an": 1, "one": 1, "single": 1, "lone": 1, "two": 2, "both": 2, "pair": 2, "three": 3, "four": 4,
          "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_COUNT_WORDS = "|".join(k for k, v in _SMALL.items() if v > 1)
_NEGATION = re.compile(r"\b(?:no|without|never|not|nor|zero|lacks?|lacking|except|instead\s+of|rather\s+than|"
                       r"neither|none)\s+(?:\w+\s+){0,2}$")
_BOUND = re.compile(r"\b(?:more|fewer|less|most|least|over|under|up\s+to|lose|loses|losing|lost|kill|kills|killed|"
                    r"destroy|destroys|destroyed)\s+(?:than\s+)?$")
# words that stand for every type of a kind: "factories" are bot labs and vehicle plants alike
_KIND_WORDS = {"factory": "category:factory", "factories": "category:factory", "turret": "id:turret",
               "turrets": "id:turret", "extractor": "id:extractor", "extractors": "id:extractor",
               "tank": "id:tank", "tanks": "id:tank", "aircraft": "category:air", "vehicles": "category:vehicle",
               "tower": "category:defense", "towers": "category:defense", "storage": "id:storage",
               "storages": "id:storage", "radar": "id:radar", "radars": "id:radar", "plant": "id:plant",
               "plants": "id:plant", "lab": "id:lab", "labs": "id:lab", "artillery": "id:artillery",
               "walled": "id:wall", "walled in": "id:wall"}
# "scout" is a verb as often as a unit: it names the unit after a number, an article or an adjective
_VERB_TOO = {"scout", "scouts"}
# a unit word naming what it does, not a unit on the map: "an artillery strike", "a bomber barrage you may call"
_EFFECT_AFTER = re.compile(r"[\s_-]+(?:strikes?|barrages?|bombardments?|shelling|calls?)\b")
_NAMED = re.compile(r"(?:\d+|a|an|the|one|single|lone|your|their|enemy|light|fast|quick|fleet|hostile|of)\s+$")


@lru_cache(maxsize=1)
def _type_names() -> dict[str, frozenset[str]]:
    """Every name a clause may call a unit type by -> the type ids it means."""
    catalog = load_catalog().units
    names: dict[str, set[str]] = {}
    for type_id, unit in catalog.items():
        for name in {unit.name.lower().replace("-", " "), type_id.replace("_", " ")}:
            for form in (name, name + "s"):
                names.setdefault(form, set()).add(type_id)
    for word, kind in _KIND_WORDS.items():
        how, key = kind.split(":")
        names.setdefault(word, set()).update(
            t for t, u in catalog.items() if (u.category == key if how == "category" else key in t))
    return {n: frozenset(ts) for n, ts in names.items() if ts}


@lru_cache(maxsize=1)
def _type_pattern() -> re.Pattern:
    alternatives = "|".join(re.escape(n).replace(r"\ ", r"[\s_-]+") for n in sorted(_type_names(), key=len,
                                                                                     reverse=True))
    return re.compile(rf"(?<![\w-])({alternatives})(?![\w-])")


def named_types(text: str) -> list[tuple[str, frozenset[str], int | None]]:
    """(the words, the type ids they mean, the count stated before them or None) for every unit type the
    text names as present: "no turrets", "without a factory" name nothing."""
    low = text.lower()
    out = []
    for m in _type_pattern().finditer(low):
        before = low[:m.start()]
        word = re.sub(r"[\s_-]+", " ", m.group(1))
        if _NEGATION.search(before) or (word in _VERB_TOO and not _NAMED.search(before)) \
                or _EFFECT_AFTER.match(low, m.end()):
            continue
        count = re.search(r"(?<![\w:.])(\d+|" + _COUNT_WORDS + r")\s+(?:\w+\s+)?$", before)
        n = (int(count.group(1)) if count.group(1).isdigit() else _SMALL[count.group(1)]) if count else None
        if count and _BOUND.search(before[:count.start()]):
            n = None      # "lose no more than 2 tanks" bounds a loss, it does not say how many there are
        out.append((m.group(1), _type_names()[word], n))
    return out


# a state said once for both switches: "production and fog both off" -> "production off and fog off"
SWITCH_PAIR = re.compile(r"\b(?:both\s+)?(?P<a>fog(?:\s+of\s+war)?|production)\s+and\s+(?P<b>fog(?:\s+of\s+war)?|production)\s+"
                         r"(?:(?:are|were)\s+)?(?:both\s+)?(?:(?:turned|switched|set)\s+)?(?P<state>off|on|disabled|enabled)\b")


def each_switch(m: re.Match) -> str:
    """A SWITCH_PAIR match with its state said for each switch."""
    return f"{m.group('a')} {m.group('state')} and {m.group('b')} {m.group('state')}"


def named_switches(text: str) -> dict[str, bool]:
    """Fog of war and production as the text sets them ("fog of war is off", "no production", "production and
    fog both off", "you cannot build")."""
    low = SWITCH_PAIR.sub(each_switch, text.lower())
    out = {}
    if re.search(r"\b(?:cannot|can't|can\s+not|may\s+not)\s+(?:build|produce)\b", low):
        out["production"] = False
    # vision said as the units' own sight: fog on
    if re.search(r"\b(?:only\s+(?:see|sees)\s+what|(?:sight|vision|eyes)\s+(?:is|are)\s+all\s+(?:you|the\s+player)\s+"
                 r"(?:get|gets|have|has)|(?:vision|sight)\s+(?:is\s+)?(?:limited|restricted)\s+to)\b", low):
        out["fog_of_war"] = True
    for key, word in (("fog_of_war", r"fog(?:\s+of\s+war)?"), ("production", r"production|reinforcements?")):
        if not re.search(rf"\b(?:{word})\b", low):
            continue
        off = re.search(rf"\b(?:no|without|disable\w*|lift\w*|remov\w*|cannot\s+be|can't\s+be)\s+(?:the\s+)?"
                        rf"(?:{word})\b|\b(?:{word})\s+(?:is\s+|are\s+|turned\s+|switched\s+|stays\s+|set\s+|both\s+)?"
                        rf"(?:off|disabled|lifted|removed|none)\b", low)
        if key == "production" and not off and "reinforce" in low and not re.search(r"\bproduction\b", low):
            continue
        out.setdefault(key, not off)
    return out


_UNIT_SECONDS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "min": 60, "mins": 60, "minute": 60,
                 "minutes": 60, "hour": 3600, "hours": 3600}
_AMOUNT = r"(\d+(?:\.\d+)?|" + "|".join(k for k in _SMALL if k not in ("both", "pair")) + r")"


# a duration's length said twice: "two full minutes", "90 whole seconds"
_LENGTH_SAID_TWICE = r"(?:full|whole|solid|long|straight|entire|complete|clear)"


def _canonical(text: str) -> str:
    return canonical(text.lower(), list(range(len(text))))[0]


def named_times(text: str) -> list[float]:
    """The times and durations the text states, in seconds ("at 1:15", "every 70 seconds", "each minute")."""
    return _times(_canonical(text))


def _times(low: str) -> list[float]:
    out = [int(m.group(1)) * 60 + int(m.group(2)) for m in re.finditer(r"(?<![\d:])(\d{1,3}):([0-5]\d)(?![\d:])", low)]
    for m in re.finditer(rf"(?<![\w.]){_AMOUNT}((?:\s*,\s*{_AMOUNT})*(?:\s*,?\s*(?:and|or|to)\s+{_AMOUNT})?)"
                         rf"[\s-]*(?:{_LENGTH_SAID_TWICE}\s+)?(seconds?|secs?|minutes?|mins?|hours?|s)(?![\w])", low):
        unit = _UNIT_SECONDS[m.group(m.lastindex)]
        values = [m.group(1)] + re.findall(rf"(?<![\w.]){_AMOUNT}(?![\w.])", m.group(2))
        out += [(float(v) if v[0].isdigit() else _SMALL[v]) * unit for v in values]
    out += [_UNIT_SECONDS[u] for u in re.findall(r"\b(?:every|each|per|a)\s+(minute|second)\b", low)]
    return [t for t in out if t > 0]


def named_windows(text: str) -> list[tuple[float, float]]:
    """The spans the text gives as "between A and B" (in seconds)."""
    out = []
    for m in re.finditer(r"\bbetween\s+.{1,40}?\s+and\s+.{1,40}?(?=[,;.]|$)", _canonical(text)):
        times = _times(m.group(0))
        if len(times) == 2:
            out.append((min(times), max(times)))
    return out


_EVENTS = r"(?:waves?|raids?|attacks?|assaults?|strikes?|pushes|push|ambush(?:es)?|sorties|sortie|incursions?|rushes|"\
          r"columns?)"
_ONLY_ONE = r"(?:a\s+single|single|one|a\s+lone|lone|only\s+one|just\s+one)"
# who attacks, not how many attacks: "6 infantry attack", "three riflemen raid"
_UNIT_NOUNS = (r"(?:infantry|riflemen|rifles|soldiers|troops|men|guys|units|bots?|tanks?|vehicles?|planes?|bombers?|"
               r"fighters?|raiders?|scouts?|snipers?|artillery|enemies|hostiles)\b")


def named_event_count(text: str) -> int | None:
    """How many attacks the text fixes: "four assaults", "3 enemy waves", "two raids" -> 4, 3, 2."""
    low = _canonical(text)
    # "6 assault bots" are units, not six assaults
    # ("squads of 4 to 6 infantry attack": units that attack, counted as a range of sizes)
    m = re.search(rf"(?<![\w:.-])(\d+|{_COUNT_WORDS}|{_ONLY_ONE})\s+(?:(?!{_UNIT_NOUNS})[a-z-]+\s+)?{_EVENTS}\b"
                  r"(?![\s-]+(?:bots?|tanks?|units?|troops?|squads?|forces?|teams?|vehicles?|groups?|craft|rifles?))"
                  # "one wave every 40 seconds": a rate, not a count of attacks
                  r"(?!\s+(?:(?:comes?|arrives?|hits?|lands?)\s+)?(?:every|each|per)\b)", low)
    if not m or _BOUND.search(low[:m.start()]) or re.search(r"\b(?:per|each|every|a)\s+$|\d\s*(?:to|-|or)\s*$",
                                                             low[:m.start()]):
        return None
    said = m.group(1)
    n = int(said) if said.isdigit() else 1 if re.fullmatch(_ONLY_ONE, said) else _SMALL[said]
    if n == 1 and said.isdigit():
        return None       # "1 attack" is as likely a label as a count
    return n if 1 <= n <= 100 else None


_UNTIMED = re.compile(r"\bno\s+(?:clock|time\s+limit|deadline|timer|rush|hurry)\b|\bwhenever\s+you\b|"
                      r"\b(?:take|taking)\s+(?:your|all\s+the)\s+time\b|\bat\s+your\s+(?:own\s+)?(?:leisure|pace)\b|"
                      r"\bwithout\s+(?:a\s+)?(?:clock|time\s+limit|deadline|timer)\b|\bno\s+matter\s+how\s+long\b")


def named_untimed(text: str) -> bool:
    """The text says the goal has no deadline ("no clock", "whenever you manage it", "take your time")."""
    return bool(_UNTIMED.search(text.lower()))


def _deadlines(level: dict) -> list[float]:
    """Every deadline a condition or a rule of the level sets (the run's time limit is not one)."""
    out = [c["deadline"] for c in level.get("conditions") or [] if isinstance(c, dict) and c.get("deadline")]
    out += [v for r in level.get("rules") or [] for k, v in (r.get("params") or {}).items()
            if k == "deadline" and isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0]
    return out


def named_team_count(text: str) -> int | None:
    """How many sides the text fixes: "3v3" -> 6, "1v1v1v1" -> 4, "three-team" / "six-way" -> 3 / 6."""
    low = re.sub(r"(?<![a-z])(" + _COUNT_WORDS + r"|one)(?![a-z])", lambda m: str(_SMALL[m.group(1)]), _canonical(text))
    m = re.search(r"(?<![\w-])\d+(?:\s*(?:v|vs\.?|versus)\s*\d+|-on-\d+)+(?![\w-])", low)
    if m:
        counts = [int(n) for n in re.findall(r"\d+", m.group(0))]
        return sum(counts)
    m = re.search(r"(?<![\w-])(\d+)[\s-]+(?:way|teams?|armies|factions|players)\b", low)
    return int(m.group(1)) if m else None


def _walk(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)
    else:
        yield value


def _lua_literals(source: str) -> tuple[set[str], set[float]]:
    strings = set(re.findall(r"""["']([A-Za-z_][\w-]*)["']""", source))
    numbers = {float(n) for n in re.findall(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w.])", source)}
    return strings, numbers


def _type_counts(level: dict) -> dict[str, set[int]]:
    """Per unit type, every count the level gives it: a units entry's count, a {type: n} table, and the
    number of units of one type a team (or a layout's team) starts with."""
    counts: dict[str, set[int]] = {}
    types = set(load_catalog().units)

    def add(t: str, n: Any) -> None:
        if t in types and isinstance(n, (int, float)) and not isinstance(n, bool):
            counts.setdefault(t, set()).add(int(n))

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            t = value.get("type") or value.get("unit") or value.get("unit_type")
            if isinstance(t, str) and ("count" in value or "n" in value):
                add(t, value.get("count", value.get("n")))
            for k, v in value.items():
                if k in types:
                    add(k, v)
                visit(v)
        elif isinstance(value, list):
            per: dict[tuple, int] = {}
            for v in value:
                if isinstance(v, dict) and isinstance(v.get("type"), str):
                    key = (v.get("team"), v["type"])
                    per[key] = per.get(key, 0) + int(v.get("count", 1) or 1)
                visit(v)
            for (_, t), n in per.items():
                add(t, n)

    visit(level)
    return counts


@dataclass(frozen=True)
class LevelFacts:
    """What a shipped level holds, gathered once for all its clauses: every string and number in level.json and
    its rule scripts' literals, the counts each unit type is given, its switches and how many sides it has."""
    strings: frozenset[str]
    numbers: frozenset[float]
    lua_strings: frozenset[str]
    counts: dict[str, set[int]]
    switches: dict[str, Any]
    sides: int
    event_counts: frozenset[int]
    deadlines: tuple[float, ...]
    scheduled: int          # attacks every schedule of the level's rules lists, all together
    map_size: tuple[int, int] | None = None     # a generated map's width and height
    map_name: str = ""                          # a built-in map's name

    # a rule's params fix how many attacks come by a count, or by one entry per attack in a schedule
    _COUNT_KEY = re.compile(r"count|waves|raids|attacks|number|repeat")
    _SCHEDULE_KEY = re.compile(r"times|(?:^|_)at$|fronts|schedule")

    @classmethod
    def of(cls, level: dict, sources: list[str]) -> LevelFacts:
        strings, numbers, lua_strings = set(), set(), set()
        for v in _walk(level):
            if isinstance(v, str):
                strings.add(v)
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                numbers.add(float(v))
        for source in sources:
            s, n = _lua_literals(source)
            lua_strings |= s
            numbers |= n
        events, scheduled = set(), 0
        for rule in level.get("rules") or []:
            for key, value in (rule.get("params") or {}).items():
                if cls._COUNT_KEY.search(key) and isinstance(value, (int, float)) and not isinstance(value, bool):
                    events.add(int(value))
                elif cls._SCHEDULE_KEY.search(key) and isinstance(value, list):
                    events.add(len(value))
                    scheduled += len(value)
        where = level.get("map") or {}
        made = where.get("generate") if isinstance(where.get("generate"), dict) else {}
        size = (int(made["width"]), int(made["height"])) if {"width", "height"} <= set(made) else None
        return cls(frozenset(strings), frozenset(numbers), frozenset(lua_strings), _type_counts(level),
                   level.get("switches") or {}, len(level.get("teams") or []), frozenset(events),
                   tuple(_deadlines(level)), scheduled, size, str(where.get("name") or ""))

    def has_time(self, t: float) -> bool:
        return any(abs(t - x) <= max(2.0, 0.03 * t) for x in self.numbers)


def missing(text: str, facts: LevelFacts) -> list[str]:
    """What the clause names that the level lacks, each as a short phrase ([] when nothing is missing)."""
    out = []
    for words, ids, n in named_types(_canonical(text)):    # "a heavy tank quartet" counts 4
        if not ids & (facts.strings | facts.lua_strings):
            out.append(f"no {words} in the level")
        elif n is not None and not any(n in facts.counts.get(t, ()) for t in ids) and not ids & facts.lua_strings:
            out.append(f"{n} {words} named, the level has " + (", ".join(
                f"{'/'.join(str(c) for c in sorted(facts.counts[t]))} {t.replace('_', ' ')}" for t in sorted(ids)
                if t in facts.counts) or "none"))
    for key, on in named_switches(text).items():
        if key in facts.switches and bool(facts.switches[key]) != on:
            out.append(f"{key.replace('_', ' ')} is {'on' if facts.switches[key] else 'off'} in the level")
    # a window "between 1:00 and 3:00" may be built as its middle with a jitter
    windows = [(a, b) for a, b in named_windows(text) if facts.has_time((a + b) / 2)]
    for t in dict.fromkeys(named_times(text)):
        if not facts.has_time(t) and not any(t in w for w in windows):
            out.append(f"no time or duration of {_clock(t)} in the level")
    events = named_event_count(text)
    if events == 1 and facts.scheduled > 1:
        out.append(f"one attack named, the level schedules {facts.scheduled}")
    elif events and events not in facts.event_counts:
        out.append(f"{events} attacks named, no rule of the level fixes their number at {events}")
    if named_untimed(text) and facts.deadlines:
        out.append(f"the level sets a deadline of {_clock(min(facts.deadlines))}")
    teams = named_team_count(text)
    if teams and teams != facts.sides:
        out.append(f"{teams} sides named, the level has {facts.sides}")
    return list(dict.fromkeys(out))


_MAP_SIZE = re.compile(r"\b(\d{2,3})\s*(?:x|by|\u00d7)\s*(\d{2,3})\b")


def shown_by_level(text: str, facts: LevelFacts) -> list[str]:
    """What the clause names that the shipped level itself shows (no run needed): a switch set as named, the map
    named or its size; [] when it names none of them, or one the level does not match."""
    low = text.lower()
    shown = []
    for key, on in named_switches(text).items():
        if key not in facts.switches or bool(facts.switches[key]) != on:
            return []
        shown.append(f"{key.replace('_', ' ')} {'on' if on else 'off'}")
    for m in _MAP_SIZE.finditer(low):
        if facts.map_size != (int(m.group(1)), int(m.group(2))):
            return []
        shown.append(f"a {m.group(1)}x{m.group(2)} map")
    if facts.map_name and re.search(r"\b" + re.escape(facts.map_name.replace("_", " ")) + r"\b", low.replace("_", " ")):
        shown.append(f"the {facts.map_name} map")
    return shown


def _clock(seconds: float) -> str:
    return clock(seconds) if seconds >= 60 else f"{seconds:g} s"
