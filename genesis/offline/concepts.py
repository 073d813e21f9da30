"""Reads a request and recognises the scenario concepts of the offline vocabulary.

Every recognised phrase is kept as a `Hit` (its span in the normalised text and what it means), so the
brief can account for each clause of the request: what was built for it, or why nothing was.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

from engine.catalog import load_catalog
from genesis.models import Concepts
from genesis import quantities
from genesis.quantities import clock
from genesis.checks import clause_audit
from genesis.offline import side_armies, spelling
from genesis.offline.wave_growth import base_and_growth
from engine.engagement import worth
from genesis.offline import vocabulary as V

# "two versus two" reads as "2v2"
_SMALL = {"one": 1, "two": 2, "three": 3, "four": 4}
_WORD_TEAMS = re.compile(r"\b(one|two|three|four|[1-4])[\s-]+(?:versus|vs\.?|against|on)[\s-]+(one|two|three|four|[1-4])\b")
_SMALL.update({str(n): n for n in range(1, 5)})
# never the tail of a word: "one" in "everyone", "ten" in "often"
_NUM = r"(?<![a-z])(\d+(?:\.\d+)?|" + "|".join(sorted(V.NUMBER_WORDS, key=len, reverse=True)) + r")"
DEFAULT_THEFT = 50.0     # metal a raid steals when the request says raids steal but not how much
# double / triple in any form and their common misspellings (dubble, duble, doubel, tripple)
_DOUBLE = r"d(?:ou|u|o)b{1,2}(?:le[sd]?|ling|el[sd]?)\b"
_TRIPLE = r"trip{1,2}(?:le[sd]?|ling|el[sd]?)\b"
_UNIT = r"(hours?|hrs?|minutes?|mins?|seconds?|secs?|s|m|h)\b"
_WORD_UNIT = r"(hours?|minutes?|mins?|seconds?|secs?)\b"   # spelled out: a bare "m" / "s" would match inside words
_CLOCK = r"(\d{1,2}):([0-5]\d)\b"                     # "at 2:30"
_FFA_MAX = 8
_GOAL_ARCHETYPES = ("production", "siege", "capture", "escort", "recon", "micro", "resources")


@dataclass
class Hit:
    """A recognised phrase: its span in the normalised text and the concept it sets (see brief_writer)."""
    start: int
    end: int
    key: str
    problem: str = ""    # set when the phrase asks for something that cannot be built as asked
    note: str = ""       # set when the phrase is read with a default ("several" -> 3)


@dataclass
class Reading:
    concepts: Concepts
    is_game: bool
    refusal: str | None = None
    assumptions: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    matched: list[str] = field(default_factory=list)
    text: str = ""                     # the normalised request the hits index into
    offsets: list[int] = field(default_factory=list)   # normalised index -> index in the verbatim request
    hits: list[Hit] = field(default_factory=list)
    moments: list[tuple[int, int, float]] = field(default_factory=list)   # named times: (start, end, seconds)
    limits: list[tuple[re.Match, float]] = field(default_factory=list)    # game-length phrases, most likely first
    hazard_spans: list[tuple[int, int]] = field(default_factory=list)     # clauses about a natural hazard
    sides: list[tuple[int, int, str]] = field(default_factory=list)       # named sides: (start, end, direction)

    def hit(self, m: re.Match | tuple[int, int], key: str, problem: str = "", note: str = "") -> None:
        start, end = (m.start(), m.end()) if isinstance(m, re.Match) else m
        self.hits.append(Hit(start, end, key, problem, note))


def number(word: str) -> float:
    return float(word) if word[0].isdigit() else float(V.NUMBER_WORDS[word])


def _seconds(value: str, unit: str) -> float:
    return number(value) * (60.0 if unit.startswith("m") else 3600.0 if unit.startswith("h") else 1.0)


def _find(text: str, phrase: str) -> re.Match | None:
    return re.search(r"(?<![\w-])" + re.escape(phrase) + r"(?![\w-])", text)


def _has(text: str, phrase: str) -> bool:
    return _find(text, phrase) is not None


# words that end a count: "survive 2 minutes against waves" counts minutes, not waves
_NOT_COUNTED = r"(?!(?:hours?|hrs?|minutes?|mins?|seconds?|secs?|against|from|of|for|with|and|or|to|at|in|on|by|" \
               r"until|before|after|while|then|where|which|who|whose|when|if|that)\b)"   # "make one where rushes pour in"


def _count_before(text: str, nouns: str) -> re.Match | None:
    return re.search(r"(?<![\d:.])" + _NUM + r"\s+(?:" + _NOT_COUNTED + r"[\w-]+\s+){0,2}?(?:" + nouns + r")\b", text)


def normalise(query: str) -> tuple[str, list[int]]:
    """Lower case with single spaces, straight quotes and underscores as spaces, and where each character came
    from."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(query):
        if ch.isspace():
            if out and out[-1] != " ":
                out.append(" ")
                where.append(i)
            continue
        low = ch.lower()
        # "light_bots", "metal_extractor": a roster id reads as its words
        out.append({"\u2019": "'", "\u2018": "'", "\u2013": "-", "\u2014": "-", "_": " "}.get(low, low if len(low) == 1 else ch))
        where.append(i)
    if out and out[-1] == " ":
        out.pop()
        where.pop()
    return "".join(out), where


@lru_cache(maxsize=1)
def roster_names() -> dict[str, str]:
    """Every name a unit type goes by (catalog names, type ids, synonyms, plurals) -> type id."""
    names: dict[str, str] = {}
    for type_id, unit in load_catalog().units.items():
        for name in (unit.name.lower(), type_id.replace("_", " ")):
            names[name] = type_id
            names[name + "s"] = type_id
    for name, type_id in V.UNIT_SYNONYMS.items():
        names.setdefault(name, type_id)
        names.setdefault(name + "s", type_id)
    return names


@lru_cache(maxsize=1)
def _building_types() -> set[str]:
    return {t for t, u in load_catalog().units.items() if u.speed == 0}


def _unit_pattern(kinds: str = "any") -> str:
    buildings = _building_types()
    names = [n for n, t in roster_names().items()
             if kinds == "any" or (kinds == "building") == (t in buildings)]
    # a mobile unit's name before "lab" or "plant" is a building's ("a bot lab", "the vehicle plant")
    after = r"(?![\w-])(?!\s+(?:labs?|plants?)\b)" if kinds == "mobile" else r"(?![\w-])"
    return "(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + ")" + after


@lru_cache(maxsize=1)
def _shared_head() -> re.Pattern:
    """Modifiers that share one unit noun: "rocket and light bots", "rocket+light bot mix", "light/heavy tanks",
    "light, rocket or assault bots" name a unit of each."""
    heads: dict[str, set[str]] = {}
    for name in roster_names():
        words = name.split()
        if len(words) == 2 and not words[1].endswith("s"):
            heads.setdefault(words[1], set()).add(words[0])
    alts = []
    for head, mods in heads.items():
        mod = "(?:" + "|".join(sorted(map(re.escape, mods), key=len, reverse=True)) + ")"
        alts.append(rf"{mod}(?:\s*,\s*{mod})*(?:\s*,?\s*(?:\+|/|&|\band\b|\bor\b)\s*{mod})+\s+{re.escape(head)}s?")
    return re.compile(r"(?<![\w-])(?:" + "|".join(alts) + r")(?![\w-])")


# each built-in map's name of several words (as normalised: "two front corridor") -> the one word of it that
# names the map
_MAP_WORD = {name.replace("_", " "): next(p for p in sorted(V.MAP_HINTS, key=len) if V.MAP_HINTS[p] == name
                                          and p in name.replace("_", " "))
             for name in set(V.MAP_HINTS.values()) if "_" in name}
_MAP_NAMES = re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, _MAP_WORD)) + r")(?![\w-])")
_CLOCK_SLASHES = re.compile(r"(?<![\w:/])\d{1,2}:[0-5]\d(?:\s*/\s*\d{1,2}:[0-5]\d)+(?![\w:/])")


def _listed(items: list[str], last: str = " and ") -> str:
    return ", ".join(items[:-1]) + last + items[-1]


def _spell_out_shared_head(m: re.Match) -> str:
    said = m.group(0)
    head = said.rsplit(None, 1)[1]
    named = [f"{w} {head}" for w in re.findall(r"[\w-]+", said[:-len(head)]) if w not in ("and", "or")]
    return _listed(named, " or " if re.search(r"\bor\b", said) else " and ")


def is_english(text: str) -> bool:
    """Mostly ASCII letters, and not more foreign function words ("deux", "contre", "gegen") than English ones."""
    letters = [c for c in text if c.isalpha()]
    if not letters or sum(c.isascii() for c in letters) / len(letters) <= 0.9:
        return False
    words = re.findall(r"[^\W\d_]+", text.lower())
    foreign = sum(w in V.FOREIGN_FUNCTION_WORDS for w in words)
    english = sum(w in V.ENGLISH_FUNCTION_WORDS for w in words)
    return foreign == 0 or english > foreign


# verbs read in their game sense: "weather three pushes" / "ride out the storm of attacks" is to withstand them
def _turned_out(m: re.Match) -> str:
    """"your factories churn out 15 light bots" is producing; "the woods spit out a pack of light bots" is the
    enemy sending them."""
    said_before = m.string[max(0, m.start() - 40):m.start()]
    ours = re.search(r"\b(?:you|your|we|our|my|i|factor(?:y|ies)|labs?|plants?|can|to)\s+(?:[\w-]+\s+)?$", said_before)
    return "produce" if ours or not said_before.strip() else "send"


_IDIOMS = [# "hold out until reinforcements show up at the 5 minute mark": the game lasts until then
           (re.compile(r"(?<![\w-])(?:until|till)\s+(?:the\s+|your\s+|our\s+|my\s+|friendly\s+)?reinforcements?\s+"
                       r"(?:show\s+up|arrive|come|comes|get\s+(?:here|there)|land|turn\s+up|are\s+dropped|drop\s+in|"
                       r"roll\s+in)\s+(?:at|by|around)\s+"), "until "),
           (re.compile(r"(?<![\w-])(?:weather|ride\s+out)(?=\s+(?:the|a|an|their|its|every|each|all|both|\d+|"
                       + "|".join(V.NUMBER_WORDS) + r")\b)"), "withstand"),
           # attacks that keep coming at a target are raids: "quick bots keep darting at your collectors"
           (re.compile(r"(?<![\w-])keep(?:s)?\s+(?:on\s+)?(?:darting|dashing|sniping|picking|nipping|poking|striking|hitting|"
                       r"lunging|swooping|diving|jabbing|chipping\s+away)(?:\s+(?:at|on|into))?(?=\s+(?:your|our|my|the)\b)"),
            "raid"),
           # units "off the line" are produced: "seven assault bots off the line"
           (re.compile(r"(?<![\w-])(?:rolled\s+|rolling\s+|coming\s+)?(?:off|out\s+of)\s+the\s+(?:production\s+|assembly\s+)?"
                       r"(?:line|factory|factories)(?![\w-])"), "produced"),
           # turning units out of a factory is producing them: "churn out fifteen light bots", "pump out 6 tanks"
           (re.compile(r"(?<![\w-])(?:churn|pump|crank|turn|spit)(?:s|ing|ed)?\s+out(?=\s+(?:\d+|an?|"
                       + "|".join(V.NUMBER_WORDS) + r")\b)"), _turned_out),
           # razing a thing is destroying it: "flatten it", "level their base", "knock down the radar tower"
           (re.compile(r"(?<![\w-])(?:flatten|level|demolish|obliterate|smash|wreck|raze|knock\s+down|tear\s+down|bring\s+down|"
                       r"blow\s+up|take\s+down|reduce)(?=\s+(?:it|them|their|the|that|this|its|every|all|both|enemy|his|her|"
                       r"an?|one|each)\b)(?!\s+(?:it|them|the\s+\w+)\s+to\s+(?:\d|half|a\s+quarter))"), "destroy"),
           # ... and in the passive: "the enemy base is to be razed", "their HQ must be flattened"
           (re.compile(r"(?<![\w-])(?:razed|flattened|levell?ed|demolished|obliterated|smashed|wrecked|knocked\s+down|"
                       r"torn\s+down|brought\s+down|blown\s+up|taken\s+down)(?![\w-])"), "destroyed"),
           (clause_audit.SWITCH_PAIR, clause_audit.each_switch)]
# Corners named as on a screen ("the top-left corner", "bottom right") are compass corners: north is up.
_SCREEN_CORNERS = {("top", "left"): "north-west", ("top", "right"): "north-east", ("bottom", "left"): "south-west",
                   ("bottom", "right"): "south-east"}
_SCREEN_CORNER = re.compile(r"(?<![\w-])(top|upper|bottom|lower)[\s-]*(left|right)(?:[\s-]+hand)?(?![\w-])")


# Edges named as on a screen: "the bottom edge of the map", "the top one", "the left edge" (a flank stays a flank)
_SCREEN_EDGE = re.compile(r"(?<![\w-])(?:(top|upper|bottom|lower|left|right)(?=\s+(?:edge|border|end|rim)\b|\s+of\s+the\s+"
                          r"map\b)|(top|upper|bottom|lower)(?=\s+one\b))")
_MAP_SIDES = re.compile(r"(?<![\w-])(?:top|upper|bottom|lower|left|right|left-hand|right-hand)\s+(?:side|half|part)\s+of\s+"
                        r"the\s+(?:map|field|board|battlefield|arena)\b")
_SCREEN_SIDE = re.compile(r"(?<![\w-])(top|upper|bottom|lower|left|right)(?:-hand)?(?=\s+(?:side|half|part)\b)")
_SCREEN_SIDES = {"top": "north", "upper": "north", "bottom": "south", "lower": "south", "left": "west", "right": "east"}


# Sides named by the sun: "from where the sun sets" is from the west
_SUN = re.compile(r"(?<![\w-])(?:where|whence)\s+the\s+sun\s+(sets|rises|goes\s+down|comes\s+up)\b|"
                  r"(?<![\w-])the\s+(setting|rising)\s+sun\b|"
                  # "the dawn side", "the sunset flank": east and west
                  r"(?<![\w-])the\s+(?:sunrise|sun-?up|dawn|morning|sunset|sundown|dusk|evening)[\s-](?:side|flank|edge|end)\b")


def _screen_corner(m: re.Match) -> str:
    return _SCREEN_CORNERS[("top" if m.group(1) in ("top", "upper") else "bottom", m.group(2))]


def read(query: str) -> Reading:
    text, offsets = quantities.canonical(*spelling.correct(*normalise(query)))
    for pattern, verb in _IDIOMS:
        text, offsets = quantities.rewrite(text, offsets, pattern, verb if callable(verb) else lambda m, verb=verb: verb)
    text, offsets = quantities.rewrite(text, offsets, _SCREEN_CORNER, _screen_corner)
    text, offsets = quantities.rewrite(text, offsets, _SUN, lambda m: "the west" if re.search(r"set|down|dusk|evening",
                                                                                              m.group(0)) else "the east")
    text, offsets = quantities.rewrite(text, offsets, _SCREEN_EDGE, lambda m: _SCREEN_SIDES[m.group(1) or m.group(2)])
    # a map's own name is read as the map only: "two_front_corridor" names no two fronts, "plateau_fortress" no
    # fortress to take
    text, offsets = quantities.rewrite(text, offsets, _MAP_NAMES, lambda m: _MAP_WORD[m.group(0)])
    text, offsets = quantities.rewrite(text, offsets, _shared_head(), _spell_out_shared_head)
    # times listed with slashes, "at 1:00/2:00/3:00", are a list of times
    text, offsets = quantities.rewrite(text, offsets, _CLOCK_SLASHES, lambda m: _listed(re.split(r"\s*/\s*", m.group(0))))
    if _MAP_SIDES.search(text):
        # "from the left side of the map to the right side": sides of the map, not flanks
        text, offsets = quantities.rewrite(text, offsets, _SCREEN_SIDE, lambda m: _SCREEN_SIDES[m.group(1)])
    c = Concepts()
    r = Reading(concepts=c, is_game=True, text=text, offsets=offsets)

    if not is_english(text):
        return _refuse(r, "the offline backend understands English requests only; rephrase in English or use a "
                          "real model with --model")
    words = set(re.findall(r"[a-z0-9-]+", text))
    game_words = sorted(words & V.GAME_WORDS)
    r.matched.append("game words: " + ", ".join(game_words[:8]))

    forbidden = _forbidden_asks(text)
    if forbidden:
        why = "rule scripts run in a sandbox with the rule API only; requests for os/io/files/shell access were ignored"
        r.unsupported.append(why)
        for span in forbidden:
            r.hit(span, "forbidden", why)

    _archetype(r)
    outside = _OUTSIDE.search(text)
    if outside:
        said = query[r.offsets[outside.start()]:r.offsets[outside.end() - 1] + 1]
        return _refuse(r, f"this asks for something outside Genesis (\"{said}\"): Genesis builds mini-games "
                          "for its own simulator; it does not write other programs, play other games, go online or "
                          "use accounts")
    impossible = _impossible(text)
    if impossible:
        return _refuse(r, "this asks for what no game can have (" + ", ".join(f'"{w}"' for w in impossible)
                       + "): a negative amount, no time between attacks, a map of no tiles, a time before the game "
                         "starts, units built in a few seconds or outcomes that exclude each other; say what the scenario "
                         "should really have")
    other = _other_game(r)
    if other:
        return _refuse(r, f"this asks for {other}, which is not a real-time strategy scenario: Genesis builds RTS "
                          "mini-games for its own simulator")
    _hazards(r)
    for w in V.UNSUPPORTED_GOALS:
        for m in re.finditer(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", text):
            r.hit(m, "unsupported_goal", f"the offline backend cannot build \"{w}\" (no rule or design of it in "
                                         "its vocabulary); a real model (--model) can write new rules")
    _teams(r)
    _objectives(r)
    _waves(r)
    _times(r)
    _directions(r)
    _opposite_side(r)
    _units_and_switches(r)
    _production_goal(r)
    _raids(r)
    _keep_count(r)
    _safe_zone(r)
    _protect(r)
    _resource_goal(r)
    _unopposed(r)
    _escort(r)
    _recon(r)
    _micro(r)
    _deadline_and_hold(r)
    _endless(r)
    _routes(r)
    _own_aircraft_and_fog_degree(r)
    _capture_holders(r)
    _all_done_by(r)
    _capture_contenders(r)
    _goal_rivals(r)
    _loss_on_loss(r)
    _difficulty(r)
    _start_forces(r)
    if r.concepts.raids or (r.concepts.wave_interval and r.concepts.archetype == "defense"):
        _raid_size(r)     # after the player's own forces are read: their counts are no raid's size
    if c.raids and len(set(c.wave_sizes)) == 1 and not c.raid_size:
        # "7 units each" of raids is every raid's size: raids are not waves
        c.raid_size, c.wave_sizes = c.wave_sizes[0], []
        for h in r.hits:
            if h.key == "wave_sizes":
                h.key = "raid_size"
    side_armies.read(r, roster_names(), _unit_pattern("any"), number)
    _attack_units(r)
    _named_ai(r)
    _restated_in_brackets(r)
    if c.archetype == "production":
        _goal_not_given(r)
    if c.archetype == "siege":
        _siege_target(r)     # last: a protected "base" elsewhere in the request is not what is besieged
        _siege_guards(r)
        for h in (r.hits if siege_garrison(c) else []):
            if h.key == "wave_units":
                h.problem = ("the garrison holds the base's centre: the target stands at one of the base's sites, "
                             "drawn per game, behind its turret ring")

    # the game itself is one the backend has no design for: refuse rather than build another one
    first_game = min((h.start for h in r.hits if h.key == "archetype"), default=len(text))
    goals = sorted((h.start, text[h.start:h.end]) for h in r.hits if h.key == "unsupported_goal")
    if goals and goals[0][0] < first_game:
        return _refuse(r, f"the offline backend does not understand the game this asks for (\"{goals[0][1]}\" is "
                          "not in its vocabulary) and will not build a different one in its place; use a real model "
                          "with --model")

    # a production race whose only goal names no roster unit has no goal left: never a default one
    odd_goals = [h.problem for h in r.hits if h.key == "production_target" and h.problem]
    if r.concepts.archetype == "production" and not r.concepts.target_composition and odd_goals:
        return _refuse(r, f"{odd_goals[0]}, and the production race has no other goal: the offline backend will "
                          "not pick other units for it; name roster units (light tanks, assault bots, ...) or use "
                          "a real model with --model")
    if not game_words and not r.hits:
        return _machine_refusal(r, query) or _refuse(r, "this does not read as an RTS scenario request: none of the "
                                                        "game words the offline backend knows (defend, attack, waves, "
                                                        "produce, destroy, survive, teams, ...) appear in it")
    # the request must say what game it is: a family named, or attacks described; never the default defence
    evidence = {"archetype", "fronts", "directions", "waves", "wave_times", "interval", "escalating", "probe",
                "objective", "raids", "scouting", "air", "protect", "random_side", "staggered", "raid_target",
                "allied_bases", "ffa_count", "teams", "production_target", "hold_time", "recon", "micro", "armies",
                "resource_goal"}
    if not any(h.key in evidence for h in r.hits):
        return _game_not_understood(r, query, "no scenario family, attacks or goal it knows")
    # a defence is a game of attacks: sides and things to keep name one only when something attacks, or a
    # side is given a time ("right flank at 1:00, left flank at 2:30")
    inferred_defence = c.archetype == "defense" and not any(h.key == "archetype" for h in r.hits)
    attacked = c.direction_times or _ATTACKED.search(text) or any(
        h.key in ("waves", "probe", "escalating", "staggered", "raids", "air", "ambush") for h in r.hits)
    if inferred_defence and not attacked:
        return _game_not_understood(r, query, "it reads sides, times or things to keep, but no attack to defend "
                                              "against and no game it knows")
    return r


# what a request asks of the user's machine or accounts: "reading my home directory and emailing the files"
_MACHINE = re.compile(r"\b(?:read|reads|reading|upload|uploads|uploading|send|sends|sending|e-?mail|e-?mails|e-?mailing|"
                      r"delete|deletes|deleting|copy|copies|copying|steal|steals|stealing|exfiltrat\w*|access|accesses|"
                      r"accessing|list|lists|listing|wipe|wipes|wiping|encrypt\w*|leak|leaks|leaking|post|posts|posting)"
                      r"\s+(?:[\w'-]+\s+){0,3}?(?:home\s+(?:directory|folder|dir)|files?|folders?|directory|directories|"
                      r"documents|ssh\s+keys?|api\s+keys?|passwords?|credentials|hard\s+(?:drive|disk)|disk|inbox|"
                      r"contacts|cookies|browser\s+history|photos)\b|(?<![\w/])(?:/etc|/home|/root|~/)[\w./-]*|"
                      r"\b(?:my|your|the\s+user'?s)\s+(?:home\s+(?:directory|folder)|documents(?:\s+folder)?|files|"
                      r"ssh\s+keys?|passwords?|inbox|hard\s+drive|e-?mails?)\b|\b(?:send|sends|sending)\s+(?:an?\s+)?e-?mails?\b")


def _restated_in_brackets(r: Reading) -> None:
    """A unit named again in brackets right after a phrase read for it ("four enemy listening posts (radar towers)")
    says nothing new: it is read with that phrase."""
    names = roster_names()
    for m in re.finditer(r"\(\s*(?:the\s+|an?\s+)?([a-z][a-z -]{1,40}?)\s*\)", r.text):
        said = names.get(m.group(1))
        before = [h for h in r.hits if m.start() - 2 <= h.end <= m.start()]
        if said is None or not before:
            continue
        h = max(before, key=lambda h: h.end)
        if any(t == said and re.search(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", r.text[h.start:h.end])
               for n, t in names.items()):
            r.hit(m, h.key)


def _machine_refusal(r: Reading, query: str) -> Reading | None:
    """The refusal of a request with no game in it whose ask is the user's machine or accounts."""
    machine = _MACHINE.search(r.text)
    forbidden = next((h for h in r.hits if h.key == "forbidden"), None)
    if not machine and not forbidden:
        return None
    a, b = (machine.start(), machine.end()) if machine else (forbidden.start, forbidden.end)
    said = query[r.offsets[a]:r.offsets[b - 1] + 1]
    return _refuse(r, f"this asks for access to your computer, files or accounts (\"{said}\"), which no Genesis "
                      "scenario has: rule scripts run in a sandbox with the rule API only (no files, network, "
                      f"e-mail or shell); and it asks for no game the offline backend builds ({GAME_WORDS})")


def _game_not_understood(r: Reading, query: str, why: str) -> Reading:
    """The refusal of a request whose game is not understood, quoting the first stretch it could not read;
    a request whose ask is the user's machine or accounts is told that instead."""
    machine = _machine_refusal(r, query)
    if machine:
        return machine
    unread = _first_unread(r, query)
    return _refuse(r, "the offline backend does not understand what game this asks for"
                      + (f" (\"{unread}\" is not in its vocabulary)" if unread else "")
                      + f": {why} ({GAME_WORDS}); rephrase with those words or use a real model with --model")


# the words of each game the offline backend builds, as a refusal suggests them
GAME_WORDS = ("defend against waves, raids on your economy, produce N units by a time, free-for-all, 2v2 teams, "
              "destroy a base, capture and hold a zone, escort a unit or convoy to a place, scout / find hidden "
              "targets, bank N metal or energy, a micro skirmish of N units versus M")


def _first_unread(r: Reading, query: str) -> str:
    """The request's first stretch between punctuation that recognised phrases cover less than half of, as
    written ("" if none)."""
    # a clock ("8:00") or a decimal ("2.5") does not end a stretch: cut there, the quote stopped inside a
    # rewritten phrase of the request ("The watch stops at the e")
    for m in re.finditer(r"(?:[^,;:.!?()]|(?<=\d)[:.](?=\d))+", r.text):
        piece = m.group(0).strip()
        covered = sum(max(0, min(h.end, m.end()) - max(h.start, m.start())) for h in r.hits)
        if len(piece.split()) >= 2 and covered < len(m.group(0)) / 2:
            end = r.offsets[m.end()] if m.end() < len(r.offsets) else len(query)
            end += len(re.match(r"[\w'-]*", query[end:]).group(0))    # never inside a word
            piece = query[r.offsets[m.start()]:end].strip(" ,;:.!?()")
            return piece if len(piece) <= 80 else piece[:79] + "…"
    return ""


# Words of an attack on the player ("they'll knock at your gate", "a probing party pokes at your flank").
_ATTACKED = re.compile(r"\b(?:waves?|attack\w*|assault\w*|raid\w*|push(?:es)?|columns?|strikes?|hit|hits|knocks?|"
                       r"punch(?:es)?|rush\w*|counter-?attack\w*|bombers?|gunships?|blows?|trickle|drip|storm\w*|"
                       r"invad\w*|invasion|charg\w*|prob(?:e|es|ing)|pokes?|barrage|shell\w*|bombard\w*|onslaught|"
                       r"siege|besieg\w*|swarm\w*|horde|incursion|offensive|fronts?|advanc\w*|march\w*|"
                       r"(?:comes?|coming|pours?|sweeps?|descends?|approach\w*)(?:\s+\w+)?\s+from|"
                       r"(?:darts?|dashes|dash|lunges?|swoops?|pounces?)\s+(?:in\s+)?(?:at|on|onto|into)|converg\w*|"
                       r"clos(?:e|es|ing)\s+in|bear(?:s|ing)?\s+down|hunt(?:s|ing)?|(?:comes?|coming|go(?:es)?|going)\s+"
                       r"(?:at|for|after))\b")


# what a request for system access is asked of: "have a rule ...", "make the script ...", "use lua to ..."
_ASK_START = re.compile(r"\b(?:have|make|let|get|ask|tell|write|add|give|use|using)\s+(?:(?:a|an|the|my|your|each|"
                        r"every|some|one)\s+)?(?:[\w-]+\s+)?(?:rules?|scripts?|lua|triggers?|code)\b")
_FORBIDDEN_PATH = re.compile(r"(?<![\w.])(?:/|~/)(?:[\w.-]+/)*[\w.-]+|\bpasswd\b|\b[a-z]:\\\S+"
                             r"|\b(?:read|reads|reading|open|opens|write|writes|delete|deletes|list|lists)\s+(?:the\s+|a\s+|"
                             r"some\s+|any\s+|all\s+)?(?:[\w-]+\s+)?files?\b|\b[\w-]+\.(?:txt|cfg|conf|ini|json|lua|sh|py|log|csv)\b")


def _forbidden_asks(text: str) -> list[tuple[int, int]]:
    """The spans of the request that ask rule scripts for system access (os / io calls, files, shell):
    the whole ask, from what it asks ("have a rule read ...") in its sentence to the last forbidden word
    of that sentence, so the clause that carries it is reported, not only the word that gave it away."""
    words = []
    for w in V.FORBIDDEN_RULE_WORDS:
        lead = r"(?<![\w-])" if w[0].isalnum() else ""
        tail = r"(?![a-z])" if w[-1].isalpha() else ""       # "shell", not artillery "shells"
        words += [(m.start(), m.end()) for m in re.finditer(lead + re.escape(w) + tail, text)]
    words += [(m.start(), m.end()) for m in _FORBIDDEN_PATH.finditer(text)]
    from genesis.offline.clauses import cuts      # the clause cuts (clauses imports this module)
    points = cuts(text) + [len(text)]
    spans: list[tuple[int, int]] = []
    for a, b in sorted(words):
        # to the end of the clause that names it: 'os.execute("rm -rf /")', "io.popen to list files"
        b = max(b, next(p for p in points if p >= b))
        while b > a and text[b - 1] in " ,;:!?":
            b -= 1
        sentence = max(text.rfind(p, 0, a) for p in (". ", "; ", "! ", "? ")) + 1
        asks = [m for m in _ASK_START.finditer(text, sentence, a)]
        # from what it asks of a rule ("have a rule read ..."), else from the start of its clause
        a = asks[-1].start() if asks else max(p for p in points if p <= a)
        if spans and a <= spans[-1][1] + 1 or spans and asks and asks[-1].start() <= spans[-1][0]:
            spans[-1] = (min(spans[-1][0], a), max(spans[-1][1], b))
        else:
            spans.append((a, b))
    return spans


# Playing a commercial game, online or on an account: never a scenario of Genesis's own simulator (a title named
# as a style, "a StarCraft-style rush", is not this)
_TITLES = (r"starcraft(?:\s+ii|\s+2)?|warcraft(?:\s+iii|\s+3)?|age\s+of\s+empires(?:\s+\w+)?|dota(?:\s+2)?|"
           r"league\s+of\s+legends|company\s+of\s+heroes|command\s+(?:&|and)\s+conquer|total\s+war|supreme\s+commander|"
           r"beyond\s+all\s+reason|zero-k|civilization|hearts\s+of\s+iron")
_OUTSIDE = re.compile(r"\b(?:play|plays|playing|played|grind|grinding)\s+(?:\w+\s+){0,2}?(?:" + _TITLES + r")\b|"
                      r"\b(?:on|with|using|from|into)\s+(?:my|your|our|a|the)\s+(?:real\s+|own\s+|personal\s+|live\s+)?"
                      r"(?:[\w.-]+\s+){0,2}?account\b|\bbattle\.net\b|\bagainst\s+(?:real\s+|live\s+)?human\s+"
                      r"(?:opponents|players)\b|\b(?:online|ranked)\s+(?:ladder|matchmaking)\b|"
                      # a program, not a scenario: "write a Python script that scrapes the Steam store"
                      r"\b(?:write|code|build|make|create)\s+(?:me\s+)?(?:a|an)\s+(?:[\w-]+\s+)?(?:script|program|scraper|"
                      r"crawler|website|web\s+app|spreadsheet)\b|\bscrap(?:e|es|ing)\s+(?:the\s+)?(?:[\w.-]+\s+)?(?:store|site|"
                      r"website|web|page)|"
                      # infrastructure, not a scenario: "deploying a working Kubernetes cluster config"
                      r"\b(?:kubernetes|k8s|docker|terraform|ansible|helm\s+chart|aws|azure|gcp)\b")


_IMPOSSIBLE = re.compile(r"\bminus\s+(?:\d+(?:\.\d+)?|" + "|".join(sorted(V.NUMBER_WORDS, key=len, reverse=True)) + r")\b"
                         r"(?:\s+[\w-]+)?|\bnegative\s+(?:\d+|[\w-]+)(?:\s+[\w-]+)?|"
                         r"\bevery\s+(?:0|zero)\s+(?:seconds?|secs?|s|minutes?)\b|"
                         r"\bmap\s+(?:of|with)\s+(?:0|zero|no)\s+tiles\b|\b(?:0|zero)-tiles?\s+map\b|"
                         r"\bbefore\s+the\s+(?:match|game|round)\s+(?:began|begins|starts|started)\b|"
                         r"\b(?:set\s+to|ends?|ending|limit\s+of)\s+yesterday\b|"
                         # "over before it starts", "at zero seconds", "build forty tanks in three seconds"
                         r"\b(?:over|ends?|ended|finished|done)\s+before\s+it\s+(?:starts|begins|has\s+(?:started|begun))\b|"
                         r"\b(?:at|after|lasting|lasts?|within)\s+(?:0|zero)\s+(?:seconds?|secs?|s|minutes?)\b|"
                         r"\b(?:build|produce|train|make|field|assemble)\b[^.;]{0,60}?\b(?:in|within)\s+(?:[1-9]|one|two|three|"
                         r"four|five|six|seven|eight|nine)\s+(?:seconds?|secs?)\b|"
                         # "both players must win and both must lose"
                         r"\b(?:both|all|every)\s+(?:of\s+the\s+)?(?:players?|sides?|teams?)\s+(?:must|should|have\s+to|will)\s+win\s+"
                         r"and\s+(?:both|all|they\s+all|each)?\s*(?:must|should|have\s+to|will)?\s*lose\b|"
                         # "must win at 2:00 and must also lose at 2:00", "win and lose at the same time"
                         r"\b(?:must|has\s+to|have\s+to|should)\s+win\b[^.;]{0,30}?\band\s+(?:must\s+|has\s+to\s+|have\s+to\s+)?"
                         r"(?:also\s+)?lose\b|\bwin\s+and\s+lose\s+at\s+(?:the\s+same\s+time|once)\b|"
                         # a battle nobody can fight: "every player has zero units", "a free-for-all with a single team"
                         r"\b(?:every|each|all)\s+(?:player|side|team|army)s?\s+(?:has|have|gets?|with|starts?\s+with)\s+"
                         r"(?:zero|0|no)\s+units\b(?!\s+left)|\b(?:free[\s-]for[\s-]all|ffa)\s+(?:with|of|between|for)\s+(?:a\s+single|one|"
                         r"just\s+one|only\s+one|1)\s+(?:team|player|side|army)\b(?!\s+(?:per|each|for|a\s+piece|apiece|of\s+(?:\d|two|three|four)))")


def _impossible(text: str) -> list[str]:
    """The parts of a request no game can have: "minus five minutes", "every zero seconds", "a map of zero
    tiles", "whoever wins before the match began"."""
    return [m.group(0) for m in _IMPOSSIBLE.finditer(text)]


def _other_game(r: Reading) -> str | None:
    """A game that is no RTS named before any scenario family ("a poker tournament ... blinds doubling")."""
    first_game = min((h.start for h in r.hits if h.key == "archetype"), default=len(r.text))
    found = sorted((m.start(), w) for w in V.OTHER_GAMES for m in [_find(r.text, w)] if m)
    return found[0][1] if found and found[0][0] < first_game else None


def _segment(text: str, at: int) -> tuple[int, int]:
    """The clause around `at`: between the nearest , ; : . or "while" on either side."""
    stops = [m.end() for m in re.finditer(r"[,;:.]\s*|\bwhile\s+", text[:at])]
    end = re.search(r"[,;:.](?:\s|$)|\s+while\b|$", text[at:])
    return (stops[-1] if stops else 0), at + end.start()


# a hazard that closes in round the fight: the safe zone shrinking, said as weather ("a storm closes in every
# half minute and hurts whoever is caught outside it")
_CLOSING_IN = re.compile(r"(?:storm|storms|sandstorm|blizzard|poison\s+gas|toxic\s+gas|gas|fire|wildfire|radiation)\s+"
                         r"(?:wall\s+|ring\s+|cloud\s+)?(?:closes\s+in|close\s+in|shrinks|shrink|contracts|tightens|"
                         r"creeps\s+in|moves\s+in|pushes\s+in|closes)\b")


def _hazards(r: Reading) -> None:
    """Meteors, floods, storms: no design of the offline backend builds them; their clause is reported, and a
    time in it is the hazard's, not an attack's (see `_in_hazard`)."""
    for w in V.HAZARDS:
        for m in re.finditer(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", r.text):
            start, end = _segment(r.text, m.start())
            if any(a <= m.start() < b for a, b in r.hazard_spans) or _CLOSING_IN.match(r.text, m.start()):
                continue    # a storm that closes in and hurts whoever is outside is the shrinking safe zone
            why = (f"the offline backend has no design for a {w} hazard (nothing was built for it); a real model "
                   "(--model) can write a rule that damages units in an area")
            r.hazard_spans.append((start, end))
            r.unsupported.append(why)
            r.hit((start, end), "hazard", why)


def _in_hazard(r: Reading, at: int) -> bool:
    return any(a <= at < b for a, b in r.hazard_spans)


def _refuse(r: Reading, why: str) -> Reading:
    r.is_game = False
    r.refusal = why
    return r


_KILL = (r"(?:destroy|knock\s+out|knock\s+down|take\s+out|raze|demolish|wreck|flatten|silence|eliminate|kill|"
         r"neutrali[sz]e|wipe\s+out|take\s+down|bring\s+down|level|topple|blow\s+up|burn\s+down|smash|tear\s+down|"
         r"pull\s+down|obliterate|annihilate|erase|wipe)")
_SIEGE_NOUNS = (r"storages?|base|fortress|turrets?|factor(?:y|ies)|hq|headquarters|bunkers?|stronghold|fort|plants?|labs?|"
                r"emplacements?|batter(?:y|ies)|commander|guns?|installations?|outposts?|towers?|radars?|"
                r"radar\s+towers?|dish(?:es)?|buildings?|reactors?|extractors?|collectors?|cannons?|depots?|silos?|"
                r"generators?|pylons?|refiner(?:y|ies)|command\s+(?:cent(?:er|re)|post)s?|barracks|citadels?|castles?|"
                r"keeps?|nexus")
# a building the enemy owns, said by its owner, its place in their camp, or the turrets round it
_THEIR_BUILDING = (r"\b(?:(?:their|the\s+enemy'?s|an?\s+enemy|the\s+enemy)\s+(?:[\w'-]+\s+){0,3}?(?:" + _SIEGE_NOUNS + r")"
                   r"|(?:their|the\s+enemy'?s?)\s+(?:camp|base|compound|side|lines)\s+(?:has|holds|contains|hides|keeps)\s+"
                   r"(?:an?|the|one|its)\s+(?:[\w'-]+\s+){0,3}?(?:" + _SIEGE_NOUNS + r")"
                   r"|(?:an?|the)\s+(?:[\w'-]+\s+){0,3}?(?:" + _SIEGE_NOUNS + r")\s+(?:(?:sits|stands|squats|lies|is)\s+)?"
                   r"(?:(?:in|at|inside|behind|within|deep\s+in)\s+(?:the\s+(?:middle|centre|center|heart|back)\s+of\s+)?"
                   r"(?:their|the\s+enemy'?s?)\s+(?:camp|base|lines|territory|compound|fortress|side)|(?:guarded|ringed|"
                   r"surrounded|defended|protected|encircled|screened)\s+by))\b")
# the verb that destroys it, pointing back: "it", "the thing", "the dish"; a particle may stand after the object
_BACK_TO_IT = r"(?:it|them|that(?:\s+thing)?|the\s+(?:[\w-]+\s+)?(?:thing|target|" + _SIEGE_NOUNS + r"))"
_KILLED_AGAIN = (r"\b(?:" + _KILL + r"\s+" + _BACK_TO_IT + r"(?:\s+(?:up|out|down))?|(?:take|knock|wipe|bring|shoot|blow|"
                 r"burn|tear|pull)\s+" + _BACK_TO_IT + r"\s+(?:out|down|up))\b")
_SIEGE = re.compile(r"\b" + _KILL + r"\s+(?:the|their|its|his|an?|that|every|all|each|both|\d+|" + "|".join(V.NUMBER_WORDS)
                    + r")\s+(?:of\s+the\s+)?(?:enemy\s+)?"
                    r"(?:[\w-]+\s+){0,3}?(?:" + _SIEGE_NOUNS + r"|line|target|position)\b"
                    # the target named first, the verb after it: "the enemy base could be anywhere, find it and
                    # destroy it", "the enemy commander is dug in ...; take him out"
                    r"|\b(?:the|their|an?)\s+enemy(?:'s)?\s+(?:[\w-]+\s+){0,5}?(?:base|fortress|hq|headquarters|stronghold|"
                    r"fort|bunker|commander|battery|cannon|artillery)\b"
                    r"(?P<gap1>[^.]{0,240}?)\b(?:" + _KILL + r"\s+(?:it|them|him|her)|(?:take|knock|wipe|bring|shoot)\s+"
                    r"(?:it|them|him|her)\s+(?:out|down))\b"
                    # "bring down every one of the three enemy radar towers"
                    r"|\b" + _KILL + r"\s+(?:every|each|all)\s+(?:(?:last|single)\s+)?(?:one\s+|(?:\d+|"
                    + "|".join(V.NUMBER_WORDS) + r")\s+)?(?:of\s+)?(?:the|their)\s+"
                    r"(?:\w+\s+)?(?:enemy\s+)?(?:[\w-]+\s+){0,2}?(?:" + _SIEGE_NOUNS + r")\b"
                    # the target first, its end in the passive: "their whole base has to be rubble by 10:00"
                    r"|\b(?:their|the\s+enemy'?s?)\s+(?:whole\s+|entire\s+)?(?:" + _SIEGE_NOUNS + r")\b(?P<gap2>[^.;]{0,60}?)\b(?:(?:has|have|"
                    r"needs?|is|are)\s+to\s+be|must\s+be|should\s+be|will\s+be|gets?)\s+(?:rubble|razed|flattened|destroyed|levell?ed|gone|wiped\s+out|in\s+ruins|"
                    r"ashes|reduced\s+to\s+rubble)\b"
                    # "their factory squats behind turrets; reduce it to rubble"
                    r"|\b(?:their|the\s+enemy'?s?)\s+(?:[\w'-]+\s+){0,2}?(?:" + _SIEGE_NOUNS + r")\b(?P<gap3>(?:[^.]|\.(?=\s+\w)){0,240}?)\b(?:" + _KILL
                    + r"\s+(?:it|them)|(?:reduce\s+(?:it|them)\s+to|turn\s+(?:it|them)\s+into)\s+(?:rubble|ashes|ruins|dust|scrap|wreckage)|(?:take|knock|wipe|bring|"
                    r"shoot)\s+(?:it|them)\s+(?:out|down))\b"
                    # the enemy dug in somewhere, the verb after: "they've dug in around a metal storage; flatten it",
                    # "the enemy is entrenched around a radar tower ...; level it"
                    r"|\b(?:they|the\s+enemy|the\s+enemies|the\s+foe|the\s+opposition|their\s+(?:[\w-]+\s+)?(?:forces|army|troops|"
                    r"units|artillery|guns|tanks|bots|garrison|defenders))(?:'ve|'re|\s+(?:have|has|"
                    r"are|is))?\s+(?:(?:dug|holed|bunkered|walled)\s+(?:themselves\s+|itself\s+)?(?:in|up|down)|entrenched|"
                    r"fortified|barricaded|sheltering|camped|encamped|set\s+up|holding\s+out|hunkered\s+down)\s+"
                    r"(?:(?:themselves|itself)\s+)?(?:(?:up\s+)?(?:around|"
                    r"behind|at|in|inside|near|by|round|on|atop|over)\s+)?(?:an?|the|their|its)\s+(?:[\w-]+\s+){0,5}?(?:" + _SIEGE_NOUNS
                    + r"|extractors?|collectors?|reactors?)\b(?P<gap4>(?:[^.]|\.(?=\s+\w)){0,240}?)\b(?:" + _KILL + r"\s+(?:it|them)|(?:reduce\s+(?:it|them)\s+to|turn\s+"
                    r"(?:it|them)\s+into)\s+(?:rubble|ashes|ruins|dust|scrap|wreckage)|(?:take|knock|wipe|bring|shoot|blow|burn|tear|pull)\s+"
                    r"(?:it|them)\s+(?:out|down|up))\b"
                    # the target named inside the verb: "turn the enemy commander's bunker into scrap"
                    r"|\b(?:turn|reduce)\s+(?:the|their|its)\s+(?:enemy(?:'s)?\s+)?(?:[\w'-]+\s+){0,2}?(?:" + _SIEGE_NOUNS
                    + r")\s+(?:into|to)\s+(?:rubble|ashes|ruins|dust|scrap|wreckage)\b"
                    # a building of theirs named first, destroyed by a word that points back to it ("their camp has a
                    # generator ringed by turrets ... blow the thing up", "a depot behind their lines ...; take it out")
                    r"|" + _THEIR_BUILDING + r"(?P<gap5>(?:[^.]|\.(?=\s+\w)){0,240}?)" + _KILLED_AGAIN)

# a place to take and keep; a bridge, pass or crossroads only with a verb of taking ("hold the bridge against
# three waves" is a defence)
_CAPTURE = re.compile(r"\b(?:take|seize|capture|claim|hold|control|occupy|grab|conquer|keep\s+(?:control|hold)\s+of)\s+"
                      r"(?:the\s+)?(?:(?:central|middle|centre|center|northern|southern|eastern|western|small|big|"
                      r"contested|neutral|capture|control|objective)\s+){0,2}(?:middle|centre|center|zone|hill|point|"
                      r"plaza|objective area|high ground|summit|hilltop|plateau|beacon|shrine|flag|square|landmark|relic|"
                      r"altar|tower|monument)\b"
                      r"|\b(?:take|seize|capture|claim|occupy|grab|conquer|keep\s+(?:control|hold)\s+of)\s+(?:the\s+)?"
                      r"(?:(?:central|middle|northern|southern|eastern|western|river|mountain|stone|old)\s+){0,2}"
                      r"(?:bridge|pass|crossroads|ridge|crossing|ford|junction|gate)\b"
                      # "plant your army on the hilltop", "station your units in the zone"
                      # a place named before, taken and kept by pronoun: "there's a bridge to the west. take it. keep it
                      # for a minute and a half"
                      r"|\b(?:take|seize|capture|claim|occupy|grab)\s+it\W+(?:then\s+|and\s+)?(?:keep|hold)\s+it\s+for\b"
                      r"|\b(?:plant|station|post|park|put|keep|move|get)\s+(?:your|the|all\s+your)\s+(?:army|units|forces|"
                      r"troops|squad|men|tanks|bots|vehicles)\s+(?:on|at|in|onto|into)\s+(?:the\s+)?(?:(?:central|middle)\s+)?"
                      r"(?:hilltop|hill|summit|zone|plaza|plateau|high ground|centre|center|middle|point|beacon)\b"
                      # a place named before: "the ford is the prize: have troops on it and nobody else's"
                      r"|\b(?:have|keep|get|put)\s+(?:your\s+|some\s+|our\s+|my\s+)?(?:troops|units|forces|men|army|"
                      r"soldiers|squad|people|folks|guys)\s+(?:(?:standing|sitting|parked|stationed|posted)\s+)?"
                      r"(?:on|at|in|atop|upon)\s+(?:it|there|that\s+spot|that\s+place)\b"
                      r"(?=[^.;]{0,60}?\b(?:nobody|no\s+one|none|no\s+enemy|no\s+enemies|not\s+theirs|uncontested|"
                      r"unchallenged|undisputed|unopposed|alone|not\s+(?:one|a\s+single)\s+(?:enemy|foe|hostile))\b)"
                      # a flag over a place: "your colours have to fly over the middle of the map", "plant your flag on the hill"
                      r"|\b(?:fly|raise|plant|hoist)\s+(?:your\s+|the\s+|our\s+)?(?:colou?rs?|flag|banner|standard)\s+"
                      r"(?:over|on|at|atop|above)\b|\b(?:your\s+|our\s+)?(?:colou?rs?|flag|banner)\s+(?:have|has|must|needs?|"
                      r"should)\s+(?:to\s+)?fly\s+(?:over|on|at|above)\b"
                      # its holders driven off first, then kept: "clear the four guards off the crossroads, then stay on
                      # it for a minute", "drive the defenders out of the zone and sit on it for 90 seconds"
                      r"|\b(?:clear|drive|push|chase|kick|knock|force|flush|run|throw|shove)\s+(?:out\s+)?(?:the\s+|their\s+|all\s+|"
                      r"every\s+)?(?:(?:\d+|" + "|".join(V.NUMBER_WORDS) + r")\s+)?(?:enemy\s+|hostile\s+)?(?:guards|defenders|"
                      r"enemies|enemy|garrison|occupiers|troops|holders|squatters|units|bots|tanks|them)\s+(?:off|out\s+of|from|"
                      r"away\s+from)\s+(?:the\s+|that\s+)?(?:[\w-]+\s+){0,2}?(?:bridge|pass|crossroads|ridge|crossing|ford|"
                      r"junction|gate|hilltop|hill|summit|zone|plaza|plateau|centre|center|middle|point|beacon|circle|"
                      r"square)\b(?=[^.;]{0,120}?\b(?:stay|sit|camp|hold|keep|remain|park|squat|stand)\b)"
                      # kept against being driven off: "don't let them push you off it for two minutes"
                      r"|\b(?:don't|do\s+not|never)\s+let\s+(?:them|the\s+enemy|the\s+enemies|anyone|anybody|the\s+other\s+side)"
                      r"\s+(?:push|drive|kick|knock|force|throw|shove|chase)\s+you\s+(?:off|out\s+of)\b"
                      # staying on a place for a time: "sit on the bridge for two minutes running"
                      r"|\b(?:sit|sitting|camp|camping|squat|squatting|park|parking|stand|standing|stay|staying|remain|"
                      r"remaining|perch|perching)\s+(?:on|at|in|atop|upon|onto)\s+(?:the\s+|that\s+)?(?:[\w-]+\s+){0,2}?"
                      r"(?:bridge|pass|crossroads|ridge|crossing|ford|junction|gate|hilltop|hill|summit|zone|plaza|"
                      r"plateau|centre|center|middle|point|beacon|circle|square)\b(?=[^.;]{0,40}?\bfor\s+(?:\d|(?:"
                      + "|".join(V.NUMBER_WORDS) + r"|half)\b))")


# holding a crossing for a time, with no waves to beat: "hold the western bridge for 80 seconds" is a capture
# ("hold the bridge against three waves for 5 minutes" is a defence)
_HOLD_FOR = re.compile(r"\b(?:hold|keep|control|own)\s+(?:the\s+|that\s+)?(?:[\w-]+\s+){0,2}?(?:bridge|pass|crossroads|"
                       r"ridge|crossing|ford|junction|gate)\b(?=[^.;]{0,40}?\bfor\s+(?:\d|(?:"
                       + "|".join(V.NUMBER_WORDS) + r"|half)\b))")
_WAVES = re.compile(r"\b(?:waves?|attacks|assaults|raids)\b")


# the enemy as the one who destroys: "don't let the raiders take out a single extractor" is no siege
_ENEMY_ACTS = re.compile(r"\b(?:raiders?|enemy|enemies|attackers?|bombers?|hostiles?|foes?|opponents?|they|let\s+them|waves?|"
                         r"the\s+ai)(?:\s+(?:will|would|can|could|may|might|must|try\s+to|tries\s+to|manage\s+to|"
                         r"manages\s+to|get\s+to|gets\s+to|never|ever|not|then|also|to))*\s+$")


def _siege_matches(text: str) -> list[re.Match]:
    """The phrases that destroy a target of theirs; not the enemy's own doing, before the target or before the verb
    that points back to it ("the generator, guarded by turrets, must stand: if raiders blow it up you lose")."""
    def enemy_acts(at: int) -> bool:
        return bool(_ENEMY_ACTS.search(text[max(0, at - 40):at]))
    return [m for m in _SIEGE.finditer(text)
            if not enemy_acts(m.start()) and not (m.group("gap5") is not None and enemy_acts(m.end("gap5")))]


def _in_unit_name(text: str):
    """Whether a match lies inside a longer unit name of `text` ("assault" in "assault bots")."""
    names = [m.span() for m in re.finditer(r"(?<![\w-])" + _unit_pattern("any"), text)]
    return lambda m: any(a <= m.start() and m.end() <= b and b - a > m.end() - m.start() for a, b in names)


def _archetype(r: Reading) -> None:
    """Sets the scenario family from its trigger words (defence, the model's default, when none is named)."""
    text, c = r.text, r.concepts
    chosen = None
    sieges = _siege_matches(text)
    for arch, found in (("siege", bool(sieges)), ("capture", bool(_CAPTURE.search(text)))):
        if found and not any(_has(text, t) for t in V.ARCHETYPE_TRIGGERS["production"]):
            chosen = arch
            break
    if chosen is None and _HOLD_FOR.search(text) and not _WAVES.search(text):
        chosen = "capture"
    # a trigger word inside a longer unit name ("assault" in "assault bots") names a unit, not the game
    in_name = _in_unit_name(text)

    def triggers_in(t: str) -> list[re.Match]:
        return [m for m in re.finditer(r"(?<![\w-])" + re.escape(t) + r"(?![\w-])", text) if not in_name(m)]

    chosen = chosen or next((arch for arch, triggers in V.ARCHETYPE_TRIGGERS.items()
                             if any(triggers_in(t) for t in triggers)), None)
    if chosen is None:
        return
    c.archetype = chosen  # type: ignore[assignment]
    r.matched.append(f"archetype {chosen}")
    phrases = {"siege": sieges, "capture": [*_CAPTURE.finditer(text), *_HOLD_FOR.finditer(text)]}
    for m in phrases.get(chosen, []):
        _hit_around_gaps(r, m, "archetype")
    for t in V.ARCHETYPE_TRIGGERS[chosen]:
        for m in triggers_in(t):
            r.hit(m, "archetype")


def _hit_around_gaps(r: Reading, m: re.Match, key: str) -> None:
    """A phrase whose target and verb stand apart ("the enemy commander is dug in ... with 12 light bots ...;
    take him out") reads the target and the verb: the words between them (`gap` groups) are read only by
    phrases of their own."""
    start = m.start()
    for name in sorted((g for g in m.re.groupindex if g.startswith("gap") and m.group(g) is not None),
                       key=lambda g: m.start(g)):
        if m.start(name) > start:
            r.hit((start, m.start(name)), key)
        start = m.end(name)
    if m.end() > start:
        r.hit((start, m.end()), key)


_DEFENCE_LINE = re.compile(r"\b(?:turret|defen[cs]e|defensive|gun|bunker|tower)s?\s+(?:line|wall|belt|cordon)\b|"
                           r"\b(?:line|wall|row|belt|cordon|chain)\s+of\s+(?:[\w-]+\s+)?(?:turrets|towers|guns|defen[cs]es|"
                           r"bunkers|emplacements)\b")


def _siege_target(r: Reading) -> None:
    """The building (or commander) a siege names as its target: "destroy the enemy factory" -> bot_lab."""
    # the siege is won by destroying its one target: "every last building", "the whole base" asks for more
    for whole in re.finditer(r"\b(?:every|all|each)\s+(?:last\s+|single\s+)?(?:of\s+(?:their|the)\s+)?(?:enemy\s+)?"
                             r"(?:buildings?|structures?)\b|\b(?:whole|entire)\s+(?:enemy\s+)?base\b", r.text):
        r.hit(whole, "objective", "the siege is won by destroying its target building; the rest of the base need "
                                  "not fall")
    # the design fortifies the target with a ring: a line or a wall across the map is another layout
    for line in _DEFENCE_LINE.finditer(r.text):
        r.hit(line, "fortification", "the fortification is a turret ring round the target at a site drawn per "
                                     "game, not a line across the map")
    m = next(iter(_siege_matches(r.text)), None)
    if m is None:
        return
    # the enemy dug in somewhere: its target is the last thing named before the verb ("holed up behind a ring of
    # light turrets around a metal storage ... smash it"); elsewhere the first named ("their factory squats behind
    # turrets; reduce it to rubble")
    dug_in = m.group("gap4") is not None
    said = m.group(0)[:m.end("gap4") - m.start()] if dug_in else m.group(0)
    if m.group("gap5") is not None:
        # a building of theirs named first and destroyed by a word pointing back: the target is that building
        said = m.group(0)[:m.start("gap5") - m.start()]
        noun = re.findall(r"(?<![\w-])(?:[\w-]+\s+)?(?:" + _SIEGE_NOUNS + r")\b", said)
        if not re.search(r"(?<![\w-])" + _unit_pattern("building") + r"|\bcommander\b", said) and noun:
            r.assumptions.append(f'"{noun[0]}" is not a unit of the roster: the target is a metal storage')
            return
    names = list(re.finditer(r"(?<![\w-])" + _unit_pattern("any"), said))
    # what they are dug in around, inside or at is the target ("entrenched around a radar tower with 6 turrets")
    around = [n for n in names if re.search(r"\b(?:around|round|inside|in|at)\s+(?:an?|the|their|its)\s+(?:[\w-]+\s+){0,2}?$",
                                           said[:n.start()])]
    named = (around[0] if around else names[-1] if dug_in else names[0]) if names else None
    if named is None:
        return
    type_id = roster_names()[named.group(1)]
    if type_id in _building_types() or type_id == "commander":
        r.concepts.objective_type = type_id
        r.hit((m.start() + named.start(), m.start() + named.end()), "objective")
        # "wreck the four enemy solar collectors": a siege has one target, more are not built
        counted = re.search(r"\b(?:both|" + _NUM + r")\s+(?:[\w'-]+\s+){0,2}$", said[:named.start()])
        if counted and (counted.group(1) is None or number(counted.group(1)) > 1):
            r.hit((m.start() + counted.start(), m.start() + named.end()), "objectives",
                  "a siege is won by destroying its one target building; several targets are not built")


def artillery_siege(c: Concepts) -> bool:
    """A siege by artillery alone: artillery asked for (not as the enemy's: "their artillery has dug in"), and no
    other mobile unit named in the player's start."""
    catalog = load_catalog().units
    army = [t for t in c.player_start if t in catalog and catalog[t].speed > 0]
    theirs = "artillery_bot" in c.wave_units and "artillery_bot" not in army
    return c.archetype == "siege" and "artillery" in c.unit_kinds and not theirs and all(t == "artillery_bot" for t in army)


def siege_garrison(c: Concepts) -> list[str]:
    """The enemy unit types a siege request says hold the base ("their artillery has dug in around the storage");
    none when the request sends them as attacks (waves, raids, a timed attack): a siege builds no attacks."""
    attacked = c.waves or c.wave_interval or c.wave_times or c.raids or c.escalating
    return [] if c.archetype != "siege" or attacked else list(c.wave_units)


_TURRET_TYPES = ("light_turret", "heavy_turret", "aa_turret")


def _turret_names() -> str:
    """The roster's names of a turret ("light turrets", "gun towers", "anti-air gun"); "turrets" alone is a light one."""
    names = [n for n, t in roster_names().items() if t in _TURRET_TYPES] + ["anti-air turret", "anti-air turrets"]
    return "(" + "|".join(re.escape(n) for n in sorted(set(names), key=len, reverse=True)) + r")(?![\w-])"


def _turret_type(name: str) -> str:
    return roster_names().get(name) or ("aa_turret" if name.startswith("anti-air") else "light_turret")


def _siege_guards(r: Reading) -> None:
    """The turrets a siege's target stands among, when counted: "guarded by 8 light turrets", "8 heavy
    turrets guard the bot lab", "ringed by a dozen turrets", "with three gun towers around it"."""
    turret = _turret_names()
    num = r"(?:a\s+)?" + _GROUP_NUM
    m = re.search(r"\b(?:(?:guarded|defended|ringed|surrounded|protected|covered|encircled|screened|shielded|walled\s+off)"
                  r"\s+by|behind|among|amid|amongst|within|inside)\s+(?:a\s+(?:ring|line|wall|row|screen|cordon)\s+of\s+)?"
                  r"(?:roughly\s+|about\s+|around\s+|some\s+)?" + num + r"\s+" + turret, r.text) \
        or re.search(num + r"\s+" + turret + r"\s+(?:(?:and\s+[^.;,]{0,40}?\s+)?(?:guard|defend|ring|surround|protect|cover|"
                     r"encircle)|(?:and\s+[^.;,]{0,40}?\s+)?stand\s+(?:watch|guard))", r.text) \
        or re.search(r"\bwith\s+(?:roughly\s+|about\s+|around\s+|some\s+)?" + num + r"\s+" + turret
                     + r"\s+(?:all\s+)?(?:around|round|surrounding|ringing|guarding|protecting|covering)\s+(?:it|them)\b", r.text)
    if m is None:
        _counted_garrison(r)
        # uncounted: "dug in behind light turrets" is the family's ring of light turrets
        for u in re.finditer(r"\b(?:(?:guarded|defended|ringed|surrounded|protected|covered|encircled)\s+by|behind|among|amid)\s+"
                             r"(?:a\s+(?:ring|line|wall|row|screen|cordon)\s+of\s+)?(?:light\s+)?turrets\b", r.text):
            r.hit(u, "fortification")
        return
    _counted_garrison(r)
    r.concepts.guard_turrets = {_turret_type(m.group(2)): _GROUP_WORDS.get(m.group(1)) or int(number(m.group(1)))}
    r.hit(m, "fortification")
    # more kinds listed after it: "guarded by 6 light turrets and 2 heavy turrets"
    listed = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+)" + num + r"\s+" + turret)
    at = m.end()
    while (more := listed.match(r.text, at)):
        kind = _turret_type(more.group(2))
        r.concepts.guard_turrets[kind] = _GROUP_WORDS.get(more.group(1)) or int(number(more.group(1)))
        r.hit(more.span(), "fortification")
        at = more.end()


def _counted_garrison(r: Reading) -> None:
    """The enemy's mobile units a siege's base is held by, when counted: "with six assault bots guarding it",
    "guarded by 4 heavy tanks", "5 rocket bots defend the plant"."""
    mobile = _unit_pattern("mobile")
    num = r"(?:a\s+)?" + _GROUP_NUM
    for m in [*re.finditer(r"\b(?:guarded|defended|held|protected|garrisoned|patrolled)\s+by\s+" + num + r"\s+" + mobile, r.text),
              *re.finditer(num + r"\s+" + mobile + r"\s+(?:guarding|defending|holding|protecting|garrisoning|patrolling|guard|"
                           r"guards|defend|defends|hold|holds|protect|protects|patrol|patrols)\b", r.text)]:
        if re.search(r"\b(?:your|my|our)\s+(?:own\s+)?$", r.text[:m.start()]):
            continue    # the player's own guards ("your 3 tanks guarding the convoy")
        kind = roster_names()[m.group(2)]
        if load_catalog().units[kind].speed <= 0:
            continue
        r.concepts.garrison[kind] = _GROUP_WORDS.get(m.group(1)) or int(number(m.group(1)))
        if kind not in r.concepts.wave_units:
            r.concepts.wave_units.append(kind)
        r.hit(m, "garrison")


_FORCE_ITEM = r"(\d+|an?|" + "|".join(sorted(V.NUMBER_WORDS, key=len, reverse=True)) + r")\s+((?:[\w-]+\s+){0,2}?[\w-]+)"
# a list ends at punctuation or where the sentence goes on ("... and 4 heavy tanks with no production")
_GOES_ON = r"\s+(?:with|without|but|while|plus|against|versus|vs|on|in|at|to|for|from|so|then|as|that|who|which)\b"
# the player in the second person, the first ("I start with", "we get") or the third
_PLAYER = r"(?:you|i|we|the\s+player|player|the\s+agent|your\s+side|my\s+side|our\s+side)"
_START_FORCES = re.compile(r"\b(?:" + _PLAYER + r"\s+(?:starts?|begins?)\s+(?:(?:out|off)\s+)?"
                           r"(?:with|from)|(?:starting|beginning)\s+(?:(?:out|off)\s+)?(?:with|from)|"
                           + _PLAYER + r"(?:\s+(?:gets?|has|have|have\s+got|will\s+have)|'ve\s+got|'ll\s+have)|"
                           r"with\s+a\s+fortified\s+base\s+of|"
                           # "claim the ford with just 4 light bots and 2 rocket bots": all the player has
                           r"(?:with|using)\s+(?:just|only|merely|nothing\s+but|no\s+more\s+than)|"
                           r"(?:you(?:'re|\s+are)|i(?:'m|\s+am)|we(?:'re|\s+are)|the\s+player\s+is)\s+"
                           r"(?:given|handed|issued|allotted|dealt)|"
                           # "give me four light tanks and a pair of anti-air units to guard it"
                           r"(?:give|hand|grant|lend)\s+(?:me|us|the\s+player)|"
                           + _PLAYER + r"\s+(?:receives?|command|commands|control|controls))\s+"
                           r"(?:(?:just|only|merely)\s+)?((?:(?:and\s+)?" + _FORCE_ITEM + r"(?:\s*,\s*|\s+and\s+|\s*(?=[;.:]|-\s|$|" + _GOES_ON + r")))+)")

# the units first, the start after: "the six artillery bots you start with (are all you'll ever get)"
_FORCES_THEN_START = re.compile(r"(?<![\w-])((?:(?:and\s+)?" + _FORCE_ITEM + r"(?:\s*,\s*|\s+and\s+)?)+?)\s+(?:that\s+)?"
                                r"(?:" + _PLAYER + r"\s+(?:start|starts|begin|begins)\s+(?:(?:out|off)\s+)?with|"
                                r"(?:you(?:'re|\s+are)|i(?:'m|\s+am)|we(?:'re|\s+are))\s+(?:handed|given|issued|dealt|allotted)|"
                                + _PLAYER + r"(?:'ve|\s+have)\s+(?:got|been\s+(?:given|handed)))\b")
# the units that act first in a sentence: "five artillery bots must destroy ...", "3 scouts have to find ..."
_FORCES_ACT = re.compile(r"(?:^|[.;:!?]\s*)((?:(?:and\s+)?" + _FORCE_ITEM + r"(?:\s*,\s*|\s+and\s+)?)+?)\s+(?:must|will|have\s+to|"
                         r"has\s+to|need\s+to|needs\s+to|are\s+to|should|get\s+to|try\s+to)\s+(?!be\b)")
# what the player does something with: "hold the ridge with 5 heavy tanks against ...", "defend it with 4 turrets",
# "destroy the base within 6 minutes using 8 light tanks"
_FORCES_WITH = re.compile(r"\b(?:hold|defend|protect|guard|take|capture|seize|claim|storm|assault|attack|break|clear|"
                          r"survive|keep|escort|raid|scout|find|locate|destroy|raze|breach)\b(?:(?!\b(?:waves?|attacks?|raids?|"
                          r"raiders?|assaults?|enem(?:y|ies)\s+(?:come|comes|send|sends))\b)[^.;]){0,70}?\b(?:with|using)\s+(?:your\s+|my\s+|our\s+)?(?:own\s+)?((?:(?:and\s+)?"
                          + _FORCE_ITEM + r"(?:\s*,\s*|\s+and\s+)?)+?)(?=\s+(?:against|versus|vs\.?|while|whilst|as|until|"
                          r"before|during|within|inside|by|in\s+(?:under|less|at\s+most|\d|" + "|".join(V.NUMBER_WORDS)
                          + r"))\b|\s*[,;.:]|\s*$)")
# the player's own units, counted, sent somewhere: "send my eight light tanks in", "take your ten tanks in"
_FORCES_SENT = re.compile(r"\b(?:send|sending|take|taking|lead|leading|bring|bringing|march|marching|move|moving|throw|"
                          r"commit|use|using|roll|push)\s+(?:in\s+)?(?:all\s+)?(?:of\s+)?(?:your|my|our)\s+(?:own\s+)?("
                          r"(?:(?:and\s+)?(?:\d+|" + "|".join(sorted(V.NUMBER_WORDS, key=len, reverse=True))
                          + r")\s+(?:[\w-]+\s+){0,2}?[\w-]+(?:\s*,\s*|\s+and\s+)?)+?)(?=\s+(?:in|into|forward|across|"
                          r"over|out|up|through|at|against|to|and)\b|\s*[,;.:]|\s*$)")
# "2 anti-air turrets are pre-built", "three turrets already stand": what the player has on the map at the start
_PREBUILT = re.compile(r"(?<![\w-])((?:(?:and\s+)?" + _FORCE_ITEM + r"(?:\s*,\s*|\s+and\s+)?)+?)\s+(?:(?:are|is)\s+"
                       r"(?:already\s+)?(?:pre-?built|pre-?placed|built|placed|in\s+place|standing|up)|already\s+"
                       r"(?:stand|stands|exist|exists))\b")


# who acts, said before the verb: the enemy's side, not the player's
_ENEMY_SUBJECT = re.compile(r"\b(?:enemy|enemies|hostiles?|foes?|opponents?|they|ai|ais|defenders?|garrison|computer|cpu|"
                            r"rivals?|attackers?|the\s+other\s+side)\b")


def _enemy_acts(text: str, at: int) -> bool:
    """The clause before `at` has the enemy acting ("a hold AI defends it with"), not merely fought ("hold the
    line against the enemy with")."""
    said = text[_segment(text, at)[0]:at]
    said = re.sub(r"\b(?:against|versus|vs\.?|from|of|off|at|on|toward|towards|past|beat|kill|destroy)\s+"
                  r"(?:the\s+|an?\s+|their\s+)?(?:(?:fortified|enemy|enemy's|whole|entire|main)\s+){0,2}[\w-]+", " ", said)
    return bool(_ENEMY_SUBJECT.search(said))


_PROGRESSION = re.compile(r"\bstart(?:ing|s)?\s+(?:off\s+|out\s+)?with\s+([^;,.]{3,60}?)\s*,?\s+(?:and\s+)?(?:then\s+)?"
                          r"(?:finish|end|build|ramp|work)(?:ing|s)?\s+(?:up\s+)?(?:with|to)\s+([^;,.]{3,60}?)(?=\s*[;,.]|$)")
_ATTACK_BEFORE = re.compile(r"\b(?:hit|hits|attack\w*|wave\w*|raid\w*|assault\w*|push\w*|come|comes|send|sends|"
                            r"pour\w*|rush\w*|strike\w*)\b")


def _start_forces(r: Reading) -> None:
    """What the player starts with: "you start with 6 turrets and 2 anti-air towers", "starting with 1
    constructor and 300 metal". Each item that names a roster unit (or metal) is a start force; the rest
    of the list is left to the clause accounting (not understood)."""
    c = r.concepts
    # "with only your commander": that one unit, and nothing else of the player's
    for m in re.finditer(r"\b(?:with|using|armed\s+with)\s+(?:only|just|nothing\s+but|no\s+more\s+than)\s+(?:your|my|our|"
                         r"the\s+player'?s?)\s+(?:lone\s+|single\s+)?" + _unit_pattern("mobile") + r"(?![\w-])", r.text):
        if not m.group(1).endswith("s"):
            c.player_start[roster_names()[m.group(1)]] = 1
            r.hit(m, "start_forces")
    # "bots hit my base, starting with a pair of scouts and finishing with a dozen heavy tanks": what the attacks
    # bring, first to last, not what the player starts with
    progressions = [m for m in _PROGRESSION.finditer(r.text) if _ATTACK_BEFORE.search(r.text[:m.start()].split(".")[-1])]
    for m in progressions:
        r.hit(m, "wave_units", f"attacks that change from \"{m.group(1)}\" to \"{m.group(2)}\" are not built: every "
                               "wave is one mix")
    for m in [*_START_FORCES.finditer(r.text), *_PREBUILT.finditer(r.text), *_FORCES_THEN_START.finditer(r.text),
              *_FORCES_ACT.finditer(r.text), *_FORCES_WITH.finditer(r.text), *_FORCES_SENT.finditer(r.text)]:
        if any(p.start() <= m.start(1) < p.end() for p in progressions):
            continue
        if any(h.key == "armies" and h.start <= m.start(1) < h.end for h in r.hits):
            continue    # a skirmish's squad ("seven rocket bots must kill ...") is the micro reader's
        if m.re is _FORCES_WITH and _enemy_acts(r.text, m.start(1)):
            continue    # "a hold AI defends it with 6 assault bots": the enemy's units
        for item in re.finditer(_FORCE_ITEM + r"(?=\s*,|\s+and\b|\s*[;.:]|\s+-\s|\s*$|" + _GOES_ON + ")", m.group(1)):
            count = int(number(item.group(1)))
            words = re.sub(r"\s+(?:units?|troops|soldiers|pieces)$", "", item.group(2))
            at = (m.start(1) + item.start(), m.start(1) + item.end())
            if any(h.key == "start_forces" and h.start < at[1] and at[0] < h.end for h in r.hits):
                continue    # read already by another pattern ("one raider" and "one raider bot"): counted once
            if words == "metal":
                c.player_metal = float(count)
                r.hit(at, "start_forces")
                continue
            named = re.match(_unit_pattern("any"), words)
            if named and named.end() == len(words.rstrip()):
                type_id = roster_names()[named.group(1)]
                c.player_start[type_id] = c.player_start.get(type_id, 0) + count
                r.hit(at, "start_forces")
        if any(h.key == "start_forces" and m.start(1) <= h.start for h in r.hits):
            # "you start with" / "are pre-built": said by the items it lists
            for span in ((m.start(), m.start(1)), (m.end(1), m.end())):
                if span[1] > span[0]:
                    r.hit(span, "start_forces")
    # the kind the player acts with, uncounted ("occupy the middle ground with rocket bots"): the player's, never
    # the attackers'; how many is the family's, so the clause stays partial
    for m in re.finditer(r"\b(?:hold|defend|protect|guard|take|capture|seize|claim|occupy|storm|assault|attack|clear|keep|"
                         r"escort|scout|destroy|raze)\b[^.;,]{0,40}?\b(?:with|using)\s+(?:your\s+|my\s+|our\s+)?(?:own\s+)?"
                         + _unit_pattern("mobile") + r"(?!\s+(?:against|versus)\b)", r.text):
        if (m.group(1).endswith("s") or m.group(1) == "artillery") and not any(h.start <= m.start(1) < h.end for h in r.hits) \
                and not _enemy_acts(r.text, m.start(1)):
            r.hit((m.start(1), m.end(1)), "start_forces")
    # the player's own units say nothing of what the enemy attacks with ("you start with 6 light tanks")
    spans = [(h.start, h.end) for h in r.hits if h.key == "start_forces"]
    if spans and c.unit_kinds != ["artillery"]:
        masked = "".join(" " if any(a <= i < b for a, b in spans) else ch for i, ch in enumerate(r.text))
        c.unit_kinds = [k for k in c.unit_kinds if any(_has(masked, t) for t in V.UNIT_KIND_TRIGGERS.get(k, [k]))]


# phrases whose unit names are the player's or a target, not what the enemy attacks with
NOT_ATTACKERS = {"start_forces", "protect", "escort_unit", "objective", "objectives", "resource_keep", "raid_target",
                 "keep_count", "production_target", "recon", "armies", "side_armies", "micro", "losses", "artillery_only"}
NAMED_UNIT = r"(?:^|\b(?:\d+|a|an|of|by|the|and|with|against|versus|vs|enemy|their|hostile|light|heavy|fast|quick)\s+)"   # not a verb ("scout")


# words for any unit of a kind ("waves of bots") name no type of it
_ANY_KIND = {"bot", "bots", "tank", "tanks", "vehicle", "vehicles", "unit", "units", "infantry", "troops", "soldiers",
             "aircraft", "planes", "armour", "armor"}


# "all your assault bots", "my four rocket bots", "using only artillery": the player's units, never an attack's
_PLAYERS_OWN = re.compile(r"\b(?:your|my|our|the\s+player'?s)\s+(?:(?:own|all|\d+|" + "|".join(V.NUMBER_WORDS)
                          + r")\s+){0,2}$|\busing\s+(?:only\s+|just\s+|nothing\s+but\s+)?(?:your\s+|my\s+|our\s+)?$")


def attack_unit_names(r: Reading, start: int = 0, end: int | None = None) -> list[tuple[int, str]]:
    """(offset in the normalised text, the name) of each mobile roster unit named in text[start:end] that is
    not the player's, a target or an army of a side: the units the enemy's attacks are made of."""
    # an escort's archetype phrase names the escorted unit ("your heavy tank has to make it from ...")
    other = [(h.start, h.end) for h in r.hits if h.key in NOT_ATTACKERS
             or (h.key == "archetype" and r.concepts.archetype == "escort")]
    text = r.text[start:end]
    return [(start + m.start(1), m.group(1))
            for m in re.finditer(r"(?<![\w-])" + _unit_pattern("mobile"), text)
            if m.group(1) not in _ANY_KIND and not any(a <= start + m.start(1) < b for a, b in other)
            and not _PLAYERS_OWN.search(r.text[:start + m.start(1)])
            and (m.group(1) not in ("scout", "scouts") or re.search(NAMED_UNIT + "$", text[:m.start(1)]))]


def _attack_units(r: Reading) -> None:
    """"waves of light bots and light tanks", "rocket bot waves": the ground types the attacks are made of
    (aircraft are the air attack's, builders and commanders never make a wave)."""
    catalog = load_catalog().units
    for at, name in attack_unit_names(r):
        t = roster_names()[name]
        u = catalog[t]
        if u.category in ("bot", "vehicle") and u.weapon and not u.builds:
            if t not in r.concepts.wave_units:
                r.concepts.wave_units.append(t)
            r.hit((at, at + len(name)), "wave_units")


def _teams(r: Reading) -> None:
    """"2v2", "two versus two", "1v1v1v1", "a three-way battle", "five factions", "free-for-all"."""
    text, c = r.text, r.concepts
    for m in re.finditer(r"\b(?:allies|allied|ally|teammates?|team-?mates?|alliances?|partners?|friendly)\b|"
                         r"\b(?:\w+\s+)?(?:of\s+)?(?:my|our|your)\s+(?:side|team|allies)\s+(?:are|is)\s+(?:run|played|"
                         r"controlled|commanded)\s+by\s+(?:the\s+)?(?:computer|ai|bots?)\b", text):
        r.hit(m, "allies")
    for m in re.finditer(r"\b(?:every|each)\s+(?:[\w-]+\s+){0,2}?(?:for\s+(?:itself|themselves|themself|himself|herself)|"
                         r"on\s+(?:its|their)\s+own)|\b(?:fights?|against)\s+every\s+other\b|\bbattle royale\b|"
                         r"\b(?:fight|fights|fighting|against|versus|battling|at\s+war\s+with)\s+(?:everybody|everyone|"
                         r"all)\s+else\b|\b(?:each|every\s*one|everybody|everyone)\b[^.;]{0,30}?\b(?:fight|fights|fighting|against|"
                         r"versus)\s+(?:all\s+)?the\s+(?:others|rest)\b|"
                         r"\bnone of them allied\b|\b(?:nobody|no\s+one|none)(?:\s+is|\s+are)?\s+(?:allied|teamed\s+up)(?:\s+(?:with|w/)\s+"
                         r"(?:anybody|anyone|each\s+other|one\s+another))?|\bnot\s+allied\s+(?:with|w/)\s+(?:anybody|anyone)\b|\buntil\s+(?:only\s+)?one\s+(?:[\w-]+\s+)?(?:remains|is left|survives|stands)\b|\beach\s+(?:\w+\s+)?against\s+(?:all\s+)?the\s+(?:others?|rest)\b|"
                         r"\b(?:everyone|everybody|all)\s+against\s+(?:everyone|everybody|all)\b|"
                         r"\b(?:every|each)\s*(?:one)?\s+(?:of\s+them\s+)?(?:is\s+|are\s+)?(?:hostile|opposed)\s+to\s+(?:every|each|all)\s+"
                         r"(?:the\s+)?others?\b|\bhostile\s+to\s+(?:everyone|everybody|all)\s+(?:else|the\s+others)\b|"
                         r"\b(?:nobody|no\s+one|none)(?:\s+is|'s)?\s+on\s+(?:anybody|anyone)'?s\s+(?:team|side)\b|"
                         r"\bno\s+(?:friends|allies)\s+among\s+them\b|\b(?:no|without)\s+(?:friends|friendships|allies)\b|"
                         r"\ball\s+of\s+us\s+(?:are\s+)?(?:enemies|foes|rivals)\s+(?:of|to)\s+(?:each\s+other|one\s+another)\b|"
                         r"\bfriendless\b|\b(?:nobody|no\s+one)\s+(?:owes|trusts|helps|is\s+allied\s+with|sides\s+with)\s+"
                         r"(?:anybody|anyone|each\s+other)\b|\blast (?:one|team|side|player|army|faction|commander|base|empire|clan)"
                         r"(?:\s+[\w-]+){0,4}?\s+(?:alive|standing|remaining|left)\b|"
                         # "five factions, each handed a commander": sides counted one by one, none allied
                         r"\b(?:\d+|" + "|".join(V.NUMBER_WORDS) + r")\s+(?:ai\s+|rival\s+)?(?:factions|empires|clans|"
                         r"nations|warlords|kingdoms|tribes|houses|armies|players)\s*,?\s+each\b", text):
        if not m.group(0).startswith(("last ", "each", "every")) and \
                re.search(r"\b(?:all(?:y|ies|ied)|alliances?|teams?\s+of|side\s+with)\b", text[:m.start()] + text[m.end():]):
            continue    # "four armies, each with an ally": teams, not everyone on their own
        if not m.group(0).startswith(("each", "every")) and (_sides_in_words(text) or _team_sides(text)):
            continue    # "3v3 ...; last team standing wins", "me and two allies against three armies": sides
        c.archetype = "ffa"
        r.hit(m, "archetype")
    # "three teams of two" is 2v2v2, "two teams of four" is 4v4
    if (grouped := re.search(r"\b(\d|" + "|".join(V.NUMBER_WORDS) + r")\s+(?:teams|sides|alliances|factions)\s+of\s+(\d|"
                             + "|".join(V.NUMBER_WORDS) + r")(?![\w-])(?!\s+(?:[\w-]+\s+)?(?:minutes?|seconds?|units?|bots?|tanks?|"
                             r"vehicles?|turrets?))", text)):
        n, size = int(number(grouped.group(1))), int(number(grouped.group(2)))
        said_as = "v".join([str(size)] * n)
        if n >= 3 and 1 <= size <= 9 and len(said_as) <= grouped.end() - grouped.start():
            text = text[:grouped.start()] + said_as.ljust(grouped.end() - grouped.start()) + text[grouped.end():]
        elif n == 2 and 1 <= size <= 4:
            c.archetype, c.teams, c.team_size = "teams", 2 * size, size   # type: ignore[assignment]
            r.hit(grouped, "teams")
            r.matched.append(f"{size}v{size} teams (in words)")
            return
    ffa = re.search(r"\b(\d)(?:\s*v\s*\1){2,}\b", text)
    if ffa:
        parts = len(re.findall(r"\d", ffa.group(0)))
        c.archetype = "ffa"
        c.teams = min(parts, _FFA_MAX)
        problem = ""
        if ffa.group(1) != "1":
            problem = (f"sides of {ffa.group(1)} players in a free-for-all ({ffa.group(0)}) are played as one team "
                       "per side")
            r.unsupported.append(problem)
        r.hit(ffa, "ffa_count", problem)
        r.matched.append(f"{ffa.group(0)} free-for-all")
        return
    way = re.search(r"(?<![\w-])(?<!versus )(?<!vs )(?<!vs. )(?<!against )(?<!on )(\d+|" + "|".join(V.NUMBER_WORDS)
                    + r")[\s-](?:way|team|player|faction|army)\b"
                    r"(?=[\s-]+(?:free|ffa|battle|brawl|melee|match|fight|skirmish|war))", text) \
        or re.search(r"\b(\d+|" + "|".join(V.NUMBER_WORDS) + r")[\s-]way\b", text)
    if way:
        c.archetype = "ffa"
        wanted = int(number(way.group(1)))
        problem = f"{wanted} teams requested; a free-for-all holds at most {_FFA_MAX}" if wanted > _FFA_MAX else ""
        if problem:
            r.unsupported.append(problem)
        c.teams = max(2, min(wanted, _FFA_MAX))
        r.hit(way, "ffa_count", problem)
    if c.archetype != "ffa" and (sides := _sides_in_words(text)):
        (ours, ours_span), (theirs, theirs_span) = sides
        c.team_size, c.teams, c.archetype = ours, 2, "teams"
        problem = ""
        if ours != theirs:
            problem = (f"uneven sides ({ours}v{theirs}) are played as {ours}v{ours}: team battles are symmetric")
            r.unsupported.append(problem)
        r.hit(ours_span, "teams")
        r.hit(theirs_span, "teams", problem)
        r.matched.append(f"{ours}v{theirs} teams (sides in words)")
        return
    m = re.search(r"(\d)\s*v\s*(\d)", _WORD_TEAMS.sub(lambda w: f"{_SMALL[w.group(1)]}v{_SMALL[w.group(2)]}"
                                                       + " " * (len(w.group(0)) - 3), text))
    # the phrase as written ("two versus two"), not the "2v2" it was read as
    span = (m.start(), (_WORD_TEAMS.match(text, m.start()) or m).end()) if m else None
    if m and c.archetype != "ffa" and m.group(1) == m.group(2) == "1":
        c.archetype = "ffa"      # a duel: two sides, each on its own
        c.teams = 2
        r.hit(span, "ffa_count")
        return
    # "ranked" says how a battle ends, not who is allied: "3v3 ... ranked by damage dealt" stays a team battle; so
    # is "3v3 free for all between teams": the sides are said, "free for all" only names a battle
    ranked_only = c.archetype == "ffa" and all(r.text[h.start:h.end] in ("ranked", "free for all", "free-for-all", "ffa")
                                               for h in r.hits if h.key == "archetype")
    if m and ranked_only and int(m.group(1)) > 1:
        r.hits = [h for h in r.hits if h.key != "archetype"]
        c.archetype = "teams"
    if m and c.archetype != "ffa":
        c.team_size = int(m.group(1))
        problem = ""
        if m.group(1) != m.group(2):
            problem = (f"uneven sides ({m.group(1)}v{m.group(2)}) are played as {m.group(1)}v{m.group(1)}: team "
                       "battles are symmetric")
            r.unsupported.append(problem)
        c.teams = 2
        c.archetype = "teams"
        r.hit(span, "teams", problem)
        r.matched.append(f"{m.group(1)}v{m.group(2)} teams")
    if c.archetype != "ffa":
        return
    n = re.search(_NUM + r"[\s-]+(?:[\w-]+\s+){0,2}?(?:teams?|players?|sides|factions|armies|empires|clans|nations|"
                          r"warlords|commanders|opponents|rivals|squads|forces|banners|houses|tribes|kingdoms|"
                          r"dynasties)\b", text)
    if n and not way and number(n.group(1)) >= 2:
        wanted = int(number(n.group(1)))
        # "five factions": the player is one; "against four opponents/rivals": the player comes on top
        if re.search(r"opponents|rivals|\bother\b", n.group(0)) \
                or re.search(r"\b(?:the\s+player|you|me|myself|us)\s+(?:and|vs\.?|versus|against)\s+$", text[:n.start()]):
            wanted += 1     # "the player and 6 AI armies", "two other sides": the player's side too
        problem = ""
        if wanted > _FFA_MAX:
            problem = f"{wanted} teams requested; a free-for-all holds at most {_FFA_MAX}"
            r.unsupported.append(problem)
        c.teams = max(2, min(wanted, _FFA_MAX))
        r.hit(n, "ffa_count", problem)
    elif not way:
        c.teams = 4
        r.assumptions.append("no team count given: 4 teams")


def _team_sides(text: str) -> bool:
    """An NvN of teams larger than one ("3v3", "two versus two")."""
    m = re.search(r"(\d)\s*v\s*(\d)", _WORD_TEAMS.sub(lambda w: f"{_SMALL[w.group(1)]}v{_SMALL[w.group(2)]}", text))
    return bool(m) and int(m.group(1)) > 1 and not re.search(r"\b(\d)(?:\s*v\s*\1){2,}\b", text)


_FRIENDS = (r"(?:friends?|allies|ally|partners?|team-?mates?|comrades?|companions?|buddy|buddies|wingm[ae]n|"
            r"sidekicks?)")
# ("against two hostile ones": the word the sides were named by, said again)
_FOES = r"(?:armies|teams|sides|players|factions|opponents|enemies|foes|rivals|commanders|forces|hostiles|ais|computers|ones)"


# a number of players in words: "two", "a lone" ("a pair of" is already "2")
_GROUP = r"(\d+|a\s+lone|a\s+single|" + "|".join(sorted(V.NUMBER_WORDS, key=len, reverse=True)) + r")"
_GROUPS = {"lone": 1, "single": 1}


def _group_number(said: str) -> int:
    word = said.split()[1] if said.startswith("a ") else said
    return _GROUPS.get(word) or int(number(word))


def _sides_in_words(text: str) -> tuple[tuple[int, tuple[int, int]], tuple[int, tuple[int, int]]] | None:
    """Two sides said in words: "you and one computer-run friend ... two hostile computer armies", "me and
    two allies against three enemy teams": ((players on ours, span), (teams on theirs, span))."""
    us = re.search(r"(?<![\w-])" + _NUM + r"\s+of\s+us\b", text)
    them = re.search(r"(?<![\w-])" + _NUM + r"\s+of\s+them\b", text[us.end():]) if us else None
    if us and them and 2 <= number(us.group(1)) <= 4 and 1 <= number(them.group(1)) <= 4:
        # "three of us on one side, three of them on the other": the player counts among us
        return ((int(number(us.group(1))), us.span()),
                (int(number(them.group(1))), (us.end() + them.start(), us.end() + them.end())))
    halves = re.search(r"\b(?:split|divide|divided|split\s+up)\s+(?:the\s+)?" + _NUM + r"\s+(?:armies|teams|players|sides|"
                       r"factions|commanders)\s+(?:down\s+the\s+middle|in\s+(?:two|half)|into\s+(?:two|2)\s+(?:sides|camps|"
                       r"teams|halves|alliances))\b", text) \
        or re.search(r"(?<![\w-])" + _NUM + r"\s+(?:armies|teams|players|sides|factions|commanders)\s+(?:are\s+)?(?:split|divided)\s+"
                     r"(?:up\s+)?(?:into|in)\s+(?:two|2)\s+(?:sides|camps|teams|halves|alliances)\b", text)
    if halves and number(halves.group(1)) in (4, 6, 8):
        # "split four armies down the middle": two sides of half each
        half = int(number(halves.group(1))) // 2
        return (half, halves.span()), (half, halves.span())
    a_side = re.search(r"(?<![\w-])" + _NUM + r"(?:\s+|-)(?:to(?:\s+|-)a|a|per|on\s+each)(?:\s+|-)side\b", text)
    if a_side and 2 <= number(a_side.group(1)) <= 4:
        # "three to a side", "4-a-side": the player is one of its side's
        return (int(number(a_side.group(1))), a_side.span()), (int(number(a_side.group(1))), a_side.span())
    ours = re.search(r"\b(?:you|me|myself|yourself|the\s+player|we)\s+(?:and|plus|with)\s+" + _GROUP + r"\s+(?:[\w-]+\s+){0,2}?"
                     + _FRIENDS + r"\b", text) \
        or re.search(r"(?<![\w-])" + _GROUP + r"\s+(?:[\w-]+\s+){0,2}?" + _FRIENDS + r"\s+(?:[\w-]+\s+){0,2}?(?:beside|"
                     r"alongside|with|next\s+to|at\s+the\s+side\s+of)\s+(?:me|you|us|the\s+player)\b", text) \
        or re.search(r"\b(?:you|me|myself|yourself|the\s+player|we)\s+(?:and|plus|with)\s+" + _GROUP + r"\s+(?:friendly|allied|"
                     r"ally)\s+(?:[\w-]+\s+)?(?:commanders?|ais?|computers?|players?|armies|army|sides?|teams?)\b", text) \
        or re.search(r"\b(?:pair|team|group|side|ally)\s+(?:me|you|the\s+player)\s+(?:up\s+)?with\s+" + _GROUP
                     + r"\s+(?:[\w-]+\s+){0,2}?(?:" + _FRIENDS + r"|commanders?|ais?|computers?)\b", text)
    if ours is None:
        return None
    theirs = re.search(_GROUP + r"\s+(?:[\w-]+\s+){0,2}?(?:hostile|enemy|opposing|rival|computer|ai)\s+(?:[\w-]+\s+)?"
                       + _FOES + r"\b|\b(?:against|versus|vs\.?|facing|take\s+on)\s+" + _GROUP + r"\s+(?:[\w-]+\s+){0,2}?"
                       + _FOES + r"\b|\b(?:opposing|against|facing)\s+(?:us|me|you)\s+(?:is|are|stands?|stand)\s+"
                       + _GROUP + r"\s+(?:[\w-]+\s+){0,3}?(?:enemy|enemies|foes?|opponents?|hostiles?|rivals?|ais?)\b",
                       text[ours.end():])
    if theirs is None:
        return None
    n_ours = 1 + _group_number(next(g for g in ours.groups() if g))
    n_theirs = _group_number(next(g for g in theirs.groups() if g))
    if not (2 <= n_ours <= 4 and 1 <= n_theirs <= 4):
        return None
    at = ours.end()
    return (n_ours, ours.span()), (n_theirs, (at + theirs.start(), at + theirs.end()))


_OWNER = re.compile(r"\b(?:(your|yours|my|mine|our|ours|player'?s)|(enemy|enemy's|enemies'|their|theirs|opponent'?s?|"
                    r"hostile|rival|opposing|foe'?s?)|(" + _KILL + r"|destroying|killing|razing|levell?ing))\b")


def enemy_owned(text: str, start: int) -> bool:
    """Whether the building named at `start` is the enemy's: the nearest owner in its last four words is the
    enemy's ("three enemy metal extractors", "their solar collector"), or, with no owner named, a verb of
    destroying governs it ("destroy one specific solar collector"). "Their raiders hit your extractors" is yours."""
    before = text[:start]
    window = before[len(before) - len(" ".join(before.split()[-5:])) - 1:] if before.split() else ""
    owners = list(_OWNER.finditer(window))
    return bool(owners) and owners[-1].group(1) is None


def _objectives(r: Reading) -> None:
    text, c = r.text, r.concepts
    m = _count_before(text, r"metal storages?|storages?|objectives?|extractors?|bases|generators?|outposts?|"
                            r"solar collectors?|buildings?")
    if m and enemy_owned(text, m.end()):
        m = None      # "three enemy metal extractors" are targets, not what the player keeps
    if m:
        c.objectives = int(number(m.group(1)))
        r.hit(m, "objectives")
    for phrase, unit_type in sorted(V.OBJECTIVE_TYPES.items(), key=lambda kv: -len(kv[0])):
        # "the enemy commander" names an attacker, not something of yours to protect
        found = next((f for f in re.finditer(r"(?<![\w-])" + re.escape(phrase) + r"(?![\w-])", text)
                      if not enemy_owned(text, f.start()) and not _BUILT_THING.search(text[:f.start()])), None)
        if found:
            c.objective_type = unit_type
            r.hit(found, "objective")
            # "your 5 radar towers": the count of the kept type, named with it
            counted = _count_before(text, re.escape(phrase) + r"s?") if c.objectives is None else None
            # "your 5 radar towers", or the count opening a sentence ("three light turrets cover the pass")
            if counted and re.search(r"\b(?:your|my|our)\s+$|(?:^|[.;:!?]\s*)$", text[:counted.start()]):
                c.objectives = int(number(counted.group(1)))
                r.hit(counted, "objectives")
            elif c.objectives is None and _one_named(text, found, phrase):
                c.objectives = 1
            elif c.objectives is None and (group := re.match(r"s?\s+(line|row|ring|wall|battery|cluster|nest|belt|chain)\b",
                                                             text[found.end():])):
                # "your light turret line": several of them, how many left open
                c.objectives = 3
                r.assumptions.append(f"a {group.group(1)} of {phrase}s: 3 of them")
            break
    if c.objective_type is None:
        # any building of the roster kept: "the bot lab has to still be standing at 8:00", "protect your vehicle plant"
        building = _unit_pattern("building")
        kept = re.search(r"\b(?:the|your|my|our)\s+(?:only\s+)?" + building + r"\s+(?:(?:has|have|needs?|must|should)\s+"
                         r"(?:to\s+)?)?(?:still\s+)?(?:be\s+)?(?:still\s+)?" + _STILL, text) \
            or re.search(r"\b(?:keep|protect|defend|guard|save|shield)\s+(?:the|your|my|our)\s+(?:only\s+)?" + building, text)
        if kept and not enemy_owned(text, kept.start(1)):
            c.objective_type = roster_names()[kept.group(1)]
            r.hit(kept, "objective")
            if c.objectives is None and not kept.group(1).endswith("s"):
                c.objectives = 1
    for m in re.finditer(r"\boutposts?\b", text):
        r.hit(m, "objective")
    if (m := re.search(r"\b(?:two|2)\s+(?:allied\s+|friendly\s+)?bases\b", text)):
        c.allied_bases = 2
        c.fronts = c.fronts or 2
        r.hit(m, "allied_bases")


# "can't build a factory", "build a bot lab": what is (or may not be) built is no objective to keep
_BUILT_THING = re.compile(r"\b(?:build|builds|building|make|makes|construct|constructs|produce|erect|put\s+up)\s+"
                          r"(?:(?:a|an|any|the|new|more|another|one|your|my|our|extra)\s+)?$")


def _objectives_counted_by_head(r: Reading) -> None:
    """The objectives counted by the last word of their name, said again later: "... the player's bot_lab
    buildings ...; protect all three labs"."""
    c = r.concepts
    if c.objectives is not None or c.objective_type is None:
        return
    head = c.objective_type.split("_")[-1]
    m = re.search(r"\b(?:all\s+)?" + _NUM + r"\s+(?:of\s+(?:the|your|my|our)\s+)?(?:[\w-]+\s+)?" + re.escape(head)
                  + r"s?\b", r.text)
    if m and not enemy_owned(r.text, m.start()):
        c.objectives = int(number(m.group(1)))
        r.hit(m, "objectives")


def _one_named(text: str, found: re.Match, phrase: str) -> bool:
    """"the radar tower", "your solar collector": one building of the kind, named singular and definite (a base
    is several buildings)."""
    return not phrase.endswith("s") and phrase not in ("base", "storage") \
        and bool(re.search(r"\b(?:the|your|my|our)\s+(?:only\s+|one\s+|single\s+|lone\s+)?$", text[:found.start()])) \
        and not re.match(r"s\b|\s+(?:line|ring|row|wall|battery|cluster|group|field|network|array|grid|belt|chain|nest|"
                         r"park|farm|complex|belt)\b", text[found.end():])


_OBJECT_NOUNS = (r"objectives?|buildings?|structures?|extractors?|collectors?|storages?|generators?|outposts?|bases|towers?|"
                 r"turrets?|emplacements?|labs?|plants?|factor(?:y|ies)")
_STILL = (r"(?:(?:alive|standing|up|intact|left|remaining|in\s+one\s+piece|on\s+(?:their|its)\s+feet|operational|"
          r"in\s+working\s+order)\b|(?:survive|survives|remain|remains|"
          r"stand|stands)\b)")


def _keep_count(r: Reading) -> None:
    """How many objectives must survive when not every one must: "keep at least 2 extractors alive", "two of
    the four should still be up", "losing no more than 2 of them". Only buildings and objectives count: a
    squad's survivors are the micro family's (max_losses)."""
    text, c = r.text, r.concepts
    building = _unit_pattern("building")
    noun = r"(?:" + _OBJECT_NOUNS + r"|" + building + r")"
    of_total = r"of\s+(?:them|those|these|the|your|my|our)(?:\s+" + _NUM + r")?"
    at_least = re.compile(r"\bat\s+least\s+" + _NUM + r"\s+(?:" + of_total + r"\s+)?(?:[\w-]+\s+){0,2}?(?:"
                          + noun + r"\s+)?(?:[\w-]+\s+){0,3}?" + _STILL)
    n_of_m = re.compile(_NUM + r"\s+" + of_total + r"\s+(?:[\w-]+\s+){0,2}?(?:" + noun + r"\s+)?(?:[\w-]+\s+){0,4}?"
                        + _STILL)
    at_most = re.compile(r"\b(?:lose|losing|lost)\s+(?:no\s+more\s+than|at\s+most|only)\s+" + _NUM + r"\s+(?:"
                         + of_total + r"|(?:[\w-]+\s+)?" + noun + r")")
    # the win hangs on a few surviving: "you win if one collector is still standing", "as long as two survive"
    survivors = re.compile(r"\b(?:if|while|as\s+long\s+as|so\s+long\s+as|keeping|keep|with)\s+(?:at\s+least\s+)?"
                           r"(?:any\s+|just\s+|only\s+)?" + _NUM + r"\s+(?:single\s+)?(?:[\w-]+\s+){0,2}?" + noun
                           + r"\s+(?:(?:is|are)\s+)?(?:still\s+)?" + _STILL)
    for pattern in (at_least, n_of_m, survivors):
        for m in pattern.finditer(text):
            said = m.group(0)
            # the kept things are buildings or objectives: "at least two tanks still roll" is a squad's
            if re.search(_unit_pattern("mobile"), said):
                continue
            if not re.search(noun, said) and not re.search(of_total, said) and not c.objectives:
                continue
            # groups: the kept count, the total counted after "of the", the building named
            keep = int(number(m.group(1)))
            total = int(number(m.group(2))) if pattern is not survivors and m.group(2) else None
            named = re.search(building, said)
            kind = roster_names()[named.group(1)] if named else None
            if kind and c.objective_type not in (None, kind):
                continue        # another building than the one the game keeps: not this clause's count
            if kind is None and c.objective_type is None and not total:
                continue        # nothing says what is kept: left to the clause accounting
            c.objective_type = c.objective_type or kind
            if re.search(r"\ball\s+$", text[max(0, m.start() - 5):m.start()]) or m.group(1) == "both":
                c.objectives, c.keep_objectives = keep, None     # "all three of your radar towers": every one
            else:
                if total:
                    c.objectives = total
                c.keep_objectives = keep
            r.hit(m, "keep_count")
            return
    half = re.search(r"\bhalf\s+(?:of\s+)?(?:them|those|these|the\s+[\w-]+|your\s+[\w-]+(?:\s+[\w-]+)?)\s+(?:[\w-]+\s+){0,3}?"
                     + _STILL, text)
    if half and c.objectives and c.objectives > 1:
        # "half of them still standing": the kept share of the objectives counted before
        c.keep_objectives = math.ceil(c.objectives / 2)
        r.hit(half, "keep_count")
        return
    for m in at_most.finditer(text):
        if re.search(_unit_pattern("mobile"), m.group(0)):
            continue
        lost = int(number(m.group(1)))
        total = int(number(m.group(2))) if m.group(2) else c.objectives
        if total and total > lost:
            c.objectives = total
            c.keep_objectives = total - lost
            r.hit(m, "keep_count")
            return
    # lost only when every one is: "I lose if all 3 storages are gone", "you only lose once every factory is destroyed"
    # ... or with the condition first: "if both of your metal storages are destroyed, you lose"
    every_one = (r"(all|every|each|both)\s+(?:(?:of\s+)?(?:the|your|my|our)\s+)?(?:" + _NUM + r"\s+)?(?:[\w-]+\s+){0,2}?"
                 + noun + r"\s+(?:(?:are|is|have\s+been|has\s+been|get|gets)\s+)?(?:gone|destroyed|lost|dead|down|"
                 r"razed|wrecked|fallen|taken\s+out|goes\s+down|go\s+down|falls|fall|dies|die)\b")
    all_gone = re.search(r"\b(?:lose|lost|defeat(?:ed)?)\s+(?:only\s+)?(?:if|when|once|after)\s+" + every_one, text) \
        or re.search(r"\b(?:if|when|once|after)\s+(?:only\s+)?" + every_one + r"[^.;]{0,25}?\b(?:" + _FAILED + r")\b", text)
    if all_gone and not re.search(_unit_pattern("mobile"), all_gone.group(0)):
        counted = int(number(all_gone.group(2))) if all_gone.group(2) else 2 if all_gone.group(1) == "both" else None
        c.objectives = max(counted or c.objectives or 2, 2)
        c.keep_objectives = 1
        r.hit(all_gone, "keep_count")
        return
    if _loss_threshold(r, noun, of_total):
        return
    # every one kept (losing any loses, the designs' default): "keep your metal storage in one piece",
    # "letting a single one fall loses it", "don't let any of them fall"
    every = re.compile(r"\bkeep\s+(?:your|the|my|our|all\s+(?:of\s+)?(?:your|the|my|our))\s+(?:[\w-]+\s+){0,3}?" + noun
                       + r"\s+(?:in\s+one\s+piece|intact|standing|alive|safe|up)\b"
                       r"|\bletting\s+(?:a\s+single|even\s+one|any|one)\s+(?:one\s+)?(?:of\s+them\s+)?(?:fall|go\s+down|die|"
                       r"be\s+destroyed)\s+(?:loses|ends|costs)(?:\s+(?:it|the\s+game|everything))?\b"
                       r"|\b(?:don'?t|do\s+not|never)\s+let\s+(?:a\s+single|any|even\s+one)\s+(?:one\s+)?(?:of\s+them\s+)?"
                       r"(?:fall|go\s+down|be\s+destroyed)\b")
    if c.keep_objectives is None:
        for m in every.finditer(text):
            r.hit(m, "keep_count")


_DEFEAT = (r"(?:(?:i|you|we)\s+lose|(?:it'?s|it\s+is|that'?s|that\s+is)\s+(?:a\s+)?(?:defeat|loss|game\s+over|over)|game\s+over|"
           r"defeat)")
_FALLEN = r"(?:are\s+|is\s+|get\s+|gets\s+)?(?:destroyed|lost|killed|die|fall(?:en)?|razed|taken\s+out|go\s+down|wrecked)\b"


def _loss_threshold(r: Reading, noun: str, of_total: str) -> bool:
    """A loss said as a number of objectives gone: "I lose if more than 3 of my extractors are destroyed",
    "losing more than half of them is a defeat", "if I'm down to one storage, I lose". Sets the kept count
    (and, when the request counts none, a total one above the losses allowed plus one)."""
    text, c = r.text, r.concepts
    what = r"(?:" + of_total + r"\s+)?(?:[\w-]+\s+){0,2}?(?:" + noun + r"\s+)?"
    more_than = re.compile(r"\b" + _DEFEAT + r"\s+(?:the\s+game\s+)?(?:if|when|once|should)\s+(?:more\s+than|over)\s+(?:"
                           + _NUM + r"|(half))\s+" + what + _FALLEN
                           + r"|\b(?:losing|to\s+lose)\s+(?:more\s+than|over)\s+(?:" + _NUM + r"|(half))\s+(?:of\s+)?"
                           r"(?:them|those|these|(?:my|your|our|the)\s+(?:[\w-]+\s+){0,2}?" + noun + r")\s*,?\s+"
                           r"(?:is|means|=|costs|loses)\s+(?:a\s+|the\s+)?(?:defeat|loss|game\s+over|the\s+game|it)\b")
    down_to = re.compile(r"\b(?:if|once|when|should)\s+(?:i'?m|i\s+am|you'?re|you\s+are|we'?re|we\s+are)\s+down\s+to\s+"
                         + _NUM + r"\s+(?:[\w-]+\s+){0,2}?(?:" + noun + r")?\s*,?\s*" + _DEFEAT + r"\b"
                         r"|\b(?:if|once|when)\s+only\s+" + _NUM + r"\s+(?:[\w-]+\s+){0,2}?(?:" + noun
                         + r"\s+)?(?:is|are)\s+(?:left|standing)\s*,?\s*" + _DEFEAT + r"\b")
    for m in more_than.finditer(text):
        if re.search(_unit_pattern("mobile"), m.group(0)):
            continue          # a squad's losses are the micro family's
        said = [g for g in m.groups() if g and (g == "half" or g[0].isdigit() or g in V.NUMBER_WORDS)]
        total = c.objectives
        counted = re.search(of_total, m.group(0))
        if counted and counted.group(1):
            total = int(number(counted.group(1)))
        if said[0] == "half":
            if not total or total < 2:
                continue
            c.objectives, c.keep_objectives = total, total - total // 2
        else:
            lost = int(number(said[0]))
            total = total if total and total > lost else lost + 2
            c.objectives, c.keep_objectives = total, total - lost
        r.hit(m, "keep_count")
        return True
    # the loss at an exact number gone: "losing two of the turrets means defeat", "lose 3 of them and you lose"
    exactly = re.compile(r"\b(?:losing|los(?:e|es))\s+" + _NUM + r"\s+(?:of\s+)?(?:them|those|these|(?:my|your|our|the)\s+(?:[\w-]+\s+){0,2}?"
                         + noun + r")\s*,?\s+(?:(?:means|is|=|costs)\s+(?:a\s+|the\s+)?(?:defeat|loss|game\s+over|the\s+game)|"
                         r"(?:and\s+)?" + _DEFEAT + r")\b")
    for m in exactly.finditer(text):
        if re.search(_unit_pattern("mobile"), m.group(0)):
            continue          # a squad's losses are the micro family's
        lost = int(number(m.group(1)))
        total = c.objectives if c.objectives and c.objectives >= lost else lost + 1
        c.objectives, c.keep_objectives = total, total - lost + 1
        r.hit(m, "keep_count")
        return True
    # the loss only once none is left: "lose all of them and it's over", "if every one of your extractors falls, you lose"
    all_gone = re.compile(r"\b(?:los(?:e|ing)|(?:if|once|when|should)\s+(?:you\s+|i\s+|we\s+)?lose)\s+(?:all|every\s+(?:last\s+)?one|each)"
                          r"\s+(?:of\s+)?(?:them|those|these|(?:my|your|our|the)\s+(?:[\w-]+\s+){0,2}?" + noun + r")\s*,?\s+"
                          r"(?:and\s+|then\s+)?(?:" + _DEFEAT + r"|is\s+(?:a\s+)?(?:defeat|loss))\b"
                          r"|\b(?:if|once|when|should)\s+(?:all|every\s+(?:last\s+)?one|each)\s+(?:of\s+)?(?:them|those|these|"
                          r"(?:my|your|our|the)\s+(?:[\w-]+\s+){0,2}?" + noun + r")\s+" + _FALLEN + r"[^.;]{0,20}?" + _DEFEAT
                          + r"\b")
    for m in all_gone.finditer(text):
        if re.search(_unit_pattern("mobile"), m.group(0)):
            continue          # a squad's losses are the micro family's
        c.keep_objectives = 1
        r.hit(m, "keep_count")
        return True
    for m in down_to.finditer(text):
        left = int(number(next(g for g in m.groups() if g and (g[0].isdigit() or g in V.NUMBER_WORDS))))
        total = c.objectives if c.objectives and c.objectives > left + 1 else left + 2
        c.objectives, c.keep_objectives = total, left + 1
        r.hit(m, "keep_count")
        return True
    return False


# what sides do when they are the players: "both sides want the rise", "two sides fight over it"
_PLAYERS_SIDES = (r"\s+(?:want|wants|need|needs|covet|claim|contest|fight|race|start|begin|get|have|field|play|are|"
                  r"will|can|must|try|send|spawn)\b")


# each wave counted in turn: "waves of 4, 6 and then 9", "enemy waves of six, eight and then twelve", "waves 3/6/9/12"
_SIZE_LIST = _NUM + r"(?:\s*,\s*(?:then\s+)?" + _NUM + r")*\s*,?\s*(?:and\s+then|and|then)\s+" + _NUM + r"(?![\w:])"
_SLASH_LIST = r"\d+(?:\s*/\s*\d+)+(?![\w:/])"
# "waves of 4, 6 and 8", "waves of 3/5/7", and the sizes said apart: "five waves ..., sizes 4, 6, 8, 10 and 12"
_WAVE_SIZES = re.compile(r"\bwaves?\s+(?:of\s+(?P<list>" + _SIZE_LIST + r")|(?:of\s+)?(?P<slashed>" + _SLASH_LIST + r"))|"
                         r"\bwaves?\b[^.;]{0,80}?\b(?:sizes?|sized|strengths?|numbering|counting|headcounts?)\s*"
                         r"(?:of\s+|:\s*|=\s*)?(?P<apart>" + _SIZE_LIST + r"|" + _SLASH_LIST + r")")
# every wave one size: "8 units each", "each wave 5 strong", "7-unit waves", "waves of 6 units"
_ONE_SIZE = re.compile(r"(?<![\w:.])" + _NUM + r"\s+(?:units?|enem(?:y|ies)|attackers|hostiles)\s+(?:each|apiece|per\s+(?:wave|attack))\b|"
                       r"\beach\s+(?:wave|attack|one)\s+(?:is\s+|has\s+|of\s+)?" + _NUM + r"\s+(?:units?\s+)?(?:strong|units?)\b"
                       r"(?!\s+(?:bigger|larger|more)\b)|"
                       r"(?<![\w:.])" + _NUM + r"[\s-]+(?:units?|strong|man)\s+(?:waves|attacks)\b|"
                       r"\bwaves\s+of\s+" + _NUM + r"\s+(?:units|enemies|attackers|hostiles)\b")
# a first size and a step: "starting at 4 units and each wave two bigger than the last", "4 in the first, +2 each wave"
_START_SIZE = re.compile(r"\b(?:starting|start|starts|beginning|begins)\s+(?:at|with|from)\s+" + _NUM + r"(?:\s+units?)?\b")
_STEP = re.compile(r"(?:\+|\bplus\s+|\b(?:by|grows?\s+by|adds?|adding)\s+)?" + _NUM + r"\s+(?:units?\s+)?(?:bigger|larger|more)"
                   r"(?:\s+(?:units?|than\s+the\s+(?:last|previous|one\s+before)))?|\+\s*(\d+)\s+(?:units?\s+)?(?:each|per|every)\b")


_HARDER_THAN_LAST = re.compile(
    r"\b(?:meaner|tougher|harder|nastier|heavier|fiercer|deadlier|stronger|bigger|larger|beefier|thicker|angrier|"
    r"more\s+(?:dangerous|numerous|powerful|brutal|vicious|intense|punishing|aggressive|massive))\s+than\s+(?:the\s+)?"
    r"(?:last|previous|one\s+before(?:\s+it)?|prior\s+one)\b")


def _wave_sizes(r: Reading) -> None:
    text, c = r.text, r.concepts
    m = _WAVE_SIZES.search(text)
    if m is None:
        _growing_from(r) or _one_size(r)
        return
    said = re.findall(_NUM + r"(?![\w-])", m.group("list") or m.group("slashed") or m.group("apart"))
    sizes = [int(number(n)) for n in said]
    if any(n < 1 or n != number(w) for n, w in zip(sizes, said)):
        r.hit(m, "wave_sizes", "a wave is counted in whole units, at least one")
        return
    _set_sizes(r, sizes, m)


def _set_sizes(r: Reading, sizes: list[int], *said) -> None:
    c = r.concepts
    c.wave_sizes = sizes[:12]
    if c.waves is None or c.waves < len(c.wave_sizes):
        c.waves = len(c.wave_sizes)
    if all(b > a for a, b in zip(sizes, sizes[1:])) and len(set(sizes)) > 1:
        c.escalating = True     # counted sizes that grow are growing waves, built by the same rule
    for m in said:
        r.hit(m, "wave_sizes")


def _growing_from(r: Reading) -> bool:
    """A first wave's size and what each adds, over a counted number of waves: "five waves ..., starting at 4 units
    and each wave two bigger than the last" is 4, 6, 8, 10, 12."""
    text, c = r.text, r.concepts
    first, step = _START_SIZE.search(text), _STEP.search(text)
    if not (step and c.waves):
        return False
    if first is not None and not first.start() < step.start() < first.end() + 80:
        first = None
    # without a first size the step must be said of the waves: "each wave two units bigger than the one before"
    if first is None and not re.search(r"\b(?:wave|attack|one|group)s?\b", text[max(0, step.start() - 30):step.end() + 15]):
        return False
    k = number(step.group(1) or step.group(2))
    a = number(first.group(1)) if first else float(base_and_growth(1.0)[0])
    if a < 1 or k < 1 or a != int(a) or k != int(k):
        return False
    if first is None:
        r.assumptions.append(f"the first wave's size is not said: {int(a)} units, then {int(k)} more each wave")
    _set_sizes(r, [int(a + i * k) for i in range(min(c.waves, 12))], *(m for m in (first, step) if m))
    return True


def _one_size(r: Reading) -> bool:
    m = _ONE_SIZE.search(r.text)
    if m is None:
        return False
    n = number(next(g for g in m.groups() if g))
    if n < 1 or n != int(n):
        return False
    if r.concepts.waves:
        _set_sizes(r, [int(n)] * min(r.concepts.waves, 12), m)
    else:       # the waves' count is said elsewhere, or is the design's: every one of them has this size
        r.concepts.wave_sizes = [int(n)]
        r.hit(m, "wave_sizes")
    return True


def _waves(r: Reading) -> None:
    text, c = r.text, r.concepts
    m = _count_before(text, r"fronts?|directions?|sides|approaches|lanes|flanks")
    if m and m.group(0).endswith("sides") and re.match(_PLAYERS_SIDES, text[m.end():]):
        m = None    # "two sides fight over the ridge": the players, not two directions of attack
    if m:
        c.fronts = int(number(m.group(1)))
        vague = m.group(1) in ("several", "multiple", "many", "few")
        r.hit(m, "fronts", note=f"\"{m.group(1)}\" read as {c.fronts} directions" if vague else "")
    elif (m := _find(text, "multiple directions") or _find(text, "many directions")):
        c.fronts = 3
        r.hit(m, "fronts", note="read as 3 directions")
    m = _count_before(text, r"waves?|attacks|assaults|raids|pushes|columns|strikes|surges|rushes")
    if not m:
        # attacks counted by the groups that make them: "three packs of light bots hit the base"
        m = re.search(r"(?<![\w-])" + _NUM + r"\s+(?:packs|bands|columns|hordes|swarms|surges|rushes|groups|squads)\s+of\s+"
                      r"(?:[\w-]+\s+){0,2}?(?:bots?|tanks?|units?|raiders|vehicles|bombers|enem(?:y|ies))\s+(?:\w+\s+)?"
                      r"(?:hit|hits|attack|attacks|strike|strikes|storm|storms|raid|raids|come|comes|charge|charges|"
                      r"assault|assaults|arrive|arrives|roll\s+in|pour\s+in|descend)\b", text)
    if not m:
        # the count named after the noun it counts: "waves that double each time, 3 of them"
        m = re.search(r"\b(?:waves|attacks|assaults|raids|pushes)\b[^.;]{0,60}?(?<![\w-])" + _NUM
                      + r"\s+of\s+them\b", text)
    if not m:
        # the player struck a number of times: "you'll be hit four times", "they attack you 3 times"
        m = re.search(r"\b(?:(?:be|get|gets|getting|are|is)\s+)?(?:hit|attacked|struck|assaulted|raided|assailed|"
                      r"(?:attack|strike|raid|assault)s?\s+(?:you|your\s+\w+|the\s+\w+))\s+" + _NUM + r"\s+times\b", text)
    if not m:
        # the enemy coming twice: "the enemy's coming at my base twice", "they will attack you three times"
        # ... or "N times": "the enemy comes at my base three times"
        m = re.search(r"\b(?:coming|comes?|attacks?|attacking|hits?|hitting|strikes?|striking|raids?|raiding|pushes|"
                      r"pushing|charges?|charging)\s+(?:at\s+|on\s+|into\s+)?(?:[\w']+\s+){0,3}?(twice|thrice|"
                      r"(?:\d+|" + "|".join(V.NUMBER_WORDS) + r")\s+times)\b", text)
        if m:
            said = m.group(1)
            c.waves = 2 if said == "twice" else 3 if said == "thrice" else int(number(said.split()[0]))
            r.hit(m, "waves")
            m = None
    if m:
        c.waves = int(number(m.group(1)))
        r.hit(m, "waves")
    elif (last := _LAST_WAVE.search(text)):
        # the count said by the last attack: "keep it alive through wave eight", "win by outlasting wave 7",
        # "if the tenth wave levels both plants"
        said = last.group("n") or last.group("o") or last.group("o2")
        c.waves = _ORDINALS.get(said) or int(re.sub(r"\D", "", said) or 0) or int(number(said))
        r.hit(last, "waves")
    _wave_sizes(r)
    for w in ("staggered", "one after another", "one after the other", "different times", "early", "late",
              "in turn", "in sequence", "one by one"):
        for m in re.finditer(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", text):
            c.staggered = True
            r.hit(m, "staggered")
    for w in ("larger than the last", "escalating", "escalate", "escalates", "growing", "ever-growing",
              "grows", "bigger each", "increasing", "each larger", "each bigger", "larger each", "bigger than the last",
              "bigger than the one before", "larger than the one before", "larger than the previous",
              "bigger than the previous", "stronger than the last", "stronger each", "progressively",
              "gets bigger", "get bigger", "get larger", "gets larger", "getting bigger", "getting larger",
              "getting stronger", "keep growing", "bigger and bigger", "larger and larger", "stronger and stronger",
              "ramping up", "ramp up", "grow", "doubling", "double in size", "doubles", "tripling", "triples"):
        for m in re.finditer(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", text):
            c.escalating = True
            r.hit(m, "escalating")
    # each attack harder than the one before, in any words of strength: "every push is meaner than the last"
    for m in _HARDER_THAN_LAST.finditer(text):
        c.escalating = True
        r.hit(m, "escalating")
    # double / triple in their common misspellings too ("dubble", "duble", "doubel", "tripple")
    m = re.search(r"\b(" + _DOUBLE + r"|twice (?:as (?:big|large|strong|heavy|numerous|powerful)|(?:the|its|their) (?:size|strength|number))|" + _TRIPLE
                  + r"|" + _NUM + r"\s*(?:times|x|\u00d7) (?:as (?:big|large|strong|many|heavy|numerous|powerful)|"
                  r"(?:the|its|their) (?:size|strength|number)|bigger|larger|stronger|heavier))", text)
    # "grow by 50% each time": a factor of 1.5
    pct = re.search(r"\b(?:grows?|grow(?:ing)?|increases?|increasing|bigger|larger|stronger)\s+(?:by\s+)?"
                    r"(\d+(?:\.\d+)?)\s*(?:%|percent)", text)
    # a small first attack by the enemy: a probe, feint, scouting or recon party, vanguard, test attack
    probe = re.search(r"\b(?:probe[sd]?|probing|feints?|feinting|scouts|vanguard|advance (?:guard|party)|"
                      r"(?:scouting|scout|recon|reconnaissance) (?:party|parties|force|group|team|wave|run|attack|"
                      r"raid|units?)|recon|reconnaissance|"
                      r"(?:small|light|weak|token|minor) (?:[\w-]+ )?(?:attack|force|party|wave|group|raid|strike|push|"
                      r"detachment)|test(?:ing)? (?:attack|wave|push)|feels? you out)\b", text)
    # then the enemy's real one: "the main attack", "its full army", "the real assault", "in full force"
    main = re.search(r"\b(?:main|full|real|true|actual|big|major|whole|serious|proper)\s+(?:\w+\s+)?(?:attack|assault|"
                     r"force|army|push|wave|thrust|strike|body|offensive|invasion|onslaught|punch|blow|hit)\b|"
                     r"\bin (?:full )?force\b", text)
    if probe and main and probe.start() < main.start():
        c.probe_then_main = True
        c.waves = c.waves or 2
        for m2 in re.finditer(probe.re, text):
            r.hit(m2, "probe")
        r.hit(main, "probe")
    if m:
        word = m.group(1)
        factor = 2.0 if re.fullmatch(_DOUBLE + r"|twice.*", word) else 3.0 if re.fullmatch(_TRIPLE, word) \
            else number(m.group(2))
        if c.probe_then_main:
            c.main_factor = factor
            r.hit(m, "probe")
        else:
            c.growth_factor = factor
            c.escalating = True
            r.hit(m, "escalating")
    elif pct and not c.probe_then_main:
        c.growth_factor = 1 + float(pct.group(1)) / 100
        c.escalating = True
        r.hit(pct, "escalating")
    # "each knock harder than the one before", "each a little meaner than the last": any comparative of size or
    # force, softened or not
    for m in re.finditer(r"\beach(?:\s+[\w-]+)?\s+(?:is\s+)?(?:(?:a\s+(?:little|bit|touch|notch)|slightly|somewhat|"
                         r"much|far|even|a\s+lot)\s+)?(?:bigger|larger|stronger|harder|heavier|fiercer|meaner|nastier|"
                         r"tougher|deadlier|angrier|denser|thicker|more\s+(?:numerous|dangerous|brutal|vicious|intense|"
                         r"punishing))\s+than\s+(?:the\s+(?:one\s+)?(?:before|last(?:\s+one)?|previous(?:\s+one)?)|"
                         r"its\s+predecessor|what\s+came\s+before)\b", text):
        c.escalating = True
        r.hit(m, "escalating")
    # "waves that keep getting nastier", "attacks grow ever deadlier", "increasingly vicious pushes"
    for m in re.finditer(r"\b(?:(?:keeps?|kept)\s+)?(?:get(?:s|ting)?|grow(?:s|ing)?|becom(?:e|es|ing))\s+(?:ever\s+|"
                         r"progressively\s+|steadily\s+)?(?:" + _STRONGER + r")\b|\b(?:increasingly|ever)\s+(?:"
                         + _STRONGER + r")\b", text):
        c.escalating = True
        r.hit(m, "escalating")
    for m in re.finditer(r"\beach(?:\s+(?:one|wave|attack|time|of them))?\s+(?:is\s+)?(?:bigger|larger|stronger)\b", text):
        c.escalating = True
        r.hit(m, "escalating")
    # a later attack said bigger than the one before it: "first a handful ..., then a bigger bunch", "a larger force"
    for m in re.finditer(r"\b(?:then|later|next|after\s+(?:that|it))\b[^.;]{0,20}?\b(?:an?|the)\s+(?:much\s+|far\s+|even\s+)?"
                         r"(?:bigger|larger|stronger|heavier|meaner|tougher)\s+(?:bunch|group|force|wave|attack|push|pack|"
                         r"column|squad|party|one|assault|strike|horde|army|band|lot|mob|swarm)\b", text):
        if not c.probe_then_main:
            c.escalating = True
            r.hit((m.start() + m.group(0).rfind(" ", 0, m.group(0).rfind(" ")) + 1, m.end()), "escalating")
    for m in re.finditer(r"\b(?:from|on|at)\s+(?:all|every|each)\s+(?:(?:four|4)\s+)?(?:sides|side|directions|direction|edges|"
                         r"edge|flanks|flank|quarters|quarter|corners?\s+of\s+the\s+map)\b", text):
        c.fronts = c.fronts or 4
        r.hit(m, "fronts", note="\"all sides\" read as 4 directions")
    for m in re.finditer(r"\b(?:waves?|attacks?|assaults?|raids?)\b[^.;,]{0,25}?\b(?:bigger|larger|stronger)\b", text):
        c.escalating = True
        r.hit(m, "escalating")
    for w in ("random side", "random sides", "random direction", "random directions", "random approach",
              "whichever side", "anywhere", "any side", "any direction", "unknown direction", "unknown side"):
        for m in re.finditer(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", text):
            c.random_side = True
            r.hit(m, "random_side")
    # "from a direction the player doesn't know in advance", "from an unpredictable side"
    for m in re.finditer(r"\b(?:directions?|sides?)\s+(?:that\s+|which\s+)?(?:the\s+player|you|they|players?|the\s+agent|i|we)"
                         r"\s+(?:does|do|did|can|could|will|ca)\s*(?:n't|not)\s+(?:know|predict|see coming|guess|foresee)|"
                         r"\b(?:directions?|sides?)\s+(?:that\s+|which\s+)?(?:nobody|no\s+one|none\s+of\s+us)\s+(?:can|could|will)\s+"
                         r"(?:know|predict|see coming|guess|foresee)|"
                         r"\b(?:unpredictable|unannounced|secret|hidden|surprise|random(?:ly chosen)?)\s+"
                         r"(?:directions?|sides?)\b", text):
        c.random_side = True
        r.hit(m, "random_side")
    # "out of either the north or the south", "it could come from the east or from the west": one of the named
    # sides, drawn each time ("from the north and the east" names both)
    for m in re.finditer(r"\b(?:either\s+|from\s+)(?:the\s+)?" + _COMPASS + r"\s+or\s+(?:from\s+)?(?:the\s+)?"
                         + _COMPASS, text):
        c.random_side = True
        r.hit(m, "random_side")
    # "the enemy is going to hit you once": one attack
    once = re.search(r"\b(?:hit|attack|strike|come\s+at|raid)s?\s+(?:you|me|us|your\s+base|my\s+base)\s+"
                     r"(?:just\s+|only\s+)?once\b", text)
    if once and c.waves in (None, 1):
        c.waves = 1
        r.hit(once, "waves")
    # "... and nobody tells you which", "you won't be told which side"
    for m in re.finditer(r"\b(?:(?:nobody|no\s+one)\s+(?:tells|will\s+tell|is\s+telling)\s+(?:you|me|the\s+player)|(?:you|i)\s+"
                         r"(?:won't|will\s+not|don't|do\s+not)\s+(?:be\s+)?(?:told|know))\s+(?:which|where)"
                         r"(?:\s+(?:side|direction|way|flank)\b|\s*(?=[.;,!]|$))", text):
        c.random_side = True
        r.hit(m, "random_side")
    for m in re.finditer(r"\b(?:sides?|directions?|edges?|flanks?)\s+(?:is\s+|are\s+)?(?:drawn|picked|chosen|rolled|decided|"
                         r"selected)\s+(?:at\s+random|randomly|by\s+chance)\b", text):
        c.random_side = True
        r.hit(m, "random_side")
    for m in re.finditer(r"\bfrom\s+(?:no\s+(?:fixed|set|single|particular|one)|(?:a\s+)?(?:different|varying|changing)|"
                         r"any\s+old)\s+(?:edge|side|direction|flank|quarter)s?\b", text):
        c.random_side = True
        r.hit(m, "random_side")
    if c.random_side and c.fronts == 1:
        c.fronts = None     # "from a random direction" is one of several, not a single front
    # the player scouting ("scout the map", "the side you did not scout"), not a scout unit ("the enemy scouts")
    for m in re.finditer(r"\b(?:sides?|directions?|flanks?|approach(?:es)?)\s+(?:that\s+)?(?:you|i|we|the\s+player)\s+(?:never|didn't|"
                         r"did\s+not|haven't|have\s+not|failed\s+to)\s+(?:look(?:ed)?\s+at|check(?:ed)?|explore[d]?|watch(?:ed)?|"
                         r"cover(?:ed)?|scout(?:ed)?)\b|\blook\s+around\s+(?:first|early|before)\b|"
                         r"\b(?:find|spot|locate|learn|discover|work\s+out)\s+(?:out\s+)?where\s+(?:they(?:'re|\s+are)|the\s+enemy(?:'s|\s+is)|"
                         r"the\s+attack(?:'s|\s+is)|it(?:'s|\s+is))\s+(?:massing|gathering|coming\s+from|forming\s+up|staging)\b|"
                         r"\b(?:scouting(?!\s+(?:party|parties|force|group|units?|team|attack|run))|unscouted)\b|"
                         r"(?<!enemy )(?<!their )(?<!the )(?<!your )(?<!a )(?<!an )"
                         r"\bscout(?:ed)?\b(?!\s+(?:bots?|units?|must|dies|is|has|will))", text):
        c.scouting = True
        r.hit(m, "scouting")
    for w in V.RANDOM_TIMING_TRIGGERS:
        if (m := _find(text, w)):
            c.random_timing = True
            r.hit(m, "random_timing")


_STILL_STANDING = re.compile(r"\bstill\s+(?:have|has|hold|holds|own|owns|be\s+standing|standing|alive|up|intact|there|"
                             r"in\s+one\s+piece)\b|\b(?:standing|alive|intact|in\s+one\s+piece|breathing|living|unharmed|"
                             r"kicking|on\s+(?:its|his|her|their)\s+feet)\s*$"
                             # "the game is won at 5:00 if ...": the moment the game is decided is its end
                             r"|\b(?:is|are|gets?)\s+(?:won|over|decided|capped|cut\s+off|called|stopped|halted)(?:\s+(?:at|by))?\s*$"
                             r"|\b(?:you|they|we)\s+win(?:\s+at)?\s*$|\b(?:play|the\s+game|the\s+match|the\s+battle|it)\s+"
                             r"(?:ends|stops|finishes|is\s+yours|closes)(?:\s+(?:in|with)\s+(?:(?:a\s+|your\s+)?(?:victory|win)|"
                             r"your\s+favou?r))?(?:\s+(?:at|by))?\s*$"
                             # "victory comes at 5:00", "the win is yours at 6:00"
                             r"|\b(?:victory|the\s+win)\s+(?:comes|is\s+yours|is\s+declared|is\s+awarded)(?:\s+(?:at|by))?\s*$")


def _time_phrases(text: str) -> list[tuple[int, int, float]]:
    """Moments the request names: "at minute 3", "at 90 seconds", "at 60s", "at 2:30", "at the 4-minute mark"."""
    found = [(m.start(), m.end(), number(m.group(1)) * 60)
             for m in re.finditer(r"\b(?:at|in|around)\s+minute\s+" + _NUM, text)]
    found += [(m.start(), m.end(), _seconds(m.group(1), m.group(2)))
              for m in re.finditer(r"\b(?:at|around)\s+(?:about\s+)?" + _NUM + r"\s*" + _UNIT, text)]
    found += [(m.start(), m.end(), int(m.group(1)) * 60 + int(m.group(2)))
              for m in re.finditer(r"\b(?:at|around)\s+" + _CLOCK, text)]
    found += [(m.start(), m.end(), _seconds(m.group(1), m.group(2)))
              for m in re.finditer(r"\bat\s+the\s+" + _NUM + r"[\s-]*" + _WORD_UNIT + r"\s+mark\b", text)]
    # when an attack comes, not how long the game lasts: "the enemy attacks in 3 minutes", "an attack
    # comes after 4 minutes"; a unit's name is no attack ("build 6 assault bots in 4 minutes")
    found += [(m.start(1), m.end(), _seconds(m.group(2), m.group(3)))
              for m in re.finditer(r"\b(?:attacks?|attacking|assaults?|strikes?|raids?|hits|waves?|push(?:es)?|"
                                   r"arrives?|comes?|lands?)\b(?!\s+(?:bots?|tanks?|units?|vehicles?|craft)\b)"
                                   r"\s+(?:[\w']+\s+){0,2}?((?:in|after)\s+)" + _NUM + r"\s*" + _WORD_UNIT, text)]
    # a list goes on from a named moment: "at 3:00 and 6:00", "at minute 2, 4 and 6"
    follow = re.compile(r"(?:,\s*|\s+and\s+|,\s+and\s+)(?:again\s+)?(?:at\s+)?(?:(" + r"\d{1,2}):([0-5]\d)\b|"
                        + _NUM + r"\s*" + _UNIT + r"|(\d+)(?=\s*(?:,|and\b|then\b|[.;]|$)))")
    more = []
    for start, end, _ in found:
        minute_list = "minute" in text[start:end]
        while (m := follow.match(text, end)) and m.end() not in {e for _, e, _ in found}:
            if m.group(1):
                t = int(m.group(1)) * 60 + int(m.group(2))
            elif m.group(3):
                t = _seconds(m.group(3), m.group(4))
            elif minute_list:
                t = int(m.group(5)) * 60
            else:
                break
            more.append((m.start(), m.end(), t))
            end = m.end()
    # a time counted from the one before: "the left camp is hit at 1:30, the right one 60 seconds after that"
    for m in re.finditer(r"(?<![\w-])" + _NUM + r"\s*" + _WORD_UNIT + r"\s+(?:later|after\s+that|afterwards|"
                         r"after\s+the\s+(?:first|last|previous)(?:\s+one)?)\b", text):
        before = [t for start, _, t in sorted(set(found + more)) if start < m.start()]
        if before:
            more.append((m.start(), m.end(), before[-1] + _seconds(m.group(1), m.group(2))))
    return sorted(set(found + more))


_CHANCE = (r"\b(?:some ?time|at some (?:[\w-]+ )?(?:point|moment|time)|at any (?:time|point|moment)|"
           r"at an? (?:random|unannounced|unknown|unexpected|surprise|secret) (?:time|moment|point)|randomly)")
_WINDOW_FIRST = re.compile(_CHANCE + r"\s+(?:in|during|within)\s+the\s+first\s+" + _NUM + r"\s*" + _WORD_UNIT)
_WINDOW_BETWEEN = re.compile(_CHANCE + r"\s+between\s+(?:minute\s+)?" + _NUM + r"(?:\s*" + _UNIT + r")?\s+and\s+"
                             r"(minute\s+)?" + _NUM + r"(?:\s*" + _UNIT + r")?")
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
             "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12}
# "sometime between the second and fourth minute": the minute marks, counted
_WINDOW_ORDINAL = re.compile(_CHANCE + r"\s+between\s+the\s+(" + "|".join(_ORDINALS) + r")\s+(?:minute\s+)?and\s+(?:the\s+)?("
                             + "|".join(_ORDINALS) + r")\s+minutes?(?:\s+marks?)?\b")
FIRST_ATTACK_EARLIEST = 30.0    # "sometime in the first 3 minutes": not in the first seconds, before any move
# a window given on the clock: "sometime between 1:00 and 2:30", "after 1:00 but before 2:30" (the later end may
# be a bare clock reading: "before the clock shows 2.5")
_AT = r"(?:\d{1,2}:[0-5]\d\b|" + _NUM + r"\s*" + _UNIT + r")"
_WINDOW_CLOCKS = re.compile(r"(?:" + _CHANCE + r"\s+between\s+(?P<a>" + _AT + r")\s+and\s+(?P<b>" + _AT + r")"
                            r"|(?:" + _CHANCE + r"\s+)?(?:after|past)\s+(?P<c>" + _AT + r")\s*,?\s+(?:but\s+|and\s+)?"
                            r"(?:before|by|until|no\s+later\s+than)\s+(?:the\s+(?:game\s+)?(?:clock|timer)\s+\w+\s+)?"
                            r"(?P<d>" + _AT + r"|\d+(?:\.\d+)?(?![\w:.])))")
_ORDINAL = r"(?P<o>" + "|".join(_ORDINALS) + r"|\d{1,2}(?:st|nd|rd|th))"
_LAST_WAVE_VERBS = (r"(?:through|thru|until|till|to|past|up\s+to|including|outlast(?:ing|s)?|surviv(?:e|es|ing)|"
                    r"withstand(?:ing|s)?|beat(?:ing|s)?|repel(?:ling|s)?|clear(?:ing|s)?|hold\s+out\s+(?:through|until|past))")
# the last attack, by its number or its ordinal: "through wave eight", "outlasting wave 7", "survive the tenth wave",
# "the sixth and final wave" (never "the first wave of 4 tanks", which counts nothing)
_ATTACK_WORD = r"(?:wave|attack|assault|raid|push)"
_LAST_WAVE = re.compile(r"\b" + _LAST_WAVE_VERBS + r"\s+(?:the\s+)?(?:final\s+|last\s+)?" + _ATTACK_WORD + r"\s+"
                        r"(?:number\s+|no\.?\s*|#)?(?P<n>\d{1,2}|" + "|".join(sorted(V.NUMBER_WORDS, key=len, reverse=True))
                        + r")(?![\w-])|\b(?:" + _LAST_WAVE_VERBS + r"\s+the\s+(?!first\b)" + _ORDINAL + r"\s+"
                        + _ATTACK_WORD + r"|the\s+" + _ORDINAL.replace("?P<o>", "?P<o2>") + r"\s+and\s+(?:final|last)\s+"
                        + _ATTACK_WORD + r")\b")


def _clock_seconds(said: str, unit_of: str = "") -> float:
    """Seconds of "2:30", "90 s", "2.5 minutes", or of a bare number in the unit of `unit_of` (minutes on a clock)."""
    if (m := re.fullmatch(_CLOCK, said)):
        return int(m.group(1)) * 60 + int(m.group(2))
    if (m := re.fullmatch(_NUM + r"\s*" + _UNIT, said)):
        return _seconds(m.group(1), m.group(2))
    return _seconds(said, "minutes" if ":" in unit_of or "m" in unit_of.split()[-1][:1] else "seconds")


def _attack_window(r: Reading) -> tuple[int, int] | None:
    """"An attack comes sometime between minute 1 and 3" / "sometime in the first three minutes": the seed
    draws the attack's time in that window. Returns the phrase's span (no game length is read there)."""
    text, c = r.text, r.concepts
    if (m := _WINDOW_BETWEEN.search(text)):
        unit = m.group(5) or m.group(3) or ("minutes" if "minute" in m.group(0) else "seconds")
        lo, hi = _seconds(m.group(1), m.group(2) or unit), _seconds(m.group(4), unit)
    elif (m := _WINDOW_ORDINAL.search(text)):
        lo, hi = _ORDINALS[m.group(1)] * 60, _ORDINALS[m.group(2)] * 60
    elif (m := _WINDOW_FIRST.search(text)):
        hi = _seconds(m.group(1), m.group(2))
        lo = min(FIRST_ATTACK_EARLIEST, hi / 4)
    elif (m := _WINDOW_CLOCKS.search(text)):
        first, last = (m.group("a"), m.group("b")) if m.group("a") else (m.group("c"), m.group("d"))
        lo, hi = _clock_seconds(first), _clock_seconds(last, first)
    else:
        return None
    if not 0 <= lo < hi:
        return None
    c.attack_window = [float(lo), float(hi)]
    c.random_timing = True
    r.hit(m, "attack_window")
    # "an attack comes sometime between 1:00 and 2:30": one attack, in that window, when the request speaks of
    # no attacks in the plural
    one = _ONE_ATTACK.search(text)
    if c.waves is None and one and not _MANY_ATTACKS.search(text):
        c.waves = 1
        r.hit(one, "waves")
    return m.start(), m.end()


_ATTACK_NOUNS = r"(?:attack|assault|strike|column|push|raid|wave|force|army|party|band|squad|offensive|incursion)"
_ONE_ATTACK = re.compile(r"\b(?:an?|one|a\s+single|the)\s+(?:[\w-]+\s+){0,2}?" + _ATTACK_NOUNS + r"\b")
_MANY_ATTACKS = re.compile(r"\b(?:attacks|assaults|strikes|columns|pushes|raids|waves|forces|armies|parties|bands|squads|"
                           r"offensives|incursions|second|another|again|then|twice)\b")


_REINFORCEMENTS = re.compile(r"\breinforcements?\b|\b(?:relief\s+(?:force|column|army)|backup|fresh\s+troops)\s+"
                             r"(?:arrives?|comes?|lands?|shows?\s+up|is\s+dropped|are\s+dropped)\b|"
                             # "we get backup at 3:30"
                             r"\b(?:get|gets|getting|receive|receives|have|has)\s+(?:some\s+)?(?:backup|relief)\b")
_THEIRS = re.compile(r"\b(?:the\s+)?(?:enemy|enemies|opponents?|they|ai)\s+(?:gets?|receives?|has|have)\s+theirs\b")


def _reinforcements(r: Reading) -> None:
    """Times at which the player's reinforcements arrive ("I get reinforcements dropped at 2:00"): moments of their
    own, never an attack's. "The enemy gets theirs at 3:00" is the enemy's reinforcement, which is not built."""
    text, c = r.text, r.concepts
    for m in _REINFORCEMENTS.finditer(text):
        if re.search(r"\b(?:no|without|never|zero|nor)\s+(?:\w+\s+)?$", text[max(0, m.start() - 20):m.start()]) \
                or enemy_owned(text, m.start()):
            continue
        a, b = _segment(text, m.start())
        other = re.search(r"\b(?:and|but|while|then)\s+(?:the\s+)?(?:enemy|enemies|they|opponents?|ai)\b", text[m.end():b])
        b = m.end() + other.start() if other else b
        mine = [t for t in r.moments if a <= t[0] < b]
        if not mine:
            continue
        r.moments = [t for t in r.moments if t not in mine]
        c.reinforcements = sorted({t[2] for t in mine} | set(c.reinforcements))[:8]
        r.hit((m.start(), max(t[1] for t in mine)), "reinforcements")
    for m in _THEIRS.finditer(text):
        a, b = _segment(text, m.start())
        theirs = [t for t in r.moments if a <= t[0] < b]
        if c.reinforcements and theirs:
            r.moments = [t for t in r.moments if t not in theirs]
            r.hit((m.start(), max(t[1] for t in theirs)), "reinforcements", "the enemy's own reinforcements are not "
                                                                            "built: only the player's arrive")


# how attackers travel: "slip around the edges of the map", "sneak in through the back", "take the long way round"
_ROUTE = re.compile(r"\b(?:slip\w*|sneak\w*|swing\w*|loop\w*|circl\w*|creep\w*|work(?:s|ing)?\s+(?:their|its)\s+way|go(?:es|ing)?|"
                    r"com(?:e|es|ing)|mov(?:e|es|ing)|travel\w*|flank\w*|skirt\w*|hug\w*)\s+(?:in\s+)?(?:around|round|along|via|"
                    r"by|through|past)\s+(?:the\s+)?(?:map'?s?\s+)?(?:edges?|flanks?|back(?:\s+door)?|perimeter|outskirts|rear|"
                    r"border|long\s+way|side\s+(?:paths?|routes?|roads?))\b(?:\s+of\s+the\s+map)?|"
                    r"\btak(?:e|es|ing)\s+the\s+long\s+way(?:\s+(?:round|around))?\b")


# the player's own aircraft ("using a single fast aircraft"): no offline design gives the player an air unit
_OWN_AIRCRAFT = re.compile(r"\b(?:using|with|flying|fly|pilot\w*|control\w*)\s+(?:only\s+)?(?:a|an|one|single|a\s+single|"
                           r"just\s+one|two|three|\d+)\s+(?:fast\s+|quick\s+|lone\s+|small\s+)?(?:aircraft|planes?|"
                           r"airplanes?|jets?|air\s+scouts?|flyers?|drones?)\b")
# "heavy fog": fog of war is on or off
_FOG_DEGREE = re.compile(r"\b(?:heavy|thick|dense|light|thin|deep|total|partial)\s+(?=fog\b)")


def _own_aircraft_and_fog_degree(r: Reading) -> None:
    for m in _OWN_AIRCRAFT.finditer(r.text):
        r.hit(m, "start_forces", "the player's own aircraft are not built: the offline designs give the player "
                                 "ground units (aircraft come only as attackers)")
    for m in _FOG_DEGREE.finditer(r.text):
        r.hit(m, "fog", f"fog of war is on or off: \"{m.group(0).strip()} fog\" is built as plain fog of war")


def _routes(r: Reading) -> None:
    """The way attackers travel is not built: the offline designs send them the shortest way to their target."""
    if r.concepts.archetype not in ("defense", "raids", "production", "capture"):
        return
    for m in _ROUTE.finditer(r.text):
        r.hit(m, "route", "the attackers' route is not built: they take the shortest way to their target")


# words of a stronger attack, as growth is said ("getting nastier", "ever deadlier")
_STRONGER = (r"bigger|larger|stronger|harder|heavier|fiercer|meaner|nastier|tougher|deadlier|angrier|denser|thicker|"
             r"worse|rougher|more\s+(?:numerous|dangerous|brutal|vicious|intense|punishing|aggressive|"
             r"massive)|vicious|brutal|dangerous|aggressive|massive")
_ENDLESS = re.compile(r"\b(?:spawns?|come|comes|coming|keeps?\s+coming|arriv\w+|attack\w*|waves?)\s+(?:in\s+)?(?:endlessly|nonstop|"
                      r"non-stop|continuously|without\s+end|forever|relentlessly|without\s+(?:a\s+)?(?:break|pause|let-?up))\b|"
                      r"\b(?:endless|never-?ending|unending|infinite|continuous|nonstop|non-stop|relentless)\s+"
                      r"(?:waves?|stream|spawns?|attacks?|tide|flood|assault)\b|\bnever\s+stop\s+coming\b")
_FASTER = re.compile(r"\b(?:gets?|getting|grows?|growing|comes?|coming)\s+(?:faster|quicker|more\s+often|more\s+frequent(?:ly)?)"
                     r"(?:\s+(?:over\s+time|as\s+time\s+goes\s+on|and\s+faster|each\s+time|every\s+wave))?|"
                     r"\b(?:speeds?|speeding)\s+up\b|\baccelerat\w+\b|\bmore\s+and\s+more\s+often\b|"
                     r"\b(?:shorter|smaller)\s+(?:gaps?|breaks?|pauses?)\b")
ENDLESS_FIRST, ENDLESS_GAP, ENDLESS_SHRINK, ENDLESS_MIN_GAP = 30.0, 45.0, 0.8, 15.0
ENDLESS_WAVES, ENDLESS_MOST = 12, 24     # attacks an endless schedule spreads to the end; most it ever sends


def _endless(r: Reading) -> None:
    """Attacks that never stop until the end ("the enemy spawns endlessly until then"), their gaps shrinking when
    they "get faster over time": a schedule to the end of the game, said as assumed."""
    text, c = r.text, r.concepts
    endless, faster = _ENDLESS.search(text), _FASTER.search(text)
    if not endless or c.wave_times or c.archetype not in ("defense", "raids"):
        return
    end = c.time_limit or 300.0
    span = end - 10 - ENDLESS_FIRST
    gap = c.wave_interval or ENDLESS_GAP
    if not c.wave_interval:
        # the attacks reach the end of a long game: the first gap is wide enough that the schedule spans it
        shrink = ENDLESS_SHRINK if faster else 1.0
        parts = sum(shrink ** k for k in range(ENDLESS_WAVES - 1))
        gap = max(gap, span / parts)
    times, t = [], ENDLESS_FIRST
    while t < end - 10 and len(times) < ENDLESS_MOST:
        times.append(float(round(t)))
        t += gap
        if faster:
            gap = max(ENDLESS_MIN_GAP, gap * ENDLESS_SHRINK)
    c.wave_times, c.waves = times, len(times)
    c.wave_interval = None if faster else c.wave_interval
    shown = ", ".join(clock(x) for x in times)
    if t < end - 10:      # the cap cut the schedule short of the end: said, never claimed
        r.hit(endless, "wave_times", problem=f"attacks stop at {clock(times[-1])}, not at the end ({clock(end)}): at "
                                             f"most {ENDLESS_MOST} attacks are sent ({shown})")
    else:
        r.hit(endless, "wave_times", note=f"attacks come until the end: at {shown}")
    if faster:
        gaps = [b - a for a, b in zip(times, times[1:])]
        r.hit(faster, "wave_times", note=f"the gaps between attacks shrink from {max(gaps, default=0):g} s to "
                                         f"{min(gaps, default=0):g} s")


def _times(r: Reading) -> None:
    """Times: wave times, intervals, game length."""
    text, c = r.text, r.concepts
    window = _attack_window(r)
    r.moments = [t for t in _time_phrases(text) if not _in_hazard(r, t[0])]
    if window:
        r.moments = [t for t in r.moments if not window[0] <= t[0] < window[1]]
    # a building still to have at a time says how long the game lasts, not when an attack comes: "still have your
    # factory at five minutes and it counts as a win"
    kept = re.search(r"\b(?:still\s+)?(?:have|hold|own|keep)\s+(?:your|the|my|our)\s+(?:[\w-]+\s+){0,2}?"
                     + _unit_pattern("building") + r"\s+(?:still\s+)?(?:standing\s+|alive\s+|intact\s+|up\s+)?"
                     r"(?:at|by|come)\s+(?:about\s+)?(?:" + _NUM + r"\s*" + _UNIT + r"|" + _CLOCK + r")"
                     r"(?:,?\s+and\s+(?:it|that)(?:'s|\s+is|\s+counts\s+as)\s+a\s+win\b)?", text)
    if kept:
        r.moments = [t for t in r.moments if not kept.start() <= t[0] < kept.end()]
        c.objective_type = c.objective_type or roster_names()[kept.group(1)]
        if not kept.group(1).endswith("s"):
            c.objectives = c.objectives or 1     # "your factory": the one
        r.hit(kept, "objective")
    # "still have the base at four minutes": the moment something must still stand is the end of the game
    before = {t: text[_segment(text, t[0])[0]:t[0]] for t in r.moments}    # each moment's clause up to it
    standing = [t for t in r.moments if _STILL_STANDING.search(before[t]) and not _ATTACKED.search(before[t])]
    r.moments = [t for t in r.moments if t not in standing]
    for t in standing:
        # "... has to be breathing at 5:00": what must still stand is kept, to the end of the game
        said = _STILL_STANDING.search(before[t])
        r.hit((t[0] - len(before[t]) + said.start(), t[0] - len(before[t]) + said.end()), "keep_count")
    _reinforcements(r)
    # "each one a minute after the last", "ninety seconds apart": the interval between attacks
    if (m := re.search(r"\b(?:each|every)(?:\s+(?:one|wave|attack|assault|raid|of\s+them|later\s+one|next\s+one))?\s+"
                       r"(?:(?:coming|arriving|landing|hitting|following)\s+)?(?:an?\s+|" + _NUM + r"\s*)?" + _UNIT
                       + r"\s+(?:after|behind|later\s+than)\s+the\s+(?:last|previous|one\s+before(?:\s+it)?|prior\s+one)\b|"
                       r"\b(?:an?\s+|" + _NUM + r"\s*)" + _UNIT + r"\s+apart\b", text)):
        c.wave_interval = _seconds(m.group(1) or m.group(3) or "1", m.group(2) or m.group(4))
        r.moments = [t for t in r.moments if not m.start() <= t[0] < m.end()]
        r.hit(m, "interval")
    elif (m := re.search(r"\b(?:one|a|an|1)\s+(?:new\s+)?(?:group|wave|attack|raid|squad|push|party|rush|batch|column|pack)"
                         r"\s+(?:a|per|each|every)\s+(?:" + _NUM + r"\s*)?" + _WORD_UNIT, text)):
        # "roughly one group a minute": the interval between attacks, never the length of the game
        c.wave_interval = _seconds(m.group(1) or "1", m.group(2))
        r.moments = [t for t in r.moments if not m.start() <= t[0] < m.end()]
        r.hit(m, "interval")
    elif (m := re.search(r"\b(?:at|in|with)\s+(?:regular\s+)?" + _NUM + r"[\s-]*" + _WORD_UNIT + r"\s+intervals?\b|"
                         r"\b(?:at\s+)?intervals?\s+of\s+" + _NUM + r"\s*" + _UNIT, text)):
        # "at 45-second intervals", "at intervals of two minutes"
        c.wave_interval = _seconds(m.group(1) or m.group(3), m.group(2) or m.group(4))
        r.hit(m, "interval")
    elif (m := next((m for m in re.finditer(r"\b(?:every|each)\s+(?:" + _NUM + r"\s*)?" + _UNIT, text)
                     if not _in_hazard(r, m.start())), None)):
        c.wave_interval = _seconds(m.group(1) or "1", m.group(2))
        r.hit(m, "interval")
    elif (m := re.search(r"\bevery\s+" + _CLOCK, text)):
        c.wave_interval = int(m.group(1)) * 60 + int(m.group(2))
        r.hit(m, "interval")
    candidates: list[tuple[re.Match, float]] = []
    limit = None
    if kept:
        limit = _seconds(kept.group(2), kept.group(3)) if kept.group(2) else int(kept.group(4)) * 60 + int(kept.group(5))
        candidates.append((kept, limit))
    lm = kept or next((m for m in re.finditer(r"\b(?:survive|for|lasting|last|after|in)\s+(?:the\s+first\s+)?(?:about\s+)?"
                                      + _NUM + r"\s*" + _UNIT, text)
               if not any(a <= m.start() < b for a, b, _ in r.moments) and not _in_hazard(r, m.start())
               and not (window and window[0] <= m.start() < window[1])), None)
    if lm and not kept:
        limit = _seconds(lm.group(1), lm.group(2))
        candidates.append((lm, limit))
    # "come 5:00, two should still be up": come before a time on the clock is until
    if limit is None and (lm := re.search(r"\b(?:until|till|to|come|through|past|beyond)\s+(?:minute\s+" + _NUM + r"|" + _CLOCK + r")",
                                          text)):
        limit = number(lm.group(1)) * 60 if lm.group(1) else int(lm.group(2)) * 60 + int(lm.group(3))
        candidates.append((lm, limit))
    if limit is None and (lm := re.search(r"\b(?:until|till|to)\s+the\s+" + _NUM + r"[\s-]*" + _WORD_UNIT + r"\s+mark\b",
                                          text)):
        limit = _seconds(lm.group(1), lm.group(2))
        candidates.append((lm, limit))
    # "give it two and a half minutes tops", "you get 4 minutes, max"
    if limit is None and (lm := re.search(r"\b(?:give\s+(?:it|them|me|yourself)|(?:you|i|we)\s+(?:get|have|'ve\s+got)|"
                                          r"allow)\s+(?:about\s+)?" + _NUM + r"\s*" + _WORD_UNIT
                                          + r"(?:\s*,?\s*(?:tops|max|maximum|at\s+most|at\s+the\s+most))?", text)):
        limit = _seconds(lm.group(1), lm.group(2))
        candidates.append((lm, limit))
    # "if my commander is alive when the clock hits 5:30, I win": the moment something must still be alive ends the game
    if limit is None and (lm := re.search(r"\b(?:alive|standing|breathing|intact|around|in\s+one\s+piece)\s+(?:when|once|at|"
                                          r"by)\s+(?:the\s+(?:clock|timer)\s+(?:shows|reads|hits|says|reaches)\s+)?"
                                          + _CLOCK + r"(?:\s*,?\s+(?:then\s+)?(?:i|you|we)\s+win\b)?|\b(?:when|once)\s+" + _CLOCK
                                          + r"\s*,?\s+(?:i|you|we)\s+win\b", text)):
        g = [x for x in lm.groups() if x is not None]
        limit = int(g[0]) * 60 + int(g[1])
        candidates.append((lm, limit))
    # "the whole thing ends at the six-minute mark", "most kills by the time the timer says ten minutes": the end
    if limit is None and (lm := re.search(r"\b(?:ends?|is\s+over|finishes|stops|wraps\s+up|runs\s+out|closes)\s+(?:at|by|on)\s+"
                                          + _CLOCK + r"|\bby\s+the\s+time\s+" + _CLOCK, text)):
        g = [x for x in lm.groups() if x is not None]
        limit = int(g[0]) * 60 + int(g[1])
        candidates.append((lm, limit))
        r.moments = [t for t in r.moments if not lm.start() <= t[0] < lm.end()]     # the end, no attack's time
    # "when the clock shows six", "once the timer reads 7:30": a bare number on the clock is minutes
    if limit is None and (lm := re.search(r"\b(?:when|once|until|till|by\s+the\s+time|as|before)\s+the\s+(?:clock|timer)\s+"
                                          r"(?:shows|reads|hits|strikes|says|reaches|turns|ticks\s+over\s+to)\s+(?:"
                                          + _CLOCK + r"|" + _NUM + r"(?:\s*" + _UNIT + r")?)(?![\w:])", text)):
        g = lm.groups()
        limit = int(g[0]) * 60 + int(g[1]) if g[0] else _seconds(g[2], g[3]) if g[3] else number(g[2]) * 60
        candidates.append((lm, limit))
    lm2 = re.search(r"\b" + _NUM + r"[\s-]*" + _WORD_UNIT + r"[\s-]*(?:time\s+)?(?:limit|deadline|timer|clock|game|match|"
                    r"battle|long|mission|scenario|round)\b", text) \
        or re.search(r"\b(?:limit|deadline|timer)\s+(?:of\s+)?" + _NUM + r"\s*" + _UNIT, text) \
        or re.search(r"\b" + _NUM + r"\s*" + _UNIT + r"\s+on\s+the\s+(?:clock|timer)\b", text)
    if lm2:
        candidates.append((lm2, _seconds(lm2.group(1), lm2.group(2))))
        if limit is None:
            lm, limit = lm2, candidates[-1][1]
    if limit is None:
        # a bare duration ("..., 4 minutes, ...") that is no wave time ("at 2 minutes") or interval ("every")
        for m in re.finditer(r"\b" + _NUM + r"[\s-]*" + _WORD_UNIT, text):
            before = text[:m.start()].split()[-1:] or [""]
            if any(a <= m.start() < b for a, b, _ in r.moments) or (window and window[0] <= m.start() < window[1]) \
                    or _in_hazard(r, m.start()) \
                    or any(h.key == "interval" and h.start <= m.start() < h.end for h in r.hits):
                continue
            if before[0] not in ("at", "every", "by", "minute", "each", "within", "before", "under", "than",
                                 "the", "around", "about", "have", "hold", "it", "for") \
                    and _seconds(m.group(1), m.group(2)) >= 30 \
                    and not re.match(r"\s+(?:later|after|afterwards|earlier|apart|behind|before|on)\b|[\s-]*(?:window|gap|"
                                     r"head[\s-]+start|lead|lull|breather|breathing\s+space)\b", text[m.end():]):
                # "a second, bigger one follows": an ordinal; "a minute later": a time between two events
                lm, limit = m, _seconds(m.group(1), m.group(2))
                break
    if limit is None and standing:
        start, end, limit = standing[-1]
        lm = re.compile(re.escape(text[start:end])).search(text, start)
        candidates.append((lm, limit))
    r.limits = candidates       # a hold time is not the game length: the next phrase may be
    if limit is not None and lm is not None:
        _set_limit(r, lm, limit)


def _set_limit(r: Reading, lm: re.Match, limit: float) -> None:
    problem = ""
    if limit > 3600:
        problem = f"a {limit / 60:.0f}-minute game exceeds the 60-minute cap; capped"
        r.unsupported.append(problem)
        limit = 3600.0
    r.concepts.time_limit = limit
    # the verb of lasting is the limit's too: "hold out until 6:00", "hang on for five minutes"
    last = re.search(r"\b(?:survive|hold\s+out|hang\s+on|stand|stand\s+firm|remain\s+standing|stay\s+standing|"
                     r"keep\s+standing|hang\s+in(?:\s+there)?|endure|last|stay\s+alive|keep\s+going|"
                     r"stick\s+it\s+out|ride\s+it\s+out|weather\s+(?:it|the\s+storm)|(?:for\s+)?(?:a|the)\s+(?:total\s+|whole\s+|"
                     r"full\s+)?(?:duration|length|span|running\s+time|game\s+length)\s+of|(?:for\s+)?(?:a\s+)?total\s+of)\s+$",
                     r.text[:lm.start()])
    r.hit((last.start(), lm.end()) if last else lm, "time_limit", problem)


_OPPOSITE = re.compile(r"\b(?:the\s+)?(?:side|direction|flank|edge|quarter)\s+opposite\s+(?:to\s+)?(?:the\s+)?(?:first|"
                       r"previous|last|one\s+before|earlier)(?:\s+one)?\b|\bthe\s+opposite\s+(?:side|direction|flank|edge)"
                       r"(?:\s+(?:from|to)\s+the\s+(?:first|previous|last)(?:\s+one)?)?\b")


# "attacks from the side opposite your base", "they come from the far side of the map": one front, across the map
_ACROSS = re.compile(r"\bfrom\s+(?:the\s+)?(?:side|direction|edge|end)\s+opposite\s+(?:to\s+)?(?:your|my|our|the\s+player'?s?)\s+"
                     r"(?:base|start|spawn|hq|side)\b|\bfrom\s+the\s+(?:far|other|opposite)\s+(?:side|end|edge)"
                     r"(?:\s+of\s+the\s+map)?\b")


def _opposite_side(r: Reading) -> None:
    """"another at 4:00 from the side opposite the first": no design ties an attack's side to the one before it."""
    for m in _ACROSS.finditer(r.text):
        if not r.concepts.directions and not r.concepts.random_side:
            r.concepts.fronts = 1
            r.hit(m, "fronts")
    for m in _OPPOSITE.finditer(r.text):
        r.hit(m, "random_side", "each attack's side is drawn per game, never the one before it, but not "
                                "necessarily the opposite one")


_HOME_SIDE = re.compile(r"\b(?:base|bases|start|starts|starting|spawn|spawns|spawned|located|sits|sitting|stands|standing|"
                        r"outpost|camp|hq|headquarters|(?:you|we|i)\s*(?:are|am|'re|'m))(?:\s+[\w']+){0,2}?\s+(?:in|on|at)"
                        r"\s+(?:the\s+)?(?:far\s+)?$")


def _directions(r: Reading) -> None:
    """Named sides in the request's order: compass points in any spelling, and left / right flanks."""
    text, c = r.text, r.concepts
    compass = r"(north|south)[\s-]?(east|west)(?:ern|ward|wards)?|(north|south|east|west)(?:ern|ward|wards)?"
    flanks = "|".join(V.FLANK_WORDS)
    pattern = re.compile(
        r"(?<![\w-])(?:" + compass + r")(?![\w-])"
        r"|(?<=from )(?:the )?(ne|nw|se|sw|n|e|s|w)(?![\w-])|(?<![\w-])(ne|nw|se|sw)(?![\w-])"
        r"|(?<![\w-])(left|right)(?=[\s-](?:" + flanks + r")\b|,?\s(?:and|then|or)\s(?:then\s)?(?:the\s|your\s)?"
        r"(?:left|right)[\s-](?:" + flanks + r")\b)"
        r"|(?:(?<=from the )|(?<=on the )|(?<=your )|(?<=our )|(?<=the player's ))(left|right)(?![\w-])"
        r"|(?<![\w-])(both flanks|either flank|both sides|both wings)(?![\w-])"
        # "a rise that both sides want": the sides that want, race or fight are the players, not two flanks
        r"(?!" + _PLAYERS_SIDES + r")")
    named: list[tuple[int, int, str]] = []
    for m in pattern.finditer(text):
        before = text[_segment(text, m.start())[0]:m.start()]
        home = _HOME_SIDE.search(before)
        if home and not re.search(r"\b(?:their|enemy|enemy's|enemies'|hostile|opponent's|rival's|ai's)\s+(?:[\w-]+\s+)?$",
                                  before[:home.start()]):
            continue    # "the player's base in the south": where the player is, not where attacks come from
        if m.group(1):
            name = V.COMPASS[m.group(1) + m.group(2)]
        elif m.group(3):
            name = V.COMPASS[m.group(3)]
        elif m.group(4) or m.group(5):
            name = m.group(4) or m.group(5)
        elif m.group(6) or m.group(7):
            name = m.group(6) or m.group(7)
        else:
            # "both sides" after two compass sides are named is those two ("from the north-east at 1:00, from the
            # south at 2:30, and from both sides together at 4:00"); else the two flanks
            prior = list(dict.fromkeys(n for *_, n in named if n not in ("left", "right")))
            both = prior[-2:] if len(prior) >= 2 and m.group(8).startswith("both") else ["left", "right"]
            named += [(m.start(), m.end(), n) for n in both]
            continue
        named.append((m.start(), m.end(), name))
    # "alternating left then right", "switching between left and right": the flanks, said bare
    for m in re.finditer(r"\b(?:alternat\w*|between|switch\w*|swapp?\w*|flipping)\s+(?:the\s+)?(left|right)(?:\s+(?:flank|side))?"
                         r"\s*,?\s*(?:and|then|or|to)\s+(?:then\s+)?(?:the\s+)?(left|right)\b", text):
        bare = [(m.start(g), m.end(g), m.group(g)) for g in (1, 2)
                if not any(a <= m.start(g) < b for a, b, _ in named)]
        if bare:
            named = sorted(named + bare, key=lambda n: n[0])
    if any(n in ("left", "right") for *_, n in named):
        # once a flank is named, "the right" / "your left" alone is the other flank ("... your left flank at
        # 1:00 and the right at 3:00")
        taken = [(a, b) for a, b, _ in named]
        for m in re.finditer(r"(?<=\bthe )(left|right)(?![\w-])(?!\s+(?:of|hand|to|now|away|here|there)\b)", text):
            if not any(a <= m.start() < b for a, b in taken):
                named.append((m.start(), m.end(), m.group(1)))
        named.sort()
    if not named:
        return
    r.sides = named
    for start, end, _ in named:
        r.hit((start, end), "directions")
    # a time named between a side and the next side is that side's ("west at 1:00, north at 2:30"), or
    # when the request names the time first, the time before each side ("at minute 2 from the north")
    # a side followed by several times attacks at each of them ("west at 1:00, 3:00 and 5:00, north at 4:00")
    moments = r.moments
    after = not moments or moments[0][0] >= named[0][1]
    times: list[list[float]] = []
    for i, (start, end, _) in enumerate(named):
        if after:
            # "both flanks at 4:00" names two sides in one span: each has the times after it
            nxt = next((a for a, _, _ in named[i + 1:] if a != start), len(text))
            times.append([t[2] for t in moments if end <= t[0] < nxt])
        else:
            prev = next((b for _, b, _ in reversed(named[:i]) if b != end), 0)
            own = [t for t in moments if prev <= t[0] < start]
            times.append([own[-1][2]] if own else [])
    # each time belongs to one span of the request (the two sides of "both flanks" share theirs)
    per_span = {(a, b): len(own) for (a, b, _), own in zip(named, times)}
    if all(times) and sum(per_span.values()) == len(moments):
        c.directions = [n for (_, _, n), own in zip(named, times) for _ in own]   # type: ignore[misc]
        c.direction_times = [float(t) for own in times for t in own]
        for t in moments:
            r.hit((t[0], t[1]), "direction_times")
    elif (each := _sides_counted(r, named)):
        c.directions = each                             # type: ignore[assignment]
    elif len(named) == c.waves and len({n for *_, n in named}) < len(named) and _sides_ordered(text, named):
        # one side a wave, in order, a side named again: "from the east, then the north, then the east again"
        c.directions = [n for *_, n in named]           # type: ignore[assignment]
    else:
        seen: list[str] = []
        for _, _, n in named:
            if n not in seen:
                seen.append(n)
        c.directions = seen                             # type: ignore[assignment]
    c.fronts = len(set(c.directions))
    if len(c.directions) > 1 and (c.direction_times or _sides_ordered(text, named)):
        # the sides say the order: a hit over the whole stretch from the first side to the last read every
        # word between them ("twice that size", "a minute later", "before the second one ends")
        for start, end, _ in named:
            r.hit((start, end), "front_order")
        # sides listed in order with no count, time or interval name one attack each ("first at your eastern
        # gate, a while later at the western one, and last of all from the north")
        if c.waves is None and not r.moments and not c.wave_interval:
            c.waves = len(c.directions)


_FIRST_N = re.compile(r"\bthe\s+first\s+" + _NUM + r"\s+(?:(?:waves?|attacks?|assaults?|raids?|of\s+them)\s+)?"
                      r"(?:(?:come|comes|arrive|arrives|hit|hits|attack|attacks|strike|strikes)\s+)?(?:from|out\s+of)\s+"
                      r"(?:the\s+)?$")


def _sides_counted(r: Reading, named: list[tuple[int, int, str]]) -> list[str]:
    """Each attack's side when the sides are counted out over the waves in order: "the first two from the north
    and the last from the east" is north, north, east ([] when no side is counted or the count misses)."""
    each: list[str] = []
    spans: list[tuple[int, int]] = []
    for start, end, side in named:
        before = max(0, start - 60)
        m = _FIRST_N.search(r.text[before:start])
        each += [side] * (int(number(m.group(1))) if m else 1)
        spans.append((before + m.start() if m else start, end))
    if len(each) == len(named) or len(each) != (r.concepts.waves or len(r.moments)):
        return []
    for span in spans:
        r.hit(span, "front_order")
    return each


# A list of sides states their order only with an order word between two sides ("west, then east"), "first"
# just before the first side or just after it ("first from the west", "the west first"), or an order phrase
# closing the list ("... and east in that order"). "From the north and east, first wave at 30 s" names the
# sides, not their order: the seed may draw it.
_ORDER_BETWEEN = re.compile(r"\b(?:then|followed by|after that|afterwards|later|finally|next|second)\b")
_FIRST_BEFORE = re.compile(r"\bfirst\b(?:\W+\w+){0,3}\W*$")
_FIRST_AFTER = re.compile(r"^\W*first\b")
_ORDER_CLOSING = re.compile(r"^[^.;]{0,20}?\b(?:in (?:that|this|the given) order|in turn|one after (?:the other|another)"
                            r"|in sequence)\b")


def _sides_ordered(text: str, named: list[tuple[int, int, str]]) -> bool:
    first_start, first_end = named[0][0], named[0][1]
    last_end = named[-1][1]
    return bool(_ORDER_BETWEEN.search(text, first_end, named[-1][0])
                or _FIRST_BEFORE.search(text[max(0, first_start - 40):first_start])
                or _FIRST_AFTER.match(text[first_end:first_end + 10])
                or _ORDER_CLOSING.match(text[last_end:last_end + 50]))


_NOT_IN_ROSTER_AIR = ["gunships", "gunship", "helicopters", "helicopter", "choppers", "chopper", "drones", "drone",
                      "jets", "zeppelins", "airships"]


# fog said as what the player sees: "all you can see is what your own troops can see", "you only see what your
# units see", "nothing past your units' sight lines", "you see only around your own units"
_OWN_UNITS = r"(?:your|its|their)\s+(?:own\s+)?(?:troops|units|forces|army|soldiers|men|side)(?:'s?)?"
_SIGHT_ONLY = re.compile(r"\b(?:all|everything)\s+(?:you|the\s+player)\s+(?:can\s+)?sees?\s+is\s+what\s+" + _OWN_UNITS
                         + r"\s+(?:can\s+)?see\b"
                         r"|\b(?:you|the\s+player|each\s+side|every\s+side)\s+(?:can\s+)?(?:only\s+)?sees?\s+(?:only\s+)?"
                         r"(?:what|around|near)\s+" + _OWN_UNITS + r"(?:\s+(?:can\s+)?see)?\b"
                         r"|\bnothing\s+(?:past|beyond|outside)\s+" + _OWN_UNITS + r"\s+(?:sight|vision|view)(?:\s+lines?|"
                         r"\s+range)?\b"
                         r"|\b(?:vision|sight|visibility)\s+(?:is\s+)?(?:limited|restricted)\s+to\s+(?:what\s+)?" + _OWN_UNITS
                         # "your units' own sight is all you get"
                         + r"|" + _OWN_UNITS + r"\s+(?:own\s+)?(?:sight|vision|eyes)\s+(?:is|are)\s+all\s+(?:you|the\s+player)\s+"
                         r"(?:get|gets|have|has)\b")


def _units_and_switches(r: Reading) -> None:
    text, c = r.text, r.concepts
    found = r.moments
    air_hits = [m for t in V.UNIT_KIND_TRIGGERS["air"] + ["by air", "air raid", "air raids", "planes", "airstrike",
                                                          "airstrikes", "air strike", "air strikes", *_NOT_IN_ROSTER_AIR]
                for m in [_find(text, t)] if m]
    c.air = bool(air_hits)
    for m in air_hits:
        # aircraft the roster does not have are flown as its bombers: a stated stand-in, never the thing asked
        word = m.group(0).rstrip("s")
        r.hit(m, "air", note=f"the roster has no {word}: the air attack is made of bombers"
              if m.group(0) in _NOT_IN_ROSTER_AIR else "")
    times = [t for _, _, t in found]
    if c.air and len(found) > 1:
        # the time named closest to the air words is the air assault's: designs read it as the last one
        air_at = min(m.start() for m in air_hits)
        order = sorted(found, key=lambda f: abs(f[0] - air_at))
        times = [t for _, _, t in sorted(order[1:])] + [order[0][2]]
    c.wave_times = c.direction_times[:] if c.direction_times else times
    for start, end, _ in found:
        r.hit((start, end), "wave_times")
    ground = [m for w in ("ground", "land") if (m := _find(text, w))]
    c.ground = not c.air or bool(ground)
    for m in ground:
        r.hit(m, "ground")
    # a building's name says no kind of attacker ("the bot lab", "a vehicle plant")
    unbuilt = re.sub(r"(?<![\w-])" + _unit_pattern("building"), lambda b: " " * len(b.group(0)), text)
    # "heavy fog", "heavy losses": weather and outcomes, no kind of unit
    unbuilt = re.sub(r"\bheavy(?=\s+(?:fog|rain|snow|smoke|losses|casualties|fire|damage|pressure|traffic|going)\b)",
                     lambda b: " " * len(b.group(0)), unbuilt)
    c.unit_kinds = [k for k, ts in V.UNIT_KIND_TRIGGERS.items() if any(_has(unbuilt, t) for t in ts)]
    for w in ("artillery only", "only artillery", "artillery-only", "all-artillery", "all artillery"):
        if (m := _find(text, w)):
            c.unit_kinds = ["artillery"]
            r.hit(m, "artillery_only")
    off = [m for w in ("no production", "without production", "fixed forces", "no building", "no base building",
                       "fixed armies", "no reinforcements") if (m := _find(text, w))]
    off += list(re.finditer(r"\b(?:nothing|no\s+units?|none)\s+(?:(?:can|may|is\s+allowed\s+to|will)\s+be|gets|is|will\s+get|"
                            r"may\s+get|(?:can|may)\s+get)\s+(?:built|produced|made|trained)\b|\b(?:no|without)\s+(?:new\s+)?"
                            r"(?:construction|building\s+of\s+(?:any\s+)?units)\b|\b(?:nobody|no\s+one|no\s+side|no\s+army|no\s+team)\s+(?:may|can|gets?\s+to|is\s+allowed\s+"
                            r"to|will)\s+(?:build|produce|train)\b|"
                            # "the six artillery bots you start with are all you'll ever get"
                            r"\b(?:are|is)\s+all\s+(?:you|you'll|you\s+will|the\s+player)\s+(?:ever\s+)?(?:get|have|receive)\b|"
                            r"\bproduction\s+(?:is\s+)?(?:off|disabled|switched\s+off|turned\s+off)\b|"
                            r"\bno\s+(?:factories|factory|new\s+units|building\s+allowed|base(?!\s+(?:to|of|in)\b))\b|"
                            r"\b(?:you|i|we|the\s+player|and)\s+(?:cannot|can't|can\s+not|may\s+not|won't\s+be\s+able\s+to)\s+"
                            r"(?:build|produce|train)\b", text))
    if off:
        c.production = False
        for m in off:
            r.hit(m, "production_switch")
    elif c.archetype == "production" or _has(text, "production"):
        c.production = True
        if (m := _find(text, "production")):
            r.hit(m, "production_switch")
    # any fog the request names is on ("full fog of war", "through the fog"), unless it turns it off
    if (m := re.search(r"\bfog(?: of war)?\s+(?:is\s+|are\s+|gets\s+|turned\s+|switched\s+|set\s+|both\s+)*(?:off|disabled|lifted|"
                       r"removed)\b|\bno fog(?: of war)?|without (?:the |any )?fog(?: of war)?", text)):
        c.fog = False
        r.hit(m, "fog")
    elif (m := re.search(r"\b(?:(?:full|total|heavy|thick|with|under|in|through)\s+(?:the\s+)?)?fog(?: of war)?"
                         r"(?:\s+(?:on|enabled))?", text) or _SIGHT_ONLY.search(text)):
        c.fog = True
        r.hit(m, "fog")
    for phrase, name in V.MAP_HINTS.items():
        if (m := _find(text, phrase)):
            c.map_hint = name
            r.hit(m, "map")
            break
    # "a tower defence": a genre of towers the player places; the offline defence gives an army, not towers
    for m in re.finditer(r"\btower[\s-]+defen[cs]e\b", text):
        r.hit(m, "production_switch", "a tower defence's towers are not given: the player defends with the army the "
                                      "design gives")
    # "rushes pour in from all four corners": the four-corner map, but attacks from each corner are more than
    # a map: unless four corners were read as the attack sides, the clause is built only in part
    if (m := re.search(r"\bfrom\s+(?:all\s+|the\s+|each\s+of\s+the\s+|every\s+one\s+of\s+the\s+)?(?:four|4)\s+"
                       r"corners\b", text)) and len({d for d in c.directions if len(d) == 2}) < 4:
        r.hit(m, "directions", "attacks from all four corners are not built: the attacks come from the sides the "
                               "design draws, not from each corner")
    for name, why in V.UNBUILT_MAPS.items():
        for m in re.finditer(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text):
            r.hit(m, "map", f"{why}; the scenario's own map is used")
    for m in re.finditer(r"\bon (?:an?|the) ((?:[\w-]+ ){0,3}?[\w-]+) map\b", text):
        if not any(_has(m.group(1), phrase) for phrase in V.MAP_HINTS) and m.group(1) not in ("open", "small", "big",
                                                                                                 "large", "random"):
            r.hit(m, "map", f"no built-in map is \"{m.group(1)}\"; the scenario's own map is used")
    for m in re.finditer(r"\b(?:equal|same|identical|mixed|matching)\s+(?:mixed\s+)?(?:armies|forces|units|"
                         r"starting forces|start)\b", text):
        r.hit(m, "equal_forces")
    if "efficien" in text:
        c.ranking = "damage_efficiency"
        r.hit(re.search(r"[\w ]{0,20}efficien\w*", text), "ranking")
    elif (m := re.search(r"\b(?:kills|kill count|most kills|(?:killed|destroyed|slain) the most)\b", text)):
        c.ranking = "kills"
        r.hit(m, "ranking")
    elif (m := re.search(r"\bdamage\s+dealt\b|\b(?:dealt|done|inflicted|caused)\s+the\s+most\s+damage\b|"
                         r"\bmost\s+damage\s+(?:dealt|done|inflicted)\b", text)):
        c.ranking = "damage_dealt"
        r.hit(m, "ranking")
    elif (m := re.search(r"\b(?:hp|health|hit points) (?:left|remaining|kept)\b|\bmost\s+(?:hp|health|hit\s+points)\b|"
                         r"\bhow\s+much\s+(?:hp|health|hit\s+points|life)\s+(?:each|every|a)\s+(?:side|team|army|player|faction)\s+"
                         r"(?:keeps|has\s+left|retains|holds\s+on\s+to|still\s+has)\b", text)):
        c.ranking = "hp_remaining"
        r.hit(m, "ranking")
    elif "surviv" in text and c.archetype == "ffa":
        c.ranking = "survival"
        m = re.search(r"\w*surviv\w*", text)
        # "survive until 10:00" asks that staying alive wins; a ranking by survival ranks the teams still alive by
        # the hp they keep, so only the first of them wins: built, but not as asked
        goal = re.match(r"surviv\w*\s+(?:until|till|to|through|for)\b", text[m.start():])
        r.hit(m, "ranking", problem="built as a ranking by survival at the time limit: the teams still alive are "
                                    "ranked by the hp they keep, so staying alive alone does not win" if goal else "")
    if (m := re.search(r"\bcommander", text)) and "commander" in c.unit_kinds:
        r.hit(m, "raider")


_HOW_FAST = re.compile(r"\bhow\s+(?:fast|quickly|soon)\s+(?:can|could|will)\s+(?:you|the\s+player|one|the\s+agent|an\s+agent|"
                       r"we|i)\s+(?:get|build|make|"
                       r"field|produce|train|have|put|roll\s+out|muster|assemble|raise)\b(?:\s+(?:together|out|up))?")


_STARTED = re.compile(r"\b(?:start|starts|starting|begin|begins|beginning)\s+(?:(?:out|off)\s+)?(?:with|from)\s+"
                      r"(?:[\w-]+\s+){0,4}?(?:(?:,\s*|and\s+)(?:[\w-]+\s+){0,4}?)*$|\b(?:i|we|you)\s+(?:have|get|own)\s+$")


def _production_goal(r: Reading) -> None:
    """"build 4 light tanks", "train two assault bots": a unit count to obtain is a production goal."""
    text, c = r.text, r.concepts
    units = _unit_pattern("mobile")
    # buildings listed first are no goal: "build two vehicle plants and 6 light tanks" (noted below)
    buildings_first = (r"((?:(?<![a-z])(?:\d+|an?|" + "|".join(V.NUMBER_WORDS) + r")\s+" + _unit_pattern("building")
                       + r"\s*(?:,\s*(?:and\s+|then\s+)?|\s+and\s+(?:then\s+)?|\s+then\s+))*)")
    # ("i get one scout", "you get 4 tanks": what the player is given, not a goal)
    m = re.search(r"\b(?:build|train|make|(?<!\bi )(?<!\byou )(?<!\bwe )(?<!\bplayer )get|own|field|produce|assemble|muster|"
                  r"raise|construct|put\s+up|crank\s+out|"
                  r"churn\s+out|pump\s+out|turn\s+out|roll\s+out)\s+(?:up\s+)?(?:an?\s+army\s+of\s+)?" + buildings_first
                  + _NUM + r"\s+" + units, text)
    if m is not None:
        for extra in re.finditer(r"(?:\d+|an?|" + "|".join(V.NUMBER_WORDS) + r")\s+" + _unit_pattern("building"),
                                 m.group(1)):
            r.hit((m.start(1) + extra.start(), m.start(1) + extra.end()), "production_target",
                  f"buildings in a production goal are not counted (\"{extra.group(0)}\"): only units")
        # the goal's count and unit keep their places: groups 1 and 2 as in the other forms
        m = re.compile(_NUM + r"\s+" + units).search(text, m.end(1))
    if m is None:
        # the count first, the making after: "seven assault bots produced", "6 light tanks built and ready"
        m = re.search(_NUM + r"\s+" + units + r"\s+(?:produced|built|made|trained|fielded|finished|rolled\s+out|ready)\b",
                      text)
    if m is None and (lead := _HOW_FAST.search(text)):
        # "how fast can you get two anti-air vehicles and three light tanks into the field?": the list after it
        m = re.compile(_NUM + r"\s+" + units).search(text, lead.end(), lead.end() + 160)
        if m is not None:
            r.hit(lead, "production_target")
            for extra in re.compile(_NUM + r"\s+" + _unit_pattern("building")).finditer(text, lead.end(), m.start()):
                r.hit(extra, "production_target", f"buildings in a production goal are not counted "
                                                  f"(\"{extra.group(0).strip(' ,')}\"): only units")
    if m is None and c.archetype == "defense" and not any(h.key == "archetype" for h in r.hits) \
            and re.search(r"\bdeadline\b|\b(?:before|by)\s+(?:the\s+)?minute\b|"
                          r"\b(?:before|by)\s+(?:the\s+)?\S+?[\s-]*minutes?\s+mark\b|\b(?:before|by)\s+\d{1,2}:[0-5]\d\b|"
                          r"\b(?:within|in under|in less than|in at most)\s+\S+\s*" + _UNIT
                          + r"|\bin\s+\S+\s*" + _UNIT + r"\s+or\s+(?:less|fewer|under)\b", text):
        # "3 assault bots, deadline 5:00", "four light tanks by minute 6": a bare count of units with a
        # deadline and no other game named is a unit count to obtain by then
        # ("i have 6 light bots" is what the player starts with, not a goal)
        m = re.search(r"(?:^|[,;:.(]\s|(?<!\bi\s)(?<!\bwe\s)(?<!\byou\s)\b(?:get|have|want|need)\s)" + _NUM + r"\s+"
                      + units + r"(?!\s+(?:must|will|have\s+to|has\s+to|need\s+to|needs\s+to|are\s+to|should|can|try\s+to)\s+"
                      r"(?!be\s+(?:built|produced|made|trained|fielded|ready)))", text)
        # "five artillery bots must destroy ...": units that act are the player's, not a count to obtain
    if m and c.archetype in ("defense", "raids", "production"):
        if c.archetype != "production":
            r.matched.append("archetype production (a unit count to obtain)")
        c.archetype = "production"
        c.production = True
    if c.archetype != "production":
        return
    for short in _SHORT.finditer(text):
        r.hit(short, "deadline")
    for odd in re.finditer(r"\b(?:build|train|make|produce|field|assemble)\s+" + _NUM + r"\s+((?:[a-z-]+\s+){0,2}?[a-z-]+)"
                           r"(?=\s+(?:before|by|within|in|and|while|as|for|under|no)\b|[,;.]|$)", text):
        if not re.match(units, odd.group(2)) and not re.search(units, odd.group(2)):
            why = f"the roster has no unit called \"{odd.group(2)}\"; nothing is produced in its place"
            r.unsupported.append(why)
            r.hit(odd, "production_target", why)
    # a bare count of units is the goal, unless it is what the player starts with
    m = m or next((u for u in re.finditer(_NUM + r"\s+" + units, text)
                   if not _STARTED.search(text[max(0, u.start() - 60):u.start()])), None)
    if m:
        for extra in re.finditer(r"(?:,\s*(?:and\s+)?|\s+and\s+)" + _NUM + r"\s+" + _unit_pattern("building"),
                                 text[m.end():m.end() + 80]):
            r.hit((m.end() + extra.start(), m.end() + extra.end()), "production_target",
                  f"buildings in a production goal are not counted (\"{extra.group(0).strip(' ,')}\"): only units")
        # the goal is the whole list: "4 anti-air vehicles, 3 artillery units and 2 heavy tanks"
        item, at = m, 0
        while item is not None:
            type_id = roster_names()[item.group(2)]
            c.target_composition[type_id] = c.target_composition.get(type_id, 0) + int(number(item.group(1)))
            generic = item.group(2) in V.UNIT_SYNONYMS or item.group(2).rstrip("s") in V.UNIT_SYNONYMS
            r.hit((at + item.start(), at + item.end()), "production_target",
                  note=f"\"{item.group(2)}\" read as {type_id.replace('_', ' ')}s" if generic else "")
            at += item.end()
            # "ten small bots and two of the big tanks": the list goes on (and the loop below reads it)
            item = re.match(r"(?:\s+units?)?(?:,\s*(?:and\s+)?|\s+and\s+|\s*,\s*plus\s+)" + _NUM
                            + r"\s+(?:of\s+(?:the|those|these)\s+)?" + units, text[at:])


def _goal_not_given(r: Reading) -> None:
    """"how fast can you get 5 light tanks out": the units of the goal, not what the player is given at the start."""
    c = r.concepts
    goal = [(h.start, h.end) for h in r.hits if h.key == "production_target"]
    given = [h for h in r.hits if h.key == "start_forces" and any(a < h.end and h.start < b for a, b in goal)]
    if given:
        r.hits = [h for h in r.hits if h not in given]
        c.player_start = {t: n for t, n in c.player_start.items() if t not in c.target_composition}


# a goal missed at the deadline loses: "you lose if you're short", "come up short and it's a loss"
_SHORT = re.compile(r"\b(?:(?:you|i|we)\s+lose|(?:it'?s|that'?s)\s+a\s+loss)\s+(?:if|when|should)\s+(?:you(?:'re|\s+are)|i(?:'m|\s+am)|"
                    r"we(?:'re|\s+are)|it(?:'s|\s+is))\s+(?:still\s+)?(?:short|behind|not\s+done|not\s+there)\b|"
                    r"\b(?:fall|falls|come|comes)\s+up\s+short\b|\b(?:fall|falls)\s+short\b")


_UNOPPOSED = re.compile(r"\b(?:nobody|no\s+one|no-one|no\s+enemy|no\s+enemies|nothing)(?:'s|'re)?\s+(?:is\s+|are\s+|will\s+(?:be\s+)?)?"
                        r"(?:shooting|attacking|attacks?|attack|shoots?|coming\s+(?:for|after)|comes?\s+(?:for|after)|go(?:es|ing)?\s+after|"
                        r"bother(?:s|ing)?|trouble(?:s)?|troubling|harass(?:es|ing)?|threaten(?:s|ing)?|out\s+to\s+get)\b|"
                        r"\bno\s+(?:(?:enemy|hostile|opposing)\s+(?:units?|forces?|troops|armies|army|presence)\s+|enemy\s+|enemies\s+|"
                        r"opposition\s+|opponents?\s+|attackers?\s+|attacks?\s+|raids?\s+|threats?\s+)(?:at\s+all|on\s+the\s+map|"
                        r"anywhere|whatsoever|this\s+time)\b|\bno\s+(?:enemy|hostile)\s+(?:units?|forces?|army)\b|\b(?:nobody|no\s+one)\s+is\s+"
                        r"allowed\s+to\s+attack\b|\b(?:just\s+)?you\s+against\s+the\s+clock\b|\bunopposed\b|"
                        r"\bin\s+peace\b|\bpeaceful(?:ly)?\b|\bno\s+(?:enemies|enemy|opponents?|opposition)(?=\s*(?:[.;,!]|$))")


def _unopposed(r: Reading) -> None:
    """A race against the clock with no enemy: "nobody is shooting at you", "just you against the clock".
    Only the production and resource goals are games without an enemy; elsewhere it is not built."""
    text, c = r.text, r.concepts
    for m in _UNOPPOSED.finditer(text):
        # "nobody attacks you" names no attack: the attack word read inside it is taken back
        inside = [h for h in r.hits if h.key in ("raids", "waves") and m.start() <= h.start and h.end <= m.end()]
        if inside:
            r.hits = [h for h in r.hits if h not in inside]
            c.raids = any(h.key == "raids" for h in r.hits)
            if any(h.key == "waves" for h in inside) and not any(h.key == "waves" for h in r.hits):
                c.waves = None
        if c.archetype == "capture" and m.group(0) in ("unopposed", "in peace"):
            r.hit(m, "hold_time")     # "stand on it unopposed": a zone is held with no enemy on it
        elif c.archetype not in ("production", "resources"):
            r.hit(m, "unopposed", "only a production or resource goal is played with no enemy; this game has one")
        elif c.raids or c.wave_times:
            r.hit(m, "unopposed", "the request also names attacks: they are built")
        else:
            c.unopposed = True
            r.hit(m, "unopposed")


def _raids(r: Reading) -> None:
    """Raids: "raiders strike your extractors", "bombers hit your solar collectors every 90 s"."""
    text, c = r.text, r.concepts
    # "raider" inside a unit's name ("three raider bots") names a unit, a raid only when it strikes buildings
    in_name = _in_unit_name(text)
    named_raiders = []
    for w in ("raid", "raids", "raiders", "raider", "harass", "harassed", "harassing", "harassment", "raiding",
              "air raids", "air raid"):
        for m in re.finditer(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", text):
            if in_name(m):
                named_raiders.append(m)
                continue
            c.raids = True
            r.hit(m, "raids")
    # a periodic strike against a named building class is a raid on it
    target = re.search(r"\b(?:hit|hits|strike|strikes|bomb|bombs|target|targets|attack|attacks|go(?:es)?\s+(?:(?:straight|right|only|\w+ly)\s+)?"
                       r"for|raid|raids|harass|harasses|hunt|hunts|go(?:es)?\s+(?:(?:straight|right|only|\w+ly)\s+)?after)\s+(?:at\s+|on\s+)?"
                       r"(?:your|the|my|our|the\s+player'?s)\s+(?:\w+\s+)??" + _unit_pattern("building"), text)
    # an attacker that comes at a building on a schedule raids it: "bombers come diving out of the north-east at
    # your solar collectors" (every minute)
    target = target or re.search(r"\b(?:comes?|coming|dives?|diving|swoops?|swooping|descends?|descending|flies|"
                                 r"flying|rushes|rushing|charges|charging|streaks?|streaking|sends?|sending|throws?|"
                                 r"throwing|hurls?|hurling|launch(?:es)?|launching)\b[^.;]{0,60}?\bat\s+"
                                 r"(?:your|the|my|our)\s+(?:\w+\s+)??" + _unit_pattern("building"), text)
    # ... or a schedule of attackers on it: "bombers every 70 seconds on my solar collectors"
    target = target or re.search(r"\b(?:bombers?|raiders?|raids?|strikes?|attacks?|gunships?|waves?|sorties?)\s+every\s+"
                                 r"[^.;,]{1,30}?\s+(?:on|at|against)\s+(?:your|the|my|our)\s+(?:\w+\s+)??"
                                 + _unit_pattern("building"), text)
    if target and (c.raids or named_raiders or c.wave_interval or c.air or re.match(r"(?:sends?|sending|throws?|throwing|hurls?|hurling|"
                                                                     r"launch)", target.group(0))):
        c.raids = True
        for m in named_raiders:
            r.hit(m, "raids")
        c.raid_target_type = roster_names()[target.group(1)]
        if c.objective_type is None or c.objective_type != c.raid_target_type:
            c.objective_type = c.raid_target_type
        r.hit(target, "raid_target")
    elif target and c.objective_type is None:
        # attackers that go for one class of the player's buildings, with no raid named: those are what is kept
        # (the attackers named before, "and nothing else" after: the attacks go for the objectives alone)
        c.objective_type = roster_names()[target.group(1)]
        who = re.search(r"(?:enemy\s+|their\s+)?(?:[\w-]+\s+){0,2}?(?:squads?|teams?|parties|bands|raiders|units|bots|"
                        r"tanks|forces|attackers|columns|packs)\s+$", text[:target.start()])
        only = re.match(r"(?:\s+(?:buildings?|structures?))?(?:\s*,?\s*(?:and\s+)?(?:ignor(?:e|es|ing)\s+(?:everything|"
                        r"anything|all)\s+else|(?:and\s+)?nothing\s+else|only|alone|exclusively))?", text[target.end():])
        r.hit((who.start() if who else target.start(), target.end() + only.end()), "objectives")
        _objectives_counted_by_head(r)
    if c.raids and c.raid_target_type is None and c.objective_type and c.archetype in ("defense", "raids"):
        named = next((h for h in r.hits if h.key == "objective"), None)
        if named is not None:
            c.raid_target_type = c.objective_type
            r.hit((named.start, named.end), "raid_target")
    # raids that steal: "raiders steal 80 metal", "each raid loots your resources"
    theft = re.search(r"\b(?:steal|steals|stealing|loot|loots|looting|plunder|plunders|rob|robs|pilfer|pilfers|swipe|"
                      r"swipes|(?:cart|carts|carry|carries|haul|hauls)\s+(?:off|away)|(?:make|makes|run|runs|walk|walks)\s+"
                      r"off\s+with)\b[^.;]{0,40}?\b(?:metal|resources)\b", text)
    if theft and not c.raids and any(h.key in ("waves", "interval", "directions", "fronts", "wave_times") for h in r.hits):
        c.raids = True      # attacks that carry metal off are raids on the economy
    if theft and c.raids:
        amount = re.search(_NUM + r"\s+metal\b", theft.group(0))
        c.theft = number(amount.group(1)) if amount else DEFAULT_THEFT
        # "steal" alone is a goal the backend cannot build; raiders stealing metal it can
        for h in r.hits:
            if h.key == "unsupported_goal" and theft.start() <= h.start < theft.end():
                h.key, h.problem = "theft", ""
        # the raid carries the metal off as it sets out: one beaten before it arrives has still taken it
        r.hit(theft, "theft", "each raid takes the metal as it sets out, whether or not it reaches what it raids")
    if c.archetype == "defense" and c.raids:
        c.archetype = "raids"


def _raid_size(r: Reading) -> None:
    """How many units each raid is, when counted: "a pair of bombers every 75 s", "each raid is 3 fast bots",
    "raids of 4 light bots". A count of buildings ("your 4 extractors") is what is raided, not who raids."""
    text, c = r.text, r.concepts
    mobile = _unit_pattern("mobile")
    for m in re.finditer(r"(?:\ba\s+)?(?<![\w:.])" + _GROUP_NUM + r"\s+(?:of\s+)?(?:(?!(?:while|and|as|when|then|but|with|"
                         r"before|after|until|so|or)\s)[\w-]+\s+)?" + mobile, text):
        before = text[max(0, m.start() - 40):m.start()]
        if re.search(r"\b(?:minute|min|second|sec|at|by|until|till|before|after)\s*$", before):
            continue        # a moment or a period ("by minute 5 while raiders ..."), not a count of raiders
        sentence = text[text.rfind(".", 0, m.start()) + 1:(text.find(".", m.end()) + 1 or len(text))]
        periodic = re.search(r"\bevery\b|\braids?\b|\beach\b", sentence)
        if not periodic or re.search(r"\b(?:you|your|player)\s+(?:start|begin|have|get)s?\b[^.;]*$", before):
            continue
        # the player's units, a goal or a target are counted too ("build 4 heavy tanks while a raid hits")
        if re.search(r"\b(?:build|train|make|produce|field|assemble|muster)\s+(?:up\s+)?$", before) or any(
                h.key in NOT_ATTACKERS and h.start <= m.start(1) < h.end for h in r.hits):
            continue
        size = _GROUP_WORDS.get(m.group(1)) or int(number(m.group(1)))
        if size < 1:
            continue
        c.raid_size = size
        r.hit(m, "raid_size")
        return


def _safe_zone(r: Reading) -> None:
    """A shrinking safe zone: "the safe zone shrinks every 30 seconds", "a closing ring hurts units outside"."""
    text, c = r.text, r.concepts
    zone = _CLOSING_IN.search(text) or re.search(r"\b(?:safe|shrinking|closing)\s+(?:zone|circle|ring|area)\b|"
                     r"\b(?:zone|circle|ring)\s+(?:shrinks|closes|contracts)\b|"
                     r"\b(?:playable|play|safe|battle|fighting)\s+(?:ground|area|zone|field|space|arena)\s+"
                     r"(?:closes\s+in|shrinks|contracts|narrows|gets\s+smaller)\b", text)
    if not zone:
        return
    c.safe_zone = True
    r.hit(zone, "safe_zone")
    every = re.search(r"\b(?:shrinks|shrink|closes|close|contracts|narrows|tightens|creeps|moves|pushes)\s+(?:in\s+)?"
                      r"every\s+(?:" + _NUM + r"\s*" + _UNIT + r"|(half)(?:\s+a)?\s+minute)", text)
    if every:
        c.zone_interval = 30.0 if every.group(3) else _seconds(every.group(1), every.group(2))
        # that "every ..." times the zone, not enemy waves
        for h in r.hits:
            if h.key == "interval" and every.start() <= h.start < every.end():
                h.key = "safe_zone"
                c.wave_interval = None
        r.hit(every, "safe_zone")
    outside = re.search(r"\b(?:units?|anyone|anything|everything|everyone)\s+(?:caught\s+)?outside\b[^.;]{0,40}?"
                        r"\b(?:damage|damaged|hurt|burn|burns|lose\s+hp|loses\s+hp|bleeds?|loses?\s+health)\b|"
                        r"\b(?:hurts|damages|burns|harms|kills)\s+(?:whoever|anyone|anybody|everyone|any\s+unit|units)\s+"
                        r"(?:is\s+|are\s+|gets\s+)?(?:caught\s+|left\s+|stuck\s+|still\s+)?outside\b(?:\s+(?:it|of\s+it))?", text)
    if outside:
        r.hit(outside, "safe_zone")


# the unit to keep alive said again by a pronoun: "it must not die", "losing him loses it all", "if she dies"
_AGAIN = re.compile(r"\b(?:it|he|she|they)\s+(?:must|should|has to|have to|needs to|need to|may)\s+"
                    r"(?:not die|never die|survive|stay alive|live)\b"
                    r"|\b(?:it|he|she|they)\s+(?:cannot|can't|can\s+not|must\s+not|mustn't|may\s+not|should\s+not|shouldn't)\s+"
                    r"(?:be\s+(?:allowed|permitted|let)\s+to\s+)?(?:die|fall|be\s+(?:killed|destroyed|lost))\b"
                    r"|\b(?:losing|the\s+loss\s+of)\s+(?:him|her|it|them)\s+(?:loses|ends|costs|means)\b"
                    r"(?:\s+(?:it\s+all|the\s+(?:game|run|match|mission)|everything|defeat|a\s+loss))?"
                    r"|\bif\s+(?:he|she|it|they)\s+(?:dies|die|falls|fall|is\s+(?:killed|destroyed|lost)|goes\s+down)\b")


def _kept_again(r: Reading) -> None:
    for again in _AGAIN.finditer(r.text):
        r.hit(again, "protect")


def _protect(r: Reading) -> None:
    """A named unit to keep alive: "keep your commander alive", "the engineer must survive"."""
    text, c = r.text, r.concepts
    objective_types = set(V.OBJECTIVE_TYPES.values())
    one = "(" + "|".join(re.escape(n) for n, t in sorted(roster_names().items(), key=lambda kv: -len(kv[0]))
                         if t not in objective_types and t not in _building_types() and not n.endswith("s")) \
        + r")(?![\w-])(?!\s+(?:labs?|plants?)\b)"
    mobile = _unit_pattern("mobile")
    m = re.search(r"\b(?:do not|don't|never)\s+(?:let|get)\s+(?:your|the|my|our)\s+" + mobile + r"\s+(?:die|be (?:killed|"
                  r"destroyed)|fall|killed|destroyed|shot\s+down|blown\s+up)", text) \
        or re.search(r"\b(?:protect|guard|keep)\s+(?:your|the|my|our)\s+" + one + r"(?:\s+alive)?", text) \
        or re.search(r"\b(?:keep|keeping)\s+(?:your|the|my|our)\s+" + mobile + r"\s+(?:alive|breathing|in\s+one\s+piece|"
                     r"safe|kicking)", text) \
        or re.search(r"\b(?:your|the|my|our)\s+" + mobile + r"\s+(?:must|has to|needs to|should|is to)\s+(?:still\s+)?(?:survive|"
                     r"stay alive|live|not die|be\s+(?:still\s+)?(?:breathing|alive|standing|around|in\s+one\s+piece)|(?:come|get|make\s+it|pull)\s+(?:through|out)(?:\s+(?:it|this|that))?\s+(?:alive|"
                     r"intact|in\s+one\s+piece))", text) \
        or re.search(r"\b(?:protect|guard|escort|save|defend)\s+(?:your|the|my|our)\s+" + mobile, text) \
        or re.search(r"\b(?:if|as\s+long\s+as|so\s+long\s+as|provided)\s+(?:your|the|my|our)\s+" + one + r"\s+(?:is|stays|remains)\s+"
                     r"(?:still\s+)?(?:alive|standing|breathing|around|in\s+one\s+piece)\b", text) \
        or re.search(r"\b(?:do not|don't|never|without)\s+(?:lose|losing)\s+(?:your|the|my|our)\s+" + mobile, text) \
        or re.search(r"\b(?:if|or|and|once|when|should)\s+(?:(?P<every>all\s+(?:of\s+)?|both\s+(?:of\s+)?|every\s+(?:last\s+|single\s+)?"
                     r"one\s+of\s+|each\s+(?:one\s+)?of\s+))?(?:your|the|my|our)\s+" + mobile + r"\s+(?:dies|die|falls|"
                     r"(?:is|gets|get|are)\s+(?:killed|destroyed|lost|shot(?:\s+down)?|taken\s+out|blown\s+up|wrecked|wiped\s+out))"
                     # what follows, when said: "..., I lose", "..., that's a loss"
                     r"(?:\s+first)?(?:\s*,\s*(?:then\s+)?(?:(?:you|i|we)\s+lose|(?:it|that)'?s\s+(?:over|a\s+loss|game\s+over|"
                     r"defeat)|game\s+over))?", text) \
        or re.search(r"\b(?:you|i|we|the\s+player)\s+(?:lose|fail|are\s+defeated|am\s+defeated)\s+(?:the\s+game\s+)?(?:if|when|once|"
                     r"as\s+soon\s+as|the\s+moment)\s+(?P<every>all\s+(?:of\s+)?|both\s+(?:of\s+)?|every\s+one\s+of\s+)?(?:your|the|my|"
                     r"our)\s+" + mobile + r"\s+(?:" + _GONE + ")", text) \
        or re.search(r"\b(?:losing|the\s+loss\s+of)\s+(?:your|the|my|our|(?P<every>both|all|all\s+(?:of\s+)?(?:your|the)|"
                     r"both\s+(?:of\s+)?(?:your|the)|every\s+one\s+of\s+(?:your|the)))\s+(?:\w+\s+)?" + mobile
                     + r"\s+(?:ends\s+(?:it|the\s+(?:game|run|match))|loses(?:\s+(?:it|the\s+game))?|means\s+(?:defeat|a\s+loss)|"
                     r"is\s+(?:a\s+)?(?:defeat|loss))", text) \
        or re.search(r"\b(?:defeat|loss|lose|fail(?:ure)?)(?:\s+(?:condition|conditions|if|when|on))?\s*[:=-]\s*(?:if\s+|when\s+)?"
                     r"(?:your\s+|the\s+|my\s+|our\s+)?" + mobile + r"\s+(?:is\s+|gets\s+)?(?:destroyed|killed|dies|dead|lost|"
                     r"falls|down)\b", text) \
        or re.search(r"(?:^|[.;:!?]\s*)(?:your\s+|the\s+|my\s+|our\s+)?" + mobile + r"\s+(?:goes\s+boom|" + _GONE
                     + r")\s*[,:-]\s*(?:it'?s\s+|that'?s\s+)?(?:game\s+over|you\s+lose|i\s+lose|we\s+lose|defeat|"
                     r"mission\s+failed)\b", text)
    if m is None:
        # by pronoun: "your lone scout has 100 seconds ...; don't lose it" keeps the player's unit named last
        p = re.search(r"\b(?:do not|don't|never|without)\s+(?:lose|losing|let(?:ting)?\s+(?:it|him|her)\s+(?:die|be\s+killed))"
                      r"(?:\s+(?:it|him|her))?\b", text) \
            or re.search(r"\bif\s+(?:it|he|she)\s+(?:dies|is\s+killed|gets\s+killed|is\s+destroyed|goes\s+down|is\s+lost)\s*,?\s*"
                         r"(?:(?:then\s+)?(?:i|you|we)\s+lose|(?:it'?s|that'?s)\s+(?:over|a\s+loss|game\s+over)|game\s+over)\b",
                         text)
        # the player's one unit named before: "your lone scout", "i get one scout"
        mine = [u for u in re.finditer(r"\b(?:(?:your|my|our)\s+(?:only\s+|lone\s+|single\s+)?|(?:i|you|we)\s+(?:get|have|start\s+with)\s+"
                                       r"(?:one|a|an|1|a\s+single|a\s+lone)\s+(?:[\w-]+\s+)?)" + mobile, text[:p.start()])
                if not u.group(1).endswith("s")] if p and re.search(r"\b(?:it|him|her|he|she)\b", p.group(0)) else []
        if mine:
            c.protect_unit = roster_names()[mine[-1].group(1)]
            r.hit(mine[-1], "protect")
            r.hit(p, "protect")
            return
        # all of the player's units named before: "take it out with your twelve assault bots; lose them all and it's over"
        p = re.search(r"\b(?:lose|losing)\s+(?:them\s+all|all\s+of\s+them|every\s+(?:last\s+)?one\s+of\s+them)\s*(?:,\s*|\s+and\s+)"
                      r"(?:it'?s\s+over|(?:you|i|we)\s+lose|that'?s\s+(?:a\s+loss|it|game\s+over)|game\s+over|it'?s\s+a\s+loss)\b", text)
        mine = list(re.finditer(r"\b(?:your|my|our)\s+(?:(?:own|\d+|" + "|".join(V.NUMBER_WORDS) + r")\s+){0,2}" + mobile,
                                text[:p.start()])) if p else []
        if mine:
            c.protect_unit, c.protect_all = roster_names()[mine[-1].group(1)], True
            r.hit(p, "protect")
            return
    if m:
        every = m.re.groupindex.get("every")     # "losing both light bots": the group saying all of them
        c.protect_unit = roster_names()[next(g for i, g in enumerate(m.groups(), 1) if g and i != every)]
        c.protect_all = bool(every and m.group(every))
        # the unit kept alive is the player's: its words ("your heavy tank") say nothing of what the
        # enemy attacks with, so a kind named only there is not the enemy's
        masked = text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]
        c.unit_kinds = [k for k in c.unit_kinds if any(_has(masked, t) for t in V.UNIT_KIND_TRIGGERS.get(k, [k]))]
        _kept_again(r)
        # "escort duty: do not let your tank die": the escort is the unit kept alive
        for e in re.finditer(r"\bescort\w*", text):
            r.hit(e, "protect")
        if c.objective_type == c.protect_unit:
            c.objective_type = None
        r.hit(m, "protect")


_GONE = (r"(?:(?:is|gets|get|are|'s)\s+)?(?:destroyed|killed|lost|razed|taken\s+out|wiped\s+out|blown\s+up|"
         r"knocked\s+out|wrecked|gone|down|dead)|falls|fall|dies|die|drops|drop|goes\s+down|go\s+down|explodes|blows\s+up|"
         r"perishes|croaks|bites\s+the\s+dust")
_FAILED = (r"(?:you|i|we)(?:'ve|\s+have)?\s+(?:failed|lost)|(?:you|i|we)\s+lose|(?:you're|you\s+are|i'm|i\s+am|we're|we\s+are)\s+"
           r"(?:done|finished|out|toast|beaten)|(?:it|that)(?:'s|s|\s+is)\s+(?:over|game\s+"
           r"over|a\s+loss|a\s+defeat)|game\s+over|the\s+(?:mission|run|game|scenario|match|round|battle)\s+(?:fails|"
           r"is\s+(?:lost|over)|ends)|(?:shall|will|would|does|is\s+to)?\s*(?:constitutes?|means?|spells?|equals?|counts\s+as)\s+"
           r"(?:an?\s+|instant\s+|immediate\s+|automatic\s+)*(?:defeat|loss|failure|game\s+over)|ends\s+(?:it|the\s+(?:game|"
           r"match|run|mission|round)|everything)(?:\s+(?:instantly|immediately|at\s+once|right\s+there|on\s+the\s+spot))?")
# the moment a loss is said from: "if it dies", "the moment it explodes", "as soon as he falls"
_WHEN = r"(?:if|once|when|should|the\s+moment|as\s+soon\s+as|the\s+instant|the\s+second)"


def _loss_on_loss(r: Reading) -> None:
    """A loss said as what must not be lost: "you lose if your factory is destroyed", "if the radar tower falls,
    it's over", "lose any extractor and you're out", "if it's destroyed you've failed" (the unit kept alive or the
    objective named before). A mobile unit is the unit kept alive, a building the objective kept."""
    text, c = r.text, r.concepts
    said = sorted([*roster_names(), *V.OBJECTIVE_TYPES], key=len, reverse=True)
    names = r"(" + "|".join(re.escape(n) for n in dict.fromkeys(said)) + r")(?![\w-])"
    owner = r"(?:your|my|our|the)\s+(?:own\s+)?(?:only\s+)?"
    m = re.search(r"\b(?:you|i|we)\s+lose\s+(?:the\s+game\s+)?" + _WHEN + r"\s+" + owner + names + r"\s+(?:"
                  + _GONE + r")\b", text) \
        or re.search(r"\b" + _WHEN + r"\s+" + owner + names + r"\s+(?:" + _GONE + r")\b[^.;]{0,25}?\b(?:"
                     + _FAILED + r")\b", text) \
        or re.search(r"\b(?:(?:if|should)\s+(?:you|i|we)\s+)?lose\s+(?:any|a\s+single|one|your|the|my|our)\s+(?:own\s+)?"
                     + names + r"(?:\s*,\s*|\s+and\s+|\s+then\s+|\s+)(?:you(?:'re|\s+are)\s+out|(?:" + _FAILED + r"))\b",
                     text) \
        or re.search(r"\b(?:losing|the\s+(?:loss|destruction|death|fall)\s+of)\s+" + owner + names + r"\s+(?:"
                     + _FAILED + r")", text)
    if c.objective_type:
        # the objective kept: "the radar_tower could be kept intact", "keep the plant standing"
        for k in re.finditer(r"\b(?:kept|keep|keeping|stays?|staying|remains?|remaining)\s+(?:\w+\s+){0,2}?(?:intact|"
                             r"standing|in\s+one\s+piece|unharmed|undamaged|unscathed|alive)\b", text):
            r.hit(k, "keep_count")
    head = c.objective_type.split("_")[-1] if c.objective_type else None
    if m is None and head:
        # the objective named again by its last word: "guard the bot_lab; losing the lab ends it"
        m = re.search(r"\b(?:losing|the\s+(?:loss|destruction|death|fall)\s+of)\s+" + owner + r"(" + re.escape(head)
                      + r")\s+(?:" + _FAILED + r")", text) \
            or re.search(r"\b" + _WHEN + r"\s+" + owner + r"(" + re.escape(head) + r")\s+(?:" + _GONE
                         + r")\b[^.;]{0,25}?\b(?:" + _FAILED + r")\b", text)
    if m is not None:
        said = next(g for g in m.groups() if g)
        kind = c.objective_type if said == head else roster_names().get(said) or V.OBJECTIVE_TYPES.get(said)
        if kind is None:
            return
        # a defence keeps its commander as its objective; every other family keeps it as a unit
        keeps_objectives = c.archetype in ("defense", "raids")
        if load_catalog().units[kind].speed > 0 and (kind != "commander" or not keeps_objectives) \
                or kind == c.protect_unit:
            c.protect_unit = c.protect_unit or kind
            r.hit(m, "protect")
        elif c.objective_type in (None, kind) or not any(h.key == "objective" for h in r.hits):
            c.objective_type = kind
            r.hit(m, "keep_count")
        return
    # by pronoun: the unit kept alive, escorted or the objective named before
    p = re.search(r"\b" + _WHEN + r"\s+(?:it|he|she)(?:'s|\s+is|\s+gets)?\s+(?:" + _GONE + r")\b[^.;]{0,25}?\b(?:"
                  + _FAILED + r")\b", text) \
        or re.search(r"\b(?:its|his|her)\s+(?:destruction|loss|death|demise|fall)\s+(?:" + _FAILED + r")", text)
    if p is None:
        return
    if not (c.protect_unit or c.escort_unit or c.objective_type):
        # ... or the player's unit named last before the pronoun ("your heavy tank is all that matters: ... the
        # moment it explodes the match is lost")
        mine = [m for m in re.finditer(r"\b(?:your|my|our)\s+(?:only\s+|lone\s+|single\s+)?" + _unit_pattern("mobile"),
                                       text[:p.start()]) if not m.group(1).endswith("s")]   # "it" is one unit
        if not mine:
            return
        c.protect_unit = roster_names()[mine[-1].group(1)]
        masked = text[:mine[-1].start()] + " " * (mine[-1].end() - mine[-1].start()) + text[mine[-1].end():]
        c.unit_kinds = [k for k in c.unit_kinds if any(_has(masked, t) for t in V.UNIT_KIND_TRIGGERS.get(k, [k]))]
        r.hit(mine[-1], "protect")
    r.hit(p, "protect" if c.protect_unit or c.escort_unit else "keep_count")


# A difficulty word counts when it qualifies the scenario: before a difficulty noun ("hard mode",
# "easy version"), as a label ("hard:", "Medium difficulty:"), or a word that only means that ("warm-up").
_DIFFICULTY_WORDS = {"easy": "easy", "gentle": "easy", "beginner": "easy", "simple": "easy", "medium": "medium",
                     "moderate": "medium", "intermediate": "medium", "normal": "medium", "hard": "hard",
                     "brutal": "hard", "tough": "hard", "difficult": "hard", "punishing": "hard",
                     "nightmare": "hard", "challenging": "hard"}
_DIFFICULTY = re.compile(
    r"(?<![\w-])(?:(?P<word>" + "|".join(_DIFFICULTY_WORDS) + r")(?:\s+(?:hard\s+)?(?:difficulty|version|mode|level|"
    r"setting|variant|one|challenge)\b|\s*:|(?=\s+warm-?up))|(?P<warm>warm-?up)|difficulty\s*[:=]?\s*(?P<after>"
    + "|".join(_DIFFICULTY_WORDS) + r"))(?![\w-])")


def _difficulty(r: Reading) -> None:
    for m in _DIFFICULTY.finditer(r.text):
        word = m.group("word") or m.group("after")
        band = _DIFFICULTY_WORDS[word] if word else "easy"
        if r.concepts.difficulty not in (None, band):
            r.hit(m, "difficulty", f"two difficulties asked for ({r.concepts.difficulty} and {band}): kept "
                                   f"{r.concepts.difficulty}")
            continue
        r.concepts.difficulty = band
        r.hit(m, "difficulty")


def _capture_contenders(r: Reading) -> None:
    """A capture is the player against the zone's garrison: more contending teams ("three-team king of the hill",
    "the player and two AI armies") or a race to hold it ("first to hold it wins") are not built."""
    if r.concepts.archetype != "capture":
        return
    for m in re.finditer(r"(?<![\w-])(?:" + _NUM + r")[\s-]+(?:team|side|army|faction|player)s?\b(?=[\s-]+(?:king|capture|"
                         r"battle|match|game|contest|fight))|\b(?:the\s+player|you)\s+and\s+" + _NUM + r"\s+(?:[\w-]+\s+)?"
                         r"(?:armies|teams|factions|rivals|opponents)\b", r.text):
        r.hit(m, "teams", "a capture is played by the player against the zone's garrison: other contending teams are "
                          "not built")
    for m in re.finditer(r"\b(?:first|whoever|whichever)\s+(?:(?:side|team|army|player|one)\s+)?(?:to\s+)?"
                         r"(?:holds?|keeps?|controls?|owns?)\b", r.text):
        r.hit(m, "hold_time", "only the player can win by holding the zone; no other side races for it")


_RIVAL = re.compile(r"\b(?:vs\.?|versus|against|race\s+(?:against|with))\s+(?:(?:a|an|the|one|single|lone|\d+|two|three)\s+)?"
                    r"(?:(?:single|lone|skirmish|computer|enemy|rival|ai)\s+)*(?:ai|ais|opponents?|rivals?|computers?|"
                    r"enem(?:y|ies)|players?)\b"
                    r"|\b(?:first|whoever|whichever\s+(?:side|team|player))\s+(?:(?:one|side|player|team)\s+)?to\s+"
                    r"(?:gather|collect|stockpile|bank|reach|hit|mine|amass|save|build|own|produce|field|have|get)\b")


def _goal_rivals(r: Reading) -> None:
    """An economy or production goal is the player's alone, against the clock: a rival racing for it ("an
    economy race vs a skirmish AI", "first side to bank 1000 metal wins") is not built, and said so."""
    if r.concepts.archetype not in ("resources", "production"):
        return
    for m in _RIVAL.finditer(r.text):
        r.hit(m, "rival", "the goal is the player's alone, against the clock: no rival races for it")
    for m in re.finditer(r"\b(?:(?:racing|a\s+race|race|running)\s+)?against\s+the\s+clock\b", r.text):
        r.hit(m, "deadline")


def _all_done_by(r: Reading) -> None:
    """A deadline said of everything before it: "all of that has to be done by 4:00"."""
    if r.concepts.deadline is None:
        return
    for m in re.finditer(r"\b(?:all\s+(?:of\s+)?)?(?:that|this|it|everything)\s+(?:has|have|needs?|must)\s+(?:to\s+)?be\s+"
                         r"(?:done|finished|completed|over\s+with|wrapped\s+up|achieved)\b(?=\s+(?:by|before|within|in)\b)", r.text):
        r.hit(m, "deadline")


def _capture_holders(r: Reading) -> None:
    """The zone's holders the request drives off first: "clear the four guards off the crossroads, and once they're
    gone, stay on it". Their number is the design's (a garrison sized so the reference wins), said so when counted."""
    if r.concepts.archetype != "capture":
        return
    for m in re.finditer(r"\b(?:the\s+|their\s+|all\s+)?" + _NUM + r"\s+(?:enemy\s+|hostile\s+)?"
                         r"(?:guards|defenders|occupiers|holders|squatters|garrison\s+units)\b", r.text):
        r.hit(m, "capture_holders", f"the zone's garrison is the design's own, sized so the reference can take it: "
                                    f"\"{m.group(1)}\" holders are not built as counted")
    for m in re.finditer(r"\b(?:once|when|after|as\s+soon\s+as)\s+(?:they(?:'re|\s+are|'ve\s+been|\s+have\s+been)|"
                         r"the\s+[\w-]+\s+(?:are|is|have\s+been|has\s+been))\s+(?:gone|dead|cleared|wiped\s+out|destroyed|"
                         r"dealt\s+with|driven\s+off|down)\b", r.text):
        r.hit(m, "hold_time")


def _deadline_and_hold(r: Reading) -> None:
    """"before minute 6" / "within 6 minutes" deadlines and "hold the zone for 2 minutes"."""
    text, c = r.text, r.concepts
    hold = re.search(r"\b(?:hold|holding|keep|keeping|control|controlling|occupy|occupying|stay|sit|sitting|camp|"
                     r"camping|squat|squatting|park|parking|parked|stand|standing|remain|remaining|perch|perching|"
                     r"have\s+(?:your\s+|some\s+|our\s+|my\s+)?(?:troops|units|forces|men|army|soldiers|squad|people|guys|"
                     r"folks)|(?:don't|do\s+not|never)\s+let\s+(?:\w+\s+){1,2}?(?:push|drive|kick|knock|force|throw|"
                     r"shove|chase)\s+you\s+(?:off|out\s+of))\b"
                     r"(?:[^.;,]|,\s*(?:un\w+|alone|by\s+\w+self|with\s+[^.;,]{0,20}),){0,40}?\s"
                     r"(?:for\s+)?(?:at\s+least\s+)?(?:(?:(\d{1,2}):([0-5]\d))|" + _NUM
                     + r"\s*(?:whole\s+|full\s+|straight\s+|solid\s+|consecutive\s+|uninterrupted\s+)?"
                     + _UNIT + r")", text)
    if hold and not re.search(r"\bfor\b|straight|in a row|continuous|without a break|uninterrupted",
                              hold.group(0) + text[hold.end():hold.end() + 30]) \
            and not (c.archetype == "capture" and re.match(r"\w+\s+(?:it|them)\s+\S", hold.group(0))):
        hold = None
    if hold is None and c.archetype == "capture":
        # the time said apart from the taking: "your colours have to fly over the middle, ..., for 110 seconds
        # end to end"
        hold = re.search(r"\bfor\s+(?:at\s+least\s+)?(?:(\d{1,2}):([0-5]\d)|" + _NUM + r"\s*" + _UNIT + r")\s+(?:end\s+to\s+end|"
                         r"straight|without\s+a\s+break|in\s+a\s+row|running|uninterrupted|continuously|non-?stop|unbroken)\b",
                         text)
    if hold is None and c.archetype == "capture":
        # the hold said as a span of possession: "75 seconds of sole possession is enough", "150 s of control wins"
        hold = re.search(r"(?<![\w:])(?:(\d{1,2}):([0-5]\d)|" + _NUM + r"\s*" + _UNIT + r")\s+of\s+(?:(?:sole|uninterrupted|"
                         r"continuous|unbroken|undisputed|uncontested|unchallenged|exclusive|total|complete|full)\s+)?"
                         r"(?:possession|control|ownership|occupation|occupancy|holding|dominance)\b", text)
    cumulative = hold and re.search(r"\b(?:in\s+total|total\s+of|cumulative(?:ly)?|not\s+continuous|"
                                    r"non-continuous|all\s+told|combined)\b", text[hold.start():hold.end() + 40])
    if hold and c.archetype == "capture":
        if cumulative:
            r.hit((hold.start(), hold.start() + cumulative.end()), "hold_time",
                  "a hold counted in total is built as one unbroken hold")
        c.hold_time = (int(hold.group(1)) * 60 + int(hold.group(2)) if hold.group(1)
                       else _seconds(hold.group(3), hold.group(4)))
        r.hit(hold, "hold_time")
        # "hold any three of them for 60 s": several zones held at once; one zone is played
        counted = re.search(r"\b(?:(?:any|all|each|every|both)\s+(?:of\s+)?)?" + _NUM + r"\s+(?:of\s+(?:them|those|these|"
                            r"the\s+\w+)|zones|points|control\s+points|sites|hills|objectives|flags|outposts|towers)\b",
                            text[hold.start():hold.start(hold.lastindex or 0) if hold.lastindex else hold.end()])
        if counted and number(counted.group(1)) > 1:
            at = hold.start() + counted.start()
            r.hit((at, hold.start() + counted.end()), "zones", f"holding {counted.group(1)} zones at once is not "
                                                               "built: one zone is played")
        # the hold is uncontested: "with none of theirs on it", "while no enemy is inside"
        for m in re.finditer(r"\bwith\s+(?:nobody|no\s+one|no-one|no\s+enemy|no\s+enemies|none\s+of\s+them)\s+(?:contesting|"
                             r"challenging|disputing)(?:\s+(?:it|them|you))?\b|\b(?:uncontested|unchallenged|undisputed)\b", text):
            r.hit(m, "hold_time")
        for m in re.finditer(r"\b(?:with|while|and)\s+(?:(?:none|not\s+(?:a\s+single\s+)?one)\s+of\s+(?:theirs|them|the\s+enemy'?s?|"
                             r"their\s+\w+)|no\s+(?:enemy|"
                             r"enemies|enemy\s+units?|hostiles?|one\s+of\s+theirs|opponents?))\s+(?:\w+\s+){0,2}?(?:(?:on|in|"
                             r"inside|at|within)\s+(?:it|them|the\s+[\w-]+)|inside|on\s+it|there)\b", text):
            r.hit(m, "hold_time")
        limits = [h for h in r.hits if h.key == "time_limit"]
        if limits and hold.start() <= limits[0].start and limits[0].end <= hold.end():
            # "hold it for 2 minutes" is how long to hold, not how long the game lasts
            c.time_limit = None
            r.hits = [h for h in r.hits if h.key != "time_limit"]
            rest = [(m, t) for m, t in r.limits if m.start() >= hold.end() or m.end() <= hold.start()]
            if rest:
                _set_limit(r, *rest[0])
    dm = re.search(r"\b(?:before|by|no later than|until)\s+(?:the\s+)?minute\s+" + _NUM, text) \
        or re.search(r"\b(?:before|by)\s+(?:the\s+)?" + _NUM + r"[\s-]*" + _WORD_UNIT + r"(?:\s+mark)?", text) \
        or re.search(r"\b(?:before|by|(?:no|not)\s+later\s+than)\s+(?:at\s+)?" + _CLOCK, text) \
        or re.search(r"\b(?:within|in under|in less than|under|inside|(?:in\s+)?no\s+more\s+than|in\s+at\s+most)\s+"
                     + _NUM + r"\s*" + _UNIT, text) \
        or re.search(r"\b(?:within|in under|in less than|inside)\s+" + _CLOCK, text) \
        or re.search(r"\b(?:you|your\s+[\w-]+|the\s+(?:player|agent)|we)(?: (?:have|has|get|gets|only have)|(?:'ve|\s+have)\s+"
                     r"(?:only\s+)?got)\s+(?:only\s+)?" + _NUM + r"\s*" + _UNIT
                     + r"(?:\s+(?:flat|total|in\s+all|only|max|tops))?(?:\s+to\b|\s+and\b|\s*(?=[.;,]|$))", text) \
        or re.search(r"\b(?:has|have|gets?|got)\s+(?:only\s+)?(?:until|till|up\s+to)\s+" + _CLOCK + r"(?:\s+to\b|\s*[,;.]|$)",
                     text) \
        or re.search(r"\ban?\s+" + _CLOCK + r"\s+deadline\b", text) \
        or re.search(r"\bby\s+the\s+time\s+" + _NUM + r"\s*" + _UNIT + r"\s+(?:have|has)\s+(?:passed|elapsed|gone\s+by|run)\b",
                     text) \
        or re.search(r"\b(?:if|once|should)\s+" + _NUM + r"\s*" + _UNIT + r"\s+(?:pass|go\s+by|elapse|run\s+out|tick\s+by)\b"
                     r"(?=[^.;]{0,40}?\b(?:lose|lost|loses|loss|defeat|fail|failed|over)\b)", text) \
        or re.search(r"\bdeadline\s+(?:of\s+|at\s+|is\s+)?" + _CLOCK, text) \
        or re.search(r"\b(?:once|when|after)\s+" + _CLOCK + r"\s+(?:passes|has\s+passed|is\s+reached|arrives|comes)\b"
                     r"(?=[^.;]{0,30}?\b(?:fail|failed|lose|lost|loses)\b)", text)
    if dm is None and c.archetype == "resources":
        # "have 1500 metal in your coffers at 4:15": the moment the stockpile is counted is its deadline
        dm = re.search(r"\bat\s+" + _CLOCK, text)
    if dm:
        # the deadline's time is no attack's ("no later than at 8:30")
        said_as_attack = [h for h in r.hits if h.key == "wave_times" and dm.start() <= h.start < dm.end()]
        r.hits = [h for h in r.hits if h not in said_as_attack]
        r.moments = [t for t in r.moments if not dm.start() <= t[0] < dm.end()]
    seconds = None
    if dm:
        g = dm.groups()
        if ":" in dm.group(0):
            seconds = int(g[0]) * 60 + int(g[1])
        elif "minute" in dm.group(0) and len(g) == 1:
            seconds = number(g[0]) * 60
        else:
            seconds = _seconds(g[0], g[1])
        if said_as_attack:
            c.wave_times = [t for t in c.wave_times if t != seconds]
    # "before the enemy's attack at minute 4": the goal must be reached before that attack
    if dm is None and c.archetype == "production":
        dm = re.search(r"\bbefore\b[^.;]{0,40}?\b(?:attack|assault|wave|raid|push|strike)s?\b[^.;]{0,20}?"
                       r"(?:at|by|in)\s+(?:minute\s+" + _NUM + r"|" + _NUM + r"\s*" + _UNIT + "|" + _CLOCK + ")", text)
        if dm:
            g = dm.groups()
            seconds = (number(g[0]) * 60 if g[0] else _seconds(g[1], g[2]) if g[1]
                       else int(g[3]) * 60 + int(g[4]))
    if dm is None or seconds is None:
        return
    if c.archetype in _GOAL_ARCHETYPES:
        c.deadline = float(seconds)
        r.hit(dm, "deadline")
        if c.time_limit is None or c.time_limit < seconds:
            c.time_limit = float(seconds)
    elif c.time_limit is None:
        c.time_limit = float(seconds)
        r.hit(dm, "time_limit")


_COMPASS = (r"(north[\s-]?east|north[\s-]?west|south[\s-]?east|south[\s-]?west|north|south|east|west|ne|nw|se|sw)"
            r"(?:ern)?(?:[\s-]+(?:edge|corner|side|end|border|exit|flank|bank))?(?![\w-])")
_SIDE_OF = {"north": "n", "south": "s", "east": "e", "west": "w", "ne": "ne", "nw": "nw", "se": "se", "sw": "sw"}
_ESCORT_TO = re.compile(r"(?<!has )(?<!have )(?<!need )(?<!needs )(?<!got )(?<!ought )(?<!want )(?<!going )"
                        r"(?<!start )(?<!starts )(?<!starting )(?<!begin )(?<!begins )(?<!beginning )"
                        r"\b(?:to|towards?|into|reach(?:es)?|at|end\s+up\s+in|wind\s+up\s+in)\s+(?:the\s+)?(?:[\w-]+\s+){0,4}?(?:in|at|on|of)?\s*"
                        r"(?:the\s+)?" + _COMPASS)
_ESCORT_FROM = re.compile(r"(?:\bfrom|\b(?:stranded|stuck|trapped|cut\s+off|pinned\s+down|waiting|sitting|left|start|starts|"
                          r"starting|begin|begins|beginning|set\s+off|sets\s+off)\s+(?:over\s+|"
                          r"out\s+|back\s+)?(?:on|in|at|near|by|around|close\s+to))\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?" + _COMPASS)
_FAR_SIDE = re.compile(r"\b(?:across|over|through|past)\s+(?:the\s+|a\s+)?(?:[\w-]+\s+)?(?:bridge|river|map|valley|"
                       r"pass|canyon|wasteland|enemy territory|no man's land)\b|\b(?:to|on|reach|into|in)\s+the\s+(?:other|far|opposite)\s+"
                       r"(?:side|end|bank|shore|edge|corner)\b|\bto\s+safety\b|\b(?:extraction|evac(?:uation)?)\s+(?:point|zone)\b|\bdestination\b")


# the escorted unit's guards, counted: "with 3 heavy tanks as guards", "two light bots tag along", "escorted by
# four light tanks", "five rocket bots ride with him"
_GUARDS = re.compile(r"\bwith\s+" + _FORCE_ITEM + r"\s+(?:as\s+(?:(?:its|his|her|their)\s+)?(?:guards?|escorts?|company|"
                     r"bodyguards?|cover)|(?:guarding|escorting|protecting|covering|around)\s+(?:him|her|it|them)\b)|"
                     r"(?<![\w-])" + _FORCE_ITEM + r"\s+(?:tag|come|go|ride|travel|roll|move|walk)s?\s+(?:along|with\s+(?:him|her|it|"
                     r"them))\b|(?<![\w-])" + _FORCE_ITEM + r"\s+(?:accompan\w+|escort(?:s|ing)?|guard(?:s|ing)?)\s+(?:him|her|"
                     r"it|them)\b|\bescorted\s+by\s+" + _FORCE_ITEM + r"(?=\s*(?:[,;.:]|$)|\s+(?:and|as|to|on|who|which|that|all)\b)")


def _escort_guards(r: Reading) -> None:
    """Guards the request counts are the player's army: the design's own guards give way to them."""
    for m in _GUARDS.finditer(r.text):
        count, words = next((m.group(i), m.group(i + 1)) for i in range(1, len(m.groups()), 2) if m.group(i))
        named = re.fullmatch(_unit_pattern("mobile"), words.strip())
        if named is None:
            continue
        type_id = roster_names()[named.group(1)]
        r.concepts.player_start[type_id] = r.concepts.player_start.get(type_id, 0) + int(number(count))
        kind = named.group(1) in _ANY_KIND
        r.hit(m, "start_forces", note=f"\"{named.group(1)}\" read as {type_id.replace('_', ' ')}s" if kind else "")


# An AI named by how it plays ("a rush AI", "an allied skirmish AI", "a hold AI"): what each family's enemy does
_AI_KIND = re.compile(r"\b(rush|rushing|aggressive|skirmish|economic|economy|builder|hold|holding|defensive|defending|"
                      r"turtle|turtling|static|passive|idle|sleeping)\s+(?:ai|ais|bots?\s+ai|computers?|cpu)\b")
_PLAYS_AS = {"rush": "attacks", "rushing": "attacks", "aggressive": "attacks", "skirmish": "builds", "economic": "builds",
             "economy": "builds", "builder": "builds", "hold": "holds", "holding": "holds", "defensive": "holds",
             "defending": "holds", "turtle": "holds", "turtling": "holds", "static": "holds", "passive": "waits",
             "idle": "waits", "sleeping": "waits"}
# what the offline design of each family has the enemy do, and in words
_ENEMY_PLAYS = {"siege": ("holds", "a garrison holding its ground"), "capture": ("holds", "defenders holding the zone"),
                "recon": ("holds", "hidden units holding their ground"),
                "escort": ("waits", "ambushers waiting along the route"),
                "production": ("waits", "an enemy that gives no orders"),
                "resources": ("waits", "an enemy that gives no orders"),
                "defense": ("attacks", "scripted attack waves"), "raids": ("attacks", "scripted raids"),
                "micro": ("attacks", "a force that attacks at once"),
                "teams": ("attacks", "AI sides that strike on plans drawn per game, without building"),
                "ffa": ("attacks", "AI sides that strike on plans drawn per game, without building")}


def _named_ai(r: Reading) -> None:
    """An AI said by how it plays is built when the family's enemy plays that way; otherwise the clause says
    what plays instead (no offline design has a base-building AI)."""
    plays, said = _ENEMY_PLAYS.get(r.concepts.archetype, ("attacks", "scripted attacks"))
    for m in _AI_KIND.finditer(r.text):
        wanted = _PLAYS_AS[m.group(1)]
        r.hit(m, "enemy_ai", "" if wanted == plays or (wanted, plays) == ("waits", "holds") else
              f"a {m.group(1)} AI is not built: the enemy here is {said}")


def _compass(word: str) -> str:
    return _SIDE_OF[re.sub(r"[\s-]", "", word).replace("northeast", "ne").replace("northwest", "nw")
                    .replace("southeast", "se").replace("southwest", "sw")]


def _escort(r: Reading) -> None:
    """An escort: a unit to bring somewhere alive ("escort my commander to the east edge", "get the
    commander to the extraction point in the NE corner", "VIP escort", "bring the truck across the bridge").
    It is the game when the request escorts a unit (not "escort duty"), names a convoy or a VIP, or brings
    a unit of its own to a place; the unit is the one named (a convoy is trucks: constructor vehicles),
    else the commander."""
    text, c = r.text, r.concepts
    if c.archetype not in ("defense", "raids") and any(h.key == "archetype" for h in r.hits):
        return
    own = r"(?:your|the|my|our|a|an|both|\d+|" + "|".join(V.NUMBER_WORDS) + r")\s+(?:[\w'-]+\s+){0,2}?"
    carried = None
    convoy = "(" + "|".join(re.escape(w) for w in sorted(V.CONVOY_WORDS, key=len, reverse=True)) + r")(?![\w-])"
    verbs = r"\b(?:" + "|".join(V.ESCORT_VERB_FORMS) + r")\s+" + own
    named = re.search(verbs + r"(?:" + convoy + "|" + _unit_pattern("mobile") + ")", text) \
        or re.search(own + r"(?:" + convoy + r")\s+(?:[\w-]+\s+){0,8}?(?:and\s+)?(?:has|have|needs?|must|should)\s+"
                     r"(?:to\s+)?(?:reach|get\s+to|make\s+it\s+to|arrive\s+at|end\s+up\s+(?:in|at))\b", text) \
        or re.search(own + r"(?:" + convoy + "|" + _unit_pattern("mobile") + r")\s+(?:has|have|needs?|must|should)\s+"
                     r"(?:to\s+)?(?:reach|get\s+to|get\s+from|make\s+it\s+(?:to|from)|arrive\s+at|cross|travel|walk|drive|"
                     r"move|go)\b", text) \
        or re.search(own + r"(?:" + convoy + "|" + _unit_pattern("mobile") + r")\s+(?:needs?|requires?|wants?)\s+(?:an\s+)?"
                     r"(?:escort|escorting|to\s+be\s+escorted)\b", text) \
        or (carried := re.search(own + r"(?:" + convoy + "|" + _unit_pattern("mobile") + r")\s+(?:taken|brought|escorted|"
                                 r"moved|delivered|ferried|carried|gotten|got|walked|driven|guided|shepherded|led|steered|"
                                 r"smuggled)\s+(?:safely\s+)?(?:across|to|over|through|into|past|home|from)\b", text))
    back = None
    if named is None:
        # the unit named first and brought by pronoun: "our engineer is stranded in the east; bring him home"
        back = re.search(r"\b(?:" + "|".join(V.ESCORT_VERB_FORMS) + r")\s+(?:him|her|it|them)\b", text)
        earlier = list(re.finditer(r"\b(?:our|your|my)\s+(?:[\w-]+\s+){0,2}?(?:" + convoy + "|" + _unit_pattern("mobile")
                                   + ")", text[:back.start()])) if back else []
        named = earlier[-1] if earlier else None
        back = back if named else None
    going = _ESCORT_TO.search(text) or _FAR_SIDE.search(text)
    escorting = re.search(r"\bescort(?:ing|ed)?\s+" + own, text)
    words = [m for w in V.ESCORT_WORDS if (m := _find(text, w))]
    # a unit brought somewhere names the game only when nothing else does ("take your tanks to the east
    # edge and defend it" is a defence)
    # ("two light turrets guard the middle bridge" says what stands in the way: no game of its own)
    # (the unit's survival is the escort's own: "it must survive" names no other game)
    # (a unit the request has carried somewhere, "my commander driven across the map", meets raiders and attackers as
    # ambushes on the way)
    other_game = any(h.key == "archetype" and not re.search(r"(?<![\w-])" + _unit_pattern("any") + r"\s+$", text[:h.start])
                     and not re.search(r"surviv|stay(?:s|ing)?\s+alive|keep\s+(?:it|him|her|them)\s+alive", text[h.start:h.end])
                     and not (carried and re.search(r"raid|attack|assault|wave|strike|ambush|harass", text[h.start:h.end]))
                     for h in r.hits)
    # a convoy brought somewhere is the escort even among attack words ("raiders lie in wait")
    if not (escorting or words or (named and going and named.start() < going.end()
                                   and (not other_game or named.group(1)))):
        return
    c.archetype = "escort"  # type: ignore[assignment]
    # what read as another game's words says something of the escort: the enemy's attacks are its ambushes,
    # a unit to keep alive is the escorted one, sides are where the route starts and ends (read below)
    for h in r.hits:
        word = text[h.start:h.end]
        if h.key == "archetype" and re.search(r"attack|assault|wave|raid|strike|push|ambush", word):
            h.key, c.ambush = "ambush", True
        elif h.key == "archetype" and re.search(r"surviv|protect|guard|keep alive|defen", word):
            h.key = "protect"
        elif h.key == "objective" and word in roster_names():
            h.key = "escort_unit"
    r.hits = [h for h in r.hits if h.key not in ("archetype", "directions", "direction_times", "front_order",
                                                 "objective", "objectives")]
    # the sides an escort names are where its route starts and ends, not fronts attacked
    c.directions, c.direction_times, c.fronts, c.objective_type, c.objectives = [], [], None, None, None
    r.matched.append("archetype escort")
    if not any(h.key == "protect" for h in r.hits):
        _kept_again(r)
    for m in [escorting, named, back, *words]:
        if m is not None:
            r.hit(m, "archetype")
    if named and named.group(1):
        c.escort_unit = V.CONVOY_UNIT
    elif named and named.group(2):
        c.escort_unit = roster_names()[named.group(2)]
    elif re.search(r"(?<![\w-])" + convoy, text):
        c.escort_unit = V.CONVOY_UNIT
    else:
        c.escort_unit = c.protect_unit or "commander"
        if not named and c.protect_unit is None:
            r.assumptions.append("no unit to escort named: the commander")
    n = re.search(r"\bconvoy\s+of\s+" + _NUM + r"\b|" + _NUM + r"\s+(?:(?:supply|cargo|fuel|ammo|ammunition)\s+)?(?:trucks|lorries|wagons|carts|vans)\b", text)
    if n:
        wanted = int(number(n.group(1) or n.group(2)))
        c.escort_count = max(1, min(4, wanted))
        r.hit(n, "escort_unit", f"a convoy of {wanted} is played as 4" if wanted > 4 else "")
    arrive = re.search(r"\bat\s+least\s+" + _NUM + r"\s+(?:of\s+(?:them|the\s+[\w-]+)\s+)?(?:[\w-]+\s+)?"
                       r"(?:must|should|have\s+to|has\s+to|need\s+to|needs\s+to)?\s*(?:arrive|make\s+it|get\s+through|"
                       r"reach)", text)
    if arrive and number(arrive.group(1)) > 1:
        r.hit(arrive, "escort_unit", f"\"{arrive.group(0)}\" is not built: every one of the convoy must arrive")
    if c.protect_unit and c.protect_unit != c.escort_unit:
        why = (f"an escort keeps the escorted {c.escort_unit.replace('_', ' ')} alive; the "
               f"{c.protect_unit.replace('_', ' ')} is not part of it")
        r.unsupported.append(why)
        # the clause asking it names no requirement: nothing in the level keeps that unit alive
        spans = [(h.start, h.end) for h in r.hits
                 if h.key == "protect" and c.protect_unit.replace("_", " ") in text[h.start:h.end]]
        for h in r.hits:
            if any(a <= h.start and h.end <= b for a, b in spans):
                h.key, h.problem = "protect_other", why
    c.protect_unit = c.escort_unit
    _escort_guards(r)
    to = _ESCORT_TO.search(text)
    if to:
        c.escort_to = _compass(to.group(1))  # type: ignore[assignment]
        r.hit(to, "destination")
    start = None
    for m in _ESCORT_FROM.finditer(text):
        # "a rush AI attacking from north and west": where the enemy comes from, not where the route starts
        # ("march my commander from the south-west": the escort's own verb, the route's start)
        before = _segment(text, m.start())[0]
        sent = any(h.key == "archetype" and before <= h.start < m.start() for h in r.hits)
        if not sent and _ATTACKED.search(text[before:m.start()]):
            r.hit(m, "ambush", "an escort's enemies wait in ambushes along the route: attacks from the sides named "
                               "are not built")
        elif start is None:
            start = m
    if start:
        c.escort_from = _compass(start.group(1))  # type: ignore[assignment]
        r.hit(start, "escort_start")
    for m in _FAR_SIDE.finditer(text):
        r.hit(m, "destination", note="" if to else "read as the far side of the map from the start")
    for w in V.AMBUSH_WORDS:
        for m in re.finditer(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", text):
            c.ambush = True
            r.hit(m, "ambush")
    for m in re.finditer(r"\b(?:from|in|out of)\s+(?:the\s+)?(forests?|woods|trees|jungle|undergrowth)\b", text):
        r.hit(m, "ambush", note=f"the maps have no {m.group(1)}: the ambushers wait beside the route")
    # ambushes placed by the request: the design draws their sites along the route, wherever the request puts them
    for m in re.finditer(r"\b(?:near|at|by|around|beside|on|under)\s+(?:both\s+|each\s+|every\s+|the\s+|all\s+the\s+)?"
                         r"(?:bridges?|crossings?|fords?|the\s+road|roads?|passes|pass|chokepoints?|junctions?)\b", text):
        r.hit(m, "ambush", "the ambushes wait at sites drawn along the route each game, not at the places named")
    # a unit sent alone: the design gives the escorted unit guards
    for m in re.finditer(r"\b(?:a\s+|the\s+)?(?:lone|solitary|unescorted|unguarded)\b|\b(?:alone|on\s+its\s+own|by\s+itself|"
                         r"without\s+(?:an?\s+)?(?:escort|guards?))\b", text):
        r.hit(m, "escort_unit", "the escorted unit travels with guards: a unit alone is not built")
    # the escorted unit arriving whole: "he has to make it in one piece", "it must get there alive"
    for m in re.finditer(r"\b(?:he|she|it|they)\s+(?:has|have|must|needs?|should)\s+(?:to\s+)?(?:make\s+it|arrive|get\s+"
                         r"there|get\s+through|survive)\s+(?:in\s+one\s+piece|alive|intact|unharmed|safely)\b", text):
        r.hit(m, "protect")
    # the escorted unit's death ends the game: "if he hasn't arrived by 2:30, or dies, it's over"
    for m in re.finditer(r"\b(?:or|and|if|should|once)\s+(?:(?:he|she|it|they)\s+)?(?:dies|die|is\s+killed|gets\s+killed|"
                         r"falls|is\s+destroyed|is\s+lost)\b", text):
        r.hit(m, "protect")
    # the enemy's attacks on an escort are its ambushes: "enemies attack twice along the road"
    for h in r.hits:
        if h.key in ("waves", "staggered", "raids", "escalating", "fronts", "random_side"):
            c.ambush = True
            h.key = "ambush"
    c.raids = False


_LOCATE_VERB = (r"\b(?:locates?|finds?|spots?|discovers?|reveals?|uncovers?|pinpoints?|scouts? out|sees?|eyeballs?|sights?|"
                r"glimpsed?|glimpses|"
                r"(?:map|work|figure|find|sniff|suss)\s+out\s+where|(?:pin|track|hunt)\s+down(?:\s+where)?|learn\s+where|"
                r"(?:get|got|gotten|lay|laid|set|have|had|put|keep|kept|clap|clapped)\s+(?:your\s+|its\s+|their\s+|me\s+|us\s+)?"
                r"eyes\s+on|catch\s+sight\s+of|"
                # "get your lone rider within sight of every one of them"
                r"(?:get|bring|take|move|send)\s+(?:your|a|the|its|their|one)\s+(?:[\w-]+\s+){0,2}?(?:within|into)\s+"
                r"(?:sight|view|visual\s+range|eyeshot)\s+of|come\s+within\s+(?:sight|view)\s+of)\s+")
_LOCATE = re.compile(_LOCATE_VERB + r"(?:all\s+|every\s+|each\s+)?(?:of\s+)?(?:the\s+|their\s+)?(?:" + _NUM
                     + r"\s+(?:of\s+(?:the\s+enemy'?s\s+|their\s+|the\s+))?)?(?:hidden\s+)?(?:enemy\s+)?")
# the targets named first and found by pronoun: "the enemy factory spawns in a corner; spot it"
_LOCATE_PRONOUN = re.compile(_LOCATE_VERB + r"(?:it|them|both|the\s+(?:whole\s+)?lot|(?:every|each|all|both)\s+(?:one\s+)?of\s+them|all\s+"
                             + _NUM + r"(?:\s+of\s+them)?|(?:every|each)\s+(?:last\s+|single\s+)?one)\b")
# ... or passively: "every one of them has to have been spotted", "they must all be found"
_LOCATED_PRONOUN = re.compile(r"\b(?:(?:every|each|all|both)\s+(?:last\s+)?(?:one\s+)?of\s+them|they\s+(?:\w+\s+)?all|"
                              r"(?:every|each)\s+(?:last\s+)?(?:one|outpost|camp|base|target|site|tower|extractor|"
                              r"factory|building)|(?:eyes\s+on|sight\s+of)\s+(?:every|each)\s+(?:last\s+)?one)\s+"
                              r"(?:[\w']+\s+){0,4}?"
                              r"(?:spotted|found|located|seen|sighted|discovered|revealed|scouted|eyeballed)\b")
# places of the enemy a search may name that the roster has no unit for: searched as metal storages (a note says so)
_SITE_NOUNS = r"outposts?|camps?|bases?|positions?|installations?|emplacements?|bunkers?|caches?|depots?"
SITE_STANDIN = "metal_storage"
# the count before or after the owner: "four enemy storages", "their three vehicle plants"
_ENEMY_NAMED = (r"(?:(?:the|a|an)\s+)?(?:" + _NUM + r"\s+(?:of\s+(?:the\s+)?)?)?(?:hidden\s+)?(?:enemy|enemy's|their|hostile|opposing)\s+(?:"
                r"(?:has|have)\s+(?:scattered|hidden|placed|stashed|tucked\s+away|put|spread|dotted)\s+)?(?:"
                + _NUM + r"\s+)?(?:hidden\s+)?")


def _locate_target(text: str) -> tuple[str | None, str, list[tuple[int, int]]] | None:
    """What a search asks to find: (count word or None, roster name, spans read): the targets after the verb
    ("locate all four enemy extractors"), or the enemy units named before a pronoun ("five enemy radar
    towers stand in the murk; get eyes on every one of them")."""
    m = re.search(_LOCATE.pattern + _unit_pattern("any"), text)
    if m:
        return m.group(1), m.group(2), [m.span()]
    # "map out where the enemy put its four outposts"
    m = re.search(_LOCATE_VERB + r"(?:(?:each|every|all|both)\s+(?:one\s+)?of\s+)?"
                  r"(?:the\s+enemy\s+(?:put|placed|hid|hides|keeps|has|built)\s+)?(?:its|their|the|the\s+enemy's)\s+(?:"
                  + _NUM + r"\s+)?(?:hidden\s+)?(" + _unit_pattern("any") + "|" + _SITE_NOUNS + r")", text)
    if m:
        return m.group(1), m.group(2), [m.span()]
    p = _LOCATE_PRONOUN.search(text) or _LOCATED_PRONOUN.search(text)
    if p is None:
        return None
    named = list(re.finditer(_ENEMY_NAMED + "(" + _unit_pattern("any") + "|" + _SITE_NOUNS + ")", text[:p.start()]))
    if named:
        a = named[-1]
        return a.group(1) or a.group(2), a.group(3), [a.span(), p.span()]
    # "four hidden radar towers somewhere on the map: spot them all": hidden things are the enemy's to find
    hidden = list(re.finditer(r"(?<![\w-])" + _NUM + r"\s+(?:hidden|concealed|secret|camouflaged)\s+("
                              + _unit_pattern("any") + "|" + _SITE_NOUNS + ")", text[:p.start()]))
    if not hidden:
        return None
    a = hidden[-1]
    return a.group(1), a.group(2), [a.span(), p.span()]


def _recon(r: Reading) -> None:
    """Reconnaissance: "scout with one fast unit and locate all four enemy extractors within two minutes":
    targets of the enemy to find (seen once each) under fog of war, before a deadline. The targets are
    the roster units named after the verb ("all four enemy extractors"); a count of "all" is four."""
    text, c = r.text, r.concepts
    # finding something is the game only when nothing else is ("defend your base and find their scouts")
    if any(h.key == "archetype" for h in r.hits):
        return
    target = _locate_target(text)
    if target is None:
        return
    count, name, spans = target
    # the targets counted where they are first named: "five enemy solar collectors tucked away ...; kill four"
    # (a place the roster has no unit for is the roster building named beside it: "the hidden caches, five enemy
    # solar collectors")
    for a in re.finditer(_ENEMY_NAMED + "(" + _unit_pattern("any") + "|" + _SITE_NOUNS + ")", text):
        if name not in roster_names() and a.group(3) in roster_names():
            name = a.group(3)
        if roster_names().get(a.group(3), a.group(3)) == roster_names().get(name, name) and (a.group(1) or a.group(2)):
            count = count or a.group(1) or a.group(2)
            spans.append(a.span())
    c.archetype = "recon"  # type: ignore[assignment]
    r.matched.append("archetype recon")
    c.locate_type = roster_names().get(name, SITE_STANDIN)
    # "find the enemy factory": one target when named in the singular
    singular = count is None and not name.endswith("s") and not re.search(r"\b(?:all|every|each)\b", text)
    c.locate_count = max(1, min(8, int(number(count)))) if count else 1 if singular else None
    if c.locate_count is None:
        r.assumptions.append("no number of targets given: 4")
    for h in r.hits:
        # the scouting words, the targets counted and the enemy's attack words all describe the search
        if h.key in ("scouting", "objectives", "objective", "archetype", "raids"):
            h.key = "recon"
    for span in spans:
        r.hit(span, "recon", note="" if name in roster_names() else
              f"the roster has no {name.rstrip('s')}: the targets are {SITE_STANDIN.replace('_', ' ')}s")
    # where the targets stand is the design's (sites round the map centre drawn per seed), never the request's
    placed = [_segment(text, a) for a, _ in spans]
    r.hits = [dataclasses.replace(h, problem="the targets stand at sites round the map centre drawn per game; where "
                                             "the request places them is not built")
              if h.key in ("map", "directions", "fronts", "random_side") and not h.problem
              and any(a <= h.start < b for a, b in placed) else h for h in r.hits]
    # the units it searches with, when the request names them: "using 2 light bots"
    for s in re.finditer(r"\b(?:with|using|use|send|sending)\s+(?:your\s+)?" + _NUM + r"\s+" + _unit_pattern("mobile"), text):
        c.player_start[roster_names()[s.group(2)]] = int(number(s.group(1)))
        r.hit(s, "start_forces")
    # the scout it searches with: "with your scout", "using one fast unit"; the search named as such; where the
    # targets stand changing between games (the sites are drawn per seed)
    for s in re.finditer(r"\b(?:with|using|use)\s+(?:your|a|one|the|an|its)\s+(?:(?:single|fast|lone|only|own)\s+)*"
                         r"(?:scout|unit|recon unit)\b|\b(?:recon|reconnaissance|scouting\s+(?:run|mission))\b|"
                         r"\b(?:whose\s+)?(?:positions?|places?|spots?|locations?)\s+(?:change|changes|vary|varies|differ|are\s+"
                         r"different)\s+(?:every|each|from)\s+(?:game|round|match|run)(?:\s+to\s+(?:game|round|match|run))?\b|"
                         r"\bsomewhere\s+(?:different|new|else)\s+(?:every|each)\s+(?:game|round|match|run|time)\b", text):
        r.hit(s, "recon")
    # a bare count of units read as a goal ("fog on, one scout, four hidden radar towers") is what searches
    if c.target_composition:
        for type_id, n in c.target_composition.items():
            c.player_start[type_id] = c.player_start.get(type_id, 0) + n
        c.target_composition = {}
        c.production = None if c.production is True and not any(h.key == "production_switch" for h in r.hits) \
            else c.production
        for h in r.hits:
            if h.key == "production_target":
                h.key = "start_forces"
    c.scouting, c.raids, c.objective_type, c.objectives = False, False, None, None
    if c.fog is False:
        r.hits = [dataclasses.replace(h, problem="a search needs fog of war: the targets are hidden until seen")
                  if h.key == "fog" else h for h in r.hits]
    c.fog = True


# A micro skirmish: "5 ranged units versus 8 light bots", "a trio of heavy tanks against a swarm of 20 light bots"
_GROUP_NUM = r"(?<![a-z])(\d+|trio|pair|dozen|" + "|".join(sorted(V.NUMBER_WORDS, key=len, reverse=True)) + r")"
_GROUP_WORDS = {"trio": 3, "pair": 2, "dozen": 12}
_FORCE = (_GROUP_NUM + r"\s+(?:of\s+(?:my|your|our|their|the)\s+|of\s+)?((?:[\w-]+\s+){0,2}?(?:units?|bots?|tanks?|vehicles?|robots?|soldiers|troops|"
          r"infantry|artillery(?:\s+(?:bots?|units?|pieces|vehicles?))?))\b")
# a few words may stand between the squad and its foe: "your four light tanks are on their own against twelve ..."
_ARMIES = re.compile(r"(?:\b(?:my|your|our)\s+)?" + _FORCE + r"(?:,\s+(?:[\w-]+,?\s+){0,3}?[\w-]+,|\s*\([^()]{0,60}\))?"
                     r"(?:\s+(?:that|which|who))?"
                     r"(?:\s+(?:are|is|stand|stands|go|goes)(?:\s+[\w']+){0,3}?)?"
                     r"\s+(?:versus|vs\.?|v|against|take on|face|faces|facing|face\s+down|faces\s+down|fight|"
                     r"(?:square|squares|face|faces)\s+off\s+(?:with|against)|go\s+up\s+against|goes\s+up\s+against|"
                     r"clash\s+with|clashes\s+with|meet|meets|run\s+into|runs\s+into|take\s+on|takes\s+on|"
                     r"must kill|must destroy|kill|destroy|"
                     # "three of my heavy tanks have to get through fifteen small bots"
                     r"(?:must|have\s+to|has\s+to|need\s+to|needs\s+to|will\s+have\s+to|got\s+to|gotta)\s+(?:take\s+on|"
                     r"fight|face|beat|get\s+through|get\s+past|break\s+through|punch\s+through|kill|destroy|wipe\s+out)|"
                     r"(?:(?:must|have\s+to|has\s+to|need\s+to|needs\s+to)\s+)?(?:kite|"
                     r"outmanoeuvre|outmaneuver|pick\s+off|whittle\s+down|grind\s+down)|"
                     # "two heavy tanks and three rocket bots must handle ten light bots"
                     r"(?:(?:must|have\s+to|has\s+to|need\s+to|needs\s+to|will\s+have\s+to)\s+)?(?:handle|deal\s+with|beat|"
                     r"defeat|stop|hold\s+off|fend\s+off|see\s+off|take\s+care\s+of))\s+(?:their\s+|the\s+enemy'?s?\s+|enemy\s+)?"
                     r"(?:(?:a|an)\s+(?:swarm|horde|pack|group|mob|wave|squad|force|knot|band|bunch|gang|cluster|column|"
                     r"detachment|platoon|company|crowd|mass)\s+of\s+)?" + _FORCE)
# the enemy coming at the squad said after it: "2 heavy tanks and 4 rocket bots, nothing else; 15 light bots come
# at them"
_ARMIES_ATTACKED = re.compile(_FORCE + r"(?:[,;]?\s+[^.;]{0,40}?)?[,;:]\s+(?:and\s+)?(?:then\s+)?" + _FORCE
                              + r"\s+(?:[\w-]+\s+)?(?:come|comes|coming|charge|charges|rush|rushes|swarm|swarms|close|"
                              r"closes|bear|bears|pour|pours|fall|falls|descend|descends)\s+(?:in\s+|down\s+)?(?:at|on|upon|"
                              r"toward|towards|for|onto)\s+(?:them|you|it|your\s+[\w-]+|the\s+squad)\b")
# a squad of two types: "a pair of heavy tanks and a pair of artillery bots meet ...": the first one before the match
_SQUAD_BEFORE = re.compile(_FORCE + r"\s+(?:and|plus|with|alongside|together\s+with)\s+(?:an?\s+)?$")
# an enemy of two or more types: "... against 3 artillery bots and 5 light bots", "..., 4 rocket bots and a heavy tank"
_FORCE_AFTER = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+plus\s+)(?:an?\s+)?" + _FORCE)
# the two armies compared: "seven rocket bots, quicker and longer-reaching than the nine assault bots"
_ARMIES_COMPARED = re.compile(_FORCE + r",?\s+(?:[\w-]+,?\s+){1,5}?than\s+(?:the\s+|their\s+|an?\s+)?(?:enemy\s+)?" + _FORCE)
_ELIMINATE = re.compile(r"\b(?:kill(?:ing)?|destroy(?:ing)?|eliminat(?:e|ing)|wip(?:e|ing)\s+out|wip(?:e|ing))\s+"
                        r"(?:all|every|each|them|the)\b(?:\s+[\w-]+){0,3}?"
                        r"(?:\s+(?:out|enemies|enemy units|units|bots|tanks))?|\bevery\s+(?:last\s+|single\s+)?[\w-]+\s+(?:is|are)\s+"
                        r"(?:scrap|dead|destroyed|gone|down)\b|\bwin the (?:skirmish|fight|battle|engagement)\b|"
                        r"\b(?:micro|kiting|focus[\s-]fire)\s+(?:test|drill|challenge|exercise|skirmish)\b|"
                        r"\boutnumbered(?:\s+\d+\s+to\s+\d+)?|\bbefore they reach (?:them|you|it)\b|"
                        r"\bcome out ahead\b|\bnothing\s+(?:hostile|enemy)\s+(?:moves|is\s+left|remains|stands)\b|"
                        r"\b(?:pick|picks|picking)\s+them\s+apart\b|\b(?:cut|mow)\s+them\s+(?:all\s+)?down\b|"
                        r"\bfinish\s+them\s+(?:all\s+)?off\b|"
                        r"\bleave\s+(?:none|nothing|no\s+one|not\s+one)\s+(?:of\s+(?:them|theirs)\s+)?(?:standing|alive)\b|"
                        r"\b(?:not\s+(?:a\s+single|one)|none)\s+of\s+(?:theirs|them|the\s+enemy'?s?)\s+(?:is|are)\s+(?:still\s+)?"
                        r"(?:left|standing|alive|moving)\b|\buntil\s+(?:they\s+are|the\s+enemy\s+is)\s+(?:all\s+)?(?:dead|gone|"
                        r"destroyed|wiped\s+out)\b")
_KITING = re.compile(r"\b(?:are|is)\s+faster\b|\b(?:faster|quicker|speedier)\s+(?:and\s+[\w-]+\s+)?than\b|"
                     r"\blonger[\s-](?:reaching|ranged)\b|\bouts?peed\b|\boutpace\b|\boutranges?\b|\bout-?range\b|\bkit(?:e|ing)\b|"
                     r"\bshort[\s-]range\b|\b(?:longer|more)\s+range\b")
_LOSSES = re.compile(r"\bwithout\s+losing\s+(?:either|any|a\s+single\s+one|even\s+one|one)\s+of\s+(?:them|the\s+squad)\b|"
                     r"\b(?:los(?:e|ing)\s+no\s+more\s+than|without\s+losing\s+more\s+than|los(?:e|ing)\s+at\s+most|"
                     r"(?:don'?t|do\s+not|never|can'?t|cannot|can\s+not|must\s+not|mustn'?t|may\s+not)\s+lose\s+more\s+than)\s+"
                     + _NUM + r"(?:\s+of\s+(?:(?:your|the|my|our)\s+(?:\d+|" + "|".join(sorted(V.NUMBER_WORDS, key=len, reverse=True))
                     + r")|mine|yours|ours|them|the\s+squad))?(?:\s+(?:[\w-]+\s+)?(?:units?|bots?|tanks?))?|"
                     r"\b(?:with\s+)?at\s+least\s+" + _NUM + r"\s+survivors?\b|"
                     r"\bat\s+least\s+" + _NUM + r"\s+(?:[\w-]+\s+)?(?:units?|bots?|tanks?)\s+(?:still\s+)?"
                     r"(?:roll|rolling|alive|survive|standing|left|remain)\w*|\bwithout\s+losing\s+(?:a|any)\s+"
                     r"(?:single\s+)?(?:units?|bots?|tanks?)\b|"
                     r"\blos(?:e|ing)\s+" + _NUM + r"\s+(?:[\w-]+\s+)?(?:(?:units?|bots?|tanks?)\s+)?at\s+(?:the\s+)?most\b|"
                     # "with no more than one of yours lost", "no more than 2 of your units may die"
                     r"\b(?:with\s+)?(?:no\s+more\s+than|at\s+most)\s+" + _NUM + r"\s+(?:of\s+(?:yours|your\s+[\w-]+|"
                     r"them|the\s+squad)\s+)(?:may\s+(?:be\s+)?|can\s+(?:be\s+)?)?(?:lost|die|dead|destroyed|killed|fall)\b|"
                     # the cap said by its consequence: "lose more than one tank and it's a loss"
                     r"\b(?:if\s+(?:you|i|we)\s+)?los(?:e|ing)\s+more\s+than\s+" + _NUM + r"(?:\s+(?:[\w-]+\s+)?(?:units?|bots?|"
                     r"tanks?)|\s+of\s+them)?\s*(?:,\s*(?:and\s+)?|\s+and\s+)(?:(?:it'?s|that'?s)\s+(?:a\s+loss|over|game\s+over|"
                     r"defeat)|(?:you|i|we)\s+lose|game\s+over)\b")
_DEFENCE_WORDS = re.compile(r"defen|surviv|hold|protect|withstand|repel|fend|guard|waves?\b|raid|harass")
_RANGED = {"ranged": "rocket_bot", "long-range": "rocket_bot", "long range": "rocket_bot", "rocket": "rocket_bot",
           "artillery": "artillery_bot", "sniper": "sniper_bot"}
KITING_STANDIN = "assault_bot"   # what slower, shorter-ranged bots are played as when the named ones are not


def _force_type(phrase: str) -> str | None:
    """The roster type a force phrase names: the longest roster name in it ("short-range light bots" ->
    light_bot), else a kind of weapon ("ranged units" -> rocket bots)."""
    names = roster_names()
    mobile = [n for n in sorted(names, key=len, reverse=True) if names[n] not in _building_types()]
    # a name of two words may have a word between them: "big slow tanks" are big tanks
    for n in mobile:
        if re.search(r"(?<![\w-])" + r"\s+(?:[\w-]+\s+)?".join(map(re.escape, n.split())) + r"(?![\w-])", phrase):
            return names[n]
    return next((t for w, t in _RANGED.items() if w in phrase), None)


MICRO_MAX_SIDE = 60     # units a skirmish side may field (the open maps hold that many in a fight)


def _group_count(word: str) -> int:
    return _GROUP_WORDS.get(word) or int(number(word))


BARE_SQUAD, BARE_ODDS = 6, 0.6   # a fight named without counts: the squad's size, the enemy's worth against it
_KIND = r"(?:(?:light|heavy|fast|slow|assault|rocket|artillery)\s+)?(?:tanks?|bots?|robots?|vehicles?)"
# "my tanks vs their bots", "tanks fight some bots": two ground armies named without counts
_BARE_ARMIES = re.compile(r"\b(?:(?:my|your|our|some|a\s+few|a\s+bunch\s+of)\s+)?(" + _KIND + r")\s+(?:vs\.?|versus|against|"
                          r"fight|fights|fighting|take\s+on|takes\s+on|face|faces)\s+(?:(?:some|their|the|enemy|the\s+enemy'?s?|"
                          r"a\s+few|a\s+bunch\s+of|a\s+swarm\s+of|a\s+horde\s+of)\s+)*(" + _KIND
                          + r"|planes?|aircraft|airplanes?|jets?|bombers?|gunships?|fighters?|choppers?|helicopters?)\b")
_AIR_FOE = re.compile(r"planes?|aircraft|airplanes?|jets?|bombers?|gunships?|fighters?|choppers?|helicopters?")


def _bare_armies(text: str) -> tuple[re.Match, str, str] | None:
    m = _BARE_ARMIES.search(text)
    if not m:
        return None
    if _AIR_FOE.fullmatch(m.group(2)):
        return (m, "", "air")
    mine, theirs = _force_type(m.group(1)), _force_type(m.group(2))
    mine = mine or {"tank": "light_tank", "bot": "light_bot"}.get(m.group(1).rstrip("s").split()[-1])
    theirs = theirs or {"tank": "light_tank", "bot": "light_bot"}.get(m.group(2).rstrip("s").split()[-1])
    return (m, mine, theirs) if mine and theirs else None


def _micro(r: Reading) -> None:
    """A micro skirmish: the two armies ("5 ranged units versus 8 light bots"), won by destroying every enemy
    unit ("kill all enemies", "every bot is scrap"), with a cap on the squad's losses ("losing no more than 2
    units", "at least two tanks still roll") and a kiting test ("faster and outrange the bots")."""
    text, c = r.text, r.concepts
    if c.archetype not in ("defense", "raids") and any(h.key == "archetype" for h in r.hits):
        return
    # a defence with forces named ("survive 3 minutes with 5 tanks against 20 bots") stays a defence
    if any(h.key == "archetype" and _DEFENCE_WORDS.search(text[h.start:h.end]) for h in r.hits):
        return
    armies = _ARMIES.search(text) or _ARMIES_COMPARED.search(text) or _ARMIES_ATTACKED.search(text)
    goal = _ELIMINATE.search(text)
    bare = None if armies else _bare_armies(text)
    if bare and bare[2] == "air":
        r.hit(bare[0], "armies", f"a fight of {bare[0].group(1)} against aircraft is not built (the offline "
                                 "skirmishes are ground fights): what was built is listed below")
        return
    if not armies and not bare and not (goal and re.search(r"\b(?:skirmish|micro|kiting|focus[\s-]fire)\b", text)):
        return
    c.archetype = "micro"  # type: ignore[assignment]
    r.matched.append("archetype micro")
    # the fight's words are the skirmish's: no waves, objectives or defence of another family
    r.hits = [h for h in r.hits if h.key not in ("archetype", "waves", "objectives", "objective", "raids", "protect",
                                                 "production_target", "ffa_count", "teams", "wave_units", "keep_count")]
    c.objectives = c.objective_type = c.protect_unit = None
    c.waves, c.raids, c.target_composition = 0, False, {}
    # a count of units read as a goal to produce turned production on; a skirmish builds nothing unless asked to
    switched = [r.text[h.start:h.end] for h in r.hits if h.key == "production_switch"]
    if not switched or any(re.search(r"\bno\b|without|fixed|nothing", w) for w in switched):
        c.production = False
    if armies:
        mine, theirs = _force_type(armies.group(2)), _force_type(armies.group(4))
        problem = "" if mine and theirs else (f"no roster unit is called \"{armies.group(2 if not mine else 4)}\"")
        c.squad = {mine or "light_tank": _group_count(armies.group(1))}
        if armies.re is _ARMIES_ATTACKED:
            # every force listed before the one that comes at them is the squad's
            for more in re.finditer(_FORCE, text[armies.end(2):armies.start(3)]):
                if (kind := _force_type(more.group(2))) and not re.search(r"\bnothing|\bno\b", more.group(0)):
                    c.squad[kind] = c.squad.get(kind, 0) + _group_count(more.group(1))
        if mine and (more := _SQUAD_BEFORE.search(text[:armies.start()])) and _force_type(more.group(2)):
            c.squad = {_force_type(more.group(2)): _group_count(more.group(1)), **c.squad}
            r.hit(more, "armies")
        c.enemy_force = {theirs or "light_bot": _group_count(armies.group(3))}
        r.hit(armies, "armies", problem, note=_force_note(armies.group(2), mine) or _force_note(armies.group(4), theirs))
        end = armies.end()
        while theirs and (more := _FORCE_AFTER.match(text, end)) and _force_type(more.group(2)):
            kind = _force_type(more.group(2))
            c.enemy_force[kind] = c.enemy_force.get(kind, 0) + _group_count(more.group(1))
            r.hit(more, "armies")
            end = more.end()
        # a side of a million tanks is not a skirmish the map holds: played at the cap, said
        for side in (c.squad, c.enemy_force):
            if sum(side.values()) > MICRO_MAX_SIDE:
                problem = (f"{sum(side.values()):,} units on one side requested; a skirmish side holds at most "
                           f"{MICRO_MAX_SIDE}")
                r.unsupported.append(problem)
                r.hit((armies.start(), end), "armies", problem)
                scale = MICRO_MAX_SIDE / sum(side.values())
                for kind in side:
                    side[kind] = max(1, int(side[kind] * scale))
    if bare:
        (m, mine, theirs) = bare
        c.squad = {mine: BARE_SQUAD}
        c.enemy_force = {theirs: max(1, round(BARE_SQUAD * BARE_ODDS * worth(mine) / worth(theirs)))}
        r.hit(m, "armies", note=f"no counts given: {BARE_SQUAD} {mine.replace('_', ' ')}s against "
                                f"{c.enemy_force[theirs]} {theirs.replace('_', ' ')}s, worth {BARE_ODDS:g} of the squad")
    for m in _ELIMINATE.finditer(text):
        r.hit(m, "micro")
    for m in re.finditer(r"\bnothing gets built\b|\bnothing is built\b|\bno base building\b", text):
        c.production = False
        r.hit(m, "production_switch")
    for m in _LOSSES.finditer(text):
        n = next((g for g in m.groups() if g), None)
        kept = int(number(n)) if n else None
        total = sum(c.squad.values()) or None
        # "without losing a tank" in a squad of tanks and bots caps one kind's losses: the cap counts every unit
        kind = re.search(r"\b(tanks?|bots?)\b", m.group(0))
        if kind and any(kind.group(1).rstrip("s") not in t for t in c.squad):
            r.hit(m, "losses", f"a cap on the {kind.group(1).rstrip('s')}s' losses alone is not built: a cap counts "
                               "every unit of the squad")
            continue
        if re.match(r"(?:with\s+)?at\s+least", m.group(0)):
            c.max_losses = max(0, total - kept) if total and kept is not None else None
        else:
            c.max_losses = kept if kept is not None else 0
        r.hit(m, "losses")
    kiting = list(_KITING.finditer(text))
    if kiting:
        c.kiting = True
        problem = _kiting_problem(c)
        for m in kiting:
            r.hit(m, "kiting", problem)


def _force_note(phrase: str, type_id: str | None) -> str:
    if type_id and not any(n in phrase for n, t in roster_names().items() if t == type_id and len(n) > 4):
        return f"\"{phrase}\" read as {type_id.replace('_', ' ')}s"
    return ""


def _kiting_problem(c: Concepts) -> str:
    """A kiting test needs a squad faster than the enemy and outranging it: when the named roster types are
    not, the enemy is played as the stand-in bots (slower and shorter-ranged than rocket bots), said here."""
    cat = load_catalog().units
    mine = next(iter(c.squad), None)
    theirs = next(iter(c.enemy_force), None)
    if not mine or not theirs or not cat[mine].weapon or not cat[theirs].weapon:
        return ""
    if cat[mine].speed > cat[theirs].speed and cat[mine].weapon.range > cat[theirs].weapon.range:
        return ""
    stand = cat[KITING_STANDIN]
    why = (f"the roster has no {mine.replace('_', ' ')} faster than a {theirs.replace('_', ' ')} that also outranges "
           f"it; the enemy is played as {KITING_STANDIN.replace('_', ' ')}s (speed {stand.speed:g}, range "
           f"{stand.weapon.range:g})")
    if mine != "rocket_bot":
        why += " against rocket bots"
        c.squad = {"rocket_bot": c.squad[mine]}
    c.enemy_force = {KITING_STANDIN: c.enemy_force[theirs]}
    return why
_RESOURCE = r"(metal|energy|resources?)\b"
# per second: "20 metal per second", "20 metal/s", "20 metal a second", "20 metal every second"
_PER_SECOND = r"\s*(?:/\s*s(?:ec)?\b|per\s+sec(?:ond)?\b|an?\s+sec(?:ond)?\b|each\s+second\b|every\s+second\b|" \
              r"/\s*second\b|per\s+s\b)"
_AMOUNT = _NUM + r"\s+(?:units\s+of\s+|of\s+)?" + _RESOURCE
# what gathers a stockpile: "stockpile 1500 metal", "save up 1000 energy", "build up a reserve of 2000 metal"
_STOCK_VERB = (r"\b(?:stockpile|stockpiling|bank|banking|hoard|hoarding|accumulate|accumulating|amass|amassing|"
               r"save(?:\s+up)?|saving(?:\s+up)?|gather|gathering|mine|mining|collect|collecting|store|storing|stash|"
               r"stashing|harvest|harvesting|extract|extracting|pile\s+up|piling\s+up|stock\s+up(?:\s+on)?|"
               r"build\s+up|building\s+up|rack\s+up|reach|reaching|hit|sit\s+on|put\s+aside|set\s+aside|"
               r"scrape\s+together|raise|(?:squirrel|squirreling|squirrelling|tuck|tucking|salt|salting|sock|socking|"
               r"stow|stowing|lay|laying|put|putting|stack|stacking|stash|stashing|squirrel\s+away|hide|hiding)\s+"
               r"(?:away|by|up))\s+")
_STOCK_NOUN = (r"\b(?:an?\s+|the\s+)?(?:stockpile|reserve|hoard|stash|bank|war chest|treasury|nest egg|stock|"
               r"savings)\s+of\s+")
_STOCK_QUALIFIER = (r"(?:resources?\s*[:,-]\s*)?(?:(?:an?\s+)?(?:total\s+of\s+)?|at\s+least\s+|over\s+|more\s+than\s+|"
                    r"up\s+to\s+)?")
# "have 1500 metal by minute 4", "1500 metal in the bank", "1500 metal banked"
_STOCK_AFTER = (r"(?=\s+(?:(?:sitting\s+|stored\s+|piled\s+up\s+)?in\s+(?:the\s+|your\s+)?(?:bank|storage|reserve|stock|stores?|"
                r"coffers|treasury|vault|war\s+chest)|banked|saved|"
                r"stockpiled|stored|hoarded|in\s+hand)\b)")
# the particle after the amount: "put 1500 energy away", "set 800 metal aside"
_STOCK_SPLIT = (r"\b(?:put|putting|tuck|tucking|stow|stowing|squirrel|squirreling|salt|salting|sock|socking|lay|laying|"
                r"stash|stashing|set|setting|tuck)\s+" + _AMOUNT + r"\s+(?:away|aside|by)\b")
_HAVE_BY = r"\b(?:have|get|hold|own|end\s+with|finish\s+with)\s+(?:at\s+least\s+)?" + _AMOUNT + \
           r"(?=\s+(?:by|before|within|in\s+under|in\s+less\s+than|no\s+later\s+than)\b)"
_INCOME = [
    # "metal has to be flowing in at 16 a second"
    re.compile(r"\b(metal|energy)\s+(?:has|have|needs?|must|should)\s+(?:to\s+)?(?:be\s+)?(?:flowing|coming|pouring|"
               r"streaming|rolling)\s+in\s+at\s+(?:at\s+least\s+)?" + _NUM + r"()" + _PER_SECOND),
    # "an income of 20 metal per second", "a metal income of 20", "raise your income to 20 metal/s"
    re.compile(r"\b(?:an?\s+|your\s+|the\s+)?(?:(metal|energy)\s+)?(?:income|income\s+rate|rate\s+of\s+income|"
               r"economy)\s+(?:of|to|at)\s+(?:at\s+least\s+)?" + _NUM + r"(?:\s+(?:units\s+of\s+)?"
               + _RESOURCE + r")?(?:" + _PER_SECOND + r")?"),
    # "earn 20 metal per second", "20 energy a second", "produce 15 metal/s"
    re.compile(r"(?:\b(?:earn|earning|make|making|produce|producing|generate|generating|bring\s+in|income)\s+"
               r"(?:of\s+)?(?:at\s+least\s+)?)?()" + _AMOUNT + _PER_SECOND + r"(?:\s+(?:of\s+)?income)?"),
]
_KEEP = re.compile(r"\b(?:without|never|not|don't|do not|no)\s+(?:ever\s+)?(?:losing|lose|giving\s+up|(?:let|letting)\s+"
                   r"(?:the\s+)?(?:enemy|raiders?|them|anyone|anybody|attackers)\s+(?:destroy|kill|take\s+out|wreck|"
                   r"knock\s+out))\s+(?:a\s+single\s+|a\s+|an\s+|any\s+(?:of\s+)?(?:your\s+)?|"
                   r"one\s+|even\s+one\s+|your\s+|the\s+|my\s+|our\s+|one\s+of\s+(?:your|the|my|our)\s+)?"
                   r"(?:single\s+)?")
_KEEP_ALL = re.compile(r"\b(?:keep|keeping)\s+(?:all\s+|every\s+|each\s+)?(?:of\s+)?(?:your\s+|the\s+|my\s+|our\s+)?")


def _resource_goal(r: Reading) -> None:
    """A resource goal: "stockpile 1500 metal by minute 4", "bank 800 energy before the 3-minute mark",
    "reach an income of 20 metal per second within 5 minutes", "accumulate 2000 metal without losing an
    extractor". It is the game over a defence, raids or an economy named as such (the attacks fended off
    are raids on the economy), never over a unit composition to produce or another named game."""
    text, c = r.text, r.concepts
    if c.target_composition or (c.archetype not in ("defense", "raids", "production")
                                and any(h.key == "archetype" for h in r.hits)):
        return
    income = next((m for p in _INCOME for m in p.finditer(text) if m.group(2)), None)
    stock = (re.search(_STOCK_VERB + _STOCK_QUALIFIER + _AMOUNT, text) or re.search(_STOCK_NOUN + _AMOUNT, text)
             or re.search(_AMOUNT + _STOCK_AFTER, text) or re.search(_HAVE_BY, text) or re.search(_STOCK_SPLIT, text))
    m = income or stock
    if m is None:
        return
    amount = number(m.group(m.re.groups - 1))
    word = m.group(m.re.groups) or m.group(1) or "metal"
    if amount <= 0:
        return
    c.archetype = "resources"  # type: ignore[assignment]
    r.matched.append("archetype resources")
    c.resource_income = m is income
    c.resource_kind = "energy" if word == "energy" else "metal"   # type: ignore[assignment]
    c.resource_amount = amount
    note = "" if word in ("metal", "energy") else f"\"{word}\" read as metal"
    if c.resource_income and m.group(m.re.groups) is None and m.group(1) is None:
        note = "no resource named: metal"
    r.hit(m, "resource_goal", note=note)
    # the family named as a drill: "econ drill:", "an economy race"
    for label in re.finditer(r"\b(?:econ|eco|economy|economic)\s+(?:drill|race|challenge|test|exercise|run|sprint)\b", text):
        r.hit(label, "resource_goal")
    for h in r.hits:
        word_hit = text[h.start:h.end]
        # the economy words name the goal; a defence's words and the enemy's attacks are the raids fended off
        if h.key == "archetype" and re.search(r"produce|build up|economy|tech up|as fast as possible", word_hit):
            h.key = "resource_goal"
        elif h.key in ("archetype", "waves", "probe", "fronts", "random_side", "staggered"):
            h.key, c.raids = "raids", True
        elif h.key in ("wave_times", "direction_times", "front_order", "directions", "interval") and c.raids:
            h.problem = "the raids on a resource goal come from sides and at times drawn per game"
    for h in r.hits:
        # growth words grow the economy ("grow your income to 20") unless raids are named to grow
        if h.key == "escalating" and not c.raids:
            h.key = "resource_goal"
        elif h.key == "escalating":
            h.problem = "the raids on a resource goal keep one size"
    c.directions, c.direction_times, c.wave_times, c.escalating, c.probe_then_main = [], [], [], False, False
    c.production = True
    keep_types = _unit_pattern("building")
    keep = (re.search(_KEEP.pattern + keep_types, text)
            or re.search(_KEEP_ALL.pattern + keep_types + r"\s+(?:alive|standing|intact|safe|running)", text)
            or re.search(r"\b(?:all|every|each)\s+(?:of\s+)?(?:your\s+)?" + keep_types
                         + r"\s+(?:must|has\s+to|have\s+to|needs?\s+to|should)\s+(?:survive|stay alive|stand)", text)
            # "losing any extractor is a defeat"
            or re.search(r"\b(?:losing|lose|if\s+you\s+lose)\s+(?:a\s+single\s+|any\s+(?:of\s+your\s+)?|an?\s+|one\s+|even\s+one\s+)"
                         + keep_types + r"\s*,?\s+(?:is|means|counts\s+as|and)?\s*(?:an?\s+|instant\s+|immediate\s+)?"
                         r"(?:defeat|loss|failure|game\s+over|you\s+lose|you'?re\s+out)\b", text))
    if keep:
        c.resource_keep = roster_names()[keep.group(1)]
        r.hit(keep, "resource_keep")
        for h in r.hits:
            if h.key in ("objective", "objectives", "protect") and keep.start() <= h.start < keep.end():
                h.key = "resource_keep"
    c.objective_type, c.objectives = None, None
    if c.protect_unit and c.protect_unit == c.resource_keep:
        c.protect_unit = None
    r.hits = [h for h in r.hits if h.key not in ("objective", "objectives") or c.raids]
