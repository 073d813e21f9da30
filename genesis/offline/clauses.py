"""Splits a request into clauses and accounts for each: honoured (by which requirements), partial (what was
built, what was not), assumed (with the default taken) or not honoured (and why). Every character of the
request belongs to one clause."""
from __future__ import annotations

import re
from functools import lru_cache

from genesis.models import ClauseAccount, Requirement
from genesis.quantities import clock
from genesis.offline import vocabulary as V
from genesis.offline.concepts import Hit, Reading, roster_names

# Words that start a new clause after "and" ("... at minute 3 and an air assault ..."); "and" before
# anything else joins a list ("west, north and east", "tanks and bots") and stays inside its clause.
_AND_STARTS = {"the", "a", "an", "your", "you", "they", "their", "its", "it", "each", "every", "then", "after",
               "before", "no", "there", "enemy", "enemies", "keep", "hold", "protect", "defend", "survive",
               "win", "lose", "capture", "destroy", "build", "produce", "train", "bombers", "raiders", "fog", "make",
               "if", "when", "finally", "later", "one"}
_CONNECTORS = re.compile(r" (and then|then|while|whilst|with|but|whereas|meanwhile|so that|and|plus|also) ")
_LIST_WORDS = set(V.COMPASS) | {"northern", "southern", "eastern", "western", "left", "right", "ne", "nw", "se", "sw",
                                "north-east", "north-west", "south-east", "south-west", "northeast", "northwest",
                                "southeast", "southwest"}
# A segment made only of these says nothing by itself: it joins the next clause.
_FILLER = {"a", "an", "the", "please", "i", "want", "would", "like", "make", "me", "us", "give", "create", "build",
           "design", "game", "scenario", "mission", "level", "map", "where", "in", "which", "that", "and", "then",
           "so", "also", "ok", "okay", "now", "here", "is", "it", "this", "something", "some", "kind", "of", "one",
           "with", "while", "but", "plus", "let's", "lets", "have", "can", "you", "we", "need",
           # openers of speech: "Alright:", "Right, so", "Well,", "Listen up:", "Here's the deal:"
           "alright", "allright", "well", "hey", "hi", "hello", "listen", "look", "picture", "imagine",
           "deal", "idea", "thing", "plan", "here's", "heres",
           # labels that head what follows them ("Victory: survive until 6:30")
           "victory", "defeat", "success", "failure", "goal", "goals", "specification", "spec", "condition",
           "conditions", "rules", "setup", "brief"}
# Words every scenario is made of: a clause of only these (and filler) is the scenario itself.
_GENERIC = _FILLER | {"enemy", "enemies", "the", "your", "my", "our", "against", "units", "army", "armies", "troops",
                      "forces", "they", "them", "their", "to", "for", "on", "at", "by", "from", "all", "any",
                      "attackers", "opponent", "opponents", "ai", "player", "players", "team", "you", "are", "be",
                      "will", "must", "should", "base", "get", "ready", "start", "starts", "stop", "has", "falls",
                      "fall", "win", "wins", "lose", "loses", "fail", "fails", "failed", "or", "else", "otherwise", "game", "ends", "end",
                      "over", "time", "prepare", "yourself", "good", "luck", "it", "before", "rts", "skirmish",
                      "match", "battle", "mini-game", "minigame", "test", "challenge", "setup", "set", "up", "quick",
                      "short", "simple", "small", "fun", "interesting", "real-time", "strategy", "objective", "task",
                      "goal", "mission", "note"}

# Words that say the family itself ("scout first, then defend:" in a raid defence): the scenario, nothing more.
_DEFEND = {"defend", "defence", "defense", "hold", "survive", "protect"}
_FAMILY_WORDS = {"defense": _DEFEND, "raids": _DEFEND, "siege": {"attack", "assault", "siege"},
                 "capture": {"capture", "take", "seize"},
                 "escort": {"escort", "arrive", "arrived", "arrives", "arrival", "reach", "reached", "reaches", "hasn't",
                            "haven't", "isn't"},
                 "recon": {"scout", "search", "find"},
                 "micro": {"fight", "skirmish"}, "ffa": {"fight", "brawl"}, "teams": {"fight"}}

# Which requirements evidence what a recognised phrase asks for (those the brief has).
KEY_IDS: dict[str, list[str]] = {
    "fronts": ["fronts", "directions"], "directions": ["directions", "fronts", "base_side", "zone_side"], "direction_times": ["front_times"],
    "front_order": ["front_order"], "staggered": ["staggered", "front_times", "front_order"],
    "waves": ["wave_times", "escalation", "growth", "probe_main", "interval", "enemy_attack"],
    "wave_times": ["wave_times", "enemy_attack", "front_times"], "interval": ["interval", "front_times"],
    "wave_units": ["wave_times", "enemy_attack", "interval", "escalation", "growth", "fronts", "raids", "garrison"],
    "escalating": ["escalation", "growth"], "wave_sizes": ["wave_sizes"], "probe": ["probe_main"], "random_side": ["fronts"],
    "scouting": ["scouting"], "random_timing": ["random_timing"], "attack_window": ["attack_window"],
    "objective": ["objective_loss", "destroy_win", "capture_win", "hold_zone", "raid_target"],
    "objectives": ["objective_loss", "destroy_win", "capture_win", "hold_zone", "raid_target"],
    "allied_bases": ["objective_loss", "staggered"],
    "time_limit": ["survive_win", "deadline_loss", "deadline", "ranking", "decisive", "capture_win",
                   "elimination_win", "eliminate_win"],
    "deadline": ["deadline", "deadline_loss", "eliminate_win"], "hold_time": ["hold_zone"], "air": ["air", "raid_domain"],
    "ground": ["raid_domain", "air"], "artillery_only": ["artillery_only"],
    "production_switch": ["no_production", "production_win", "settings"], "fog": ["settings"], "map": ["settings"],
    "equal_forces": ["teams", "team_count", "alliances"], "ranking": ["ranking", "decisive"], "raider": ["raider"],
    "production_target": ["production_win"], "raids": ["raids", "interval", "raid_target", "raid_domain"],
    "raid_target": ["raid_target"], "keep_count": ["objective_loss"], "raid_size": ["raid_size"], "fortification": ["fortification"], "theft": ["theft"], "safe_zone": ["safe_zone"], "protect": ["protect_unit"], "teams": ["alliances", "team_count"],
    "ffa_count": ["team_count", "ffa_no_allies", "teams"], "allies": ["alliances", "ffa_no_allies"],
    "difficulty": ["difficulty"], "ambush": ["ambush"], "destination": ["escort_arrival"],
    "escort_start": ["escort_arrival"], "escort_unit": ["escort_arrival"], "recon": ["locate_win", "hidden_targets"],
    "enemy_ai": ["enemy_attack", "enemy_attacks", "wave_times", "interval", "raids", "ambush", "fortification",
                 "hold_zone", "hidden_targets", "alliances", "team_count", "armies", "unopposed", "settings"],
    "start_forces": ["start_forces"], "unopposed": ["unopposed"], "fortification": ["fortification"],
    "side_armies": ["side_armies"], "elimination": ["elimination_win"],
    "micro": ["eliminate_win", "armies"], "armies": ["armies"], "losses": ["max_losses"], "kiting": ["armies"],
    "resource_goal": ["resource_win", "resource_idle", "deadline"], "resource_keep": ["resource_keep"],
    "reinforcements": ["reinforcements"], "garrison": ["garrison"],
}
CORE_IDS = {"defense": ["survive_win", "objective_loss"], "raids": ["survive_win", "objective_loss"],
            "production": ["production_win"], "ffa": ["team_count", "ranking", "teams"],
            "teams": ["alliances", "decisive"], "siege": ["destroy_win", "fortification"],
            "capture": ["capture_win", "hold_zone"], "escort": ["escort_arrival", "protect_unit"],
            "recon": ["locate_win", "hidden_targets"], "micro": ["eliminate_win", "armies"],
            "resources": ["resource_win", "resource_idle"]}
BUILT_CHARS = 100      # a requirement's text, as a partial clause's `built` quotes it
# A clause that states how the game is won or lost ("the alliance that loses both factories first loses") is
# honoured only when a phrase read in it sets an end of the game.
_OUTCOME = re.compile(r"\b(?:los(?:e|es|ing|t)|wins?|won|fail(?:s|ed)?|ends?\s+the\s+(?:game|run|match|round)|comes?\s+"
                      r"first|takes?\s+it|draws?|tied?|beaten|defeat(?:ed)?|victor(?:y|ious)|it'?s\s+over|game\s+over|"
                      r"crown|champion|succeed(?:s|ed)?|done\s+it)\b")
# Words of an attack: a time read as a wave's is one only when its clause names a side or an attack, or its
# sentence did before it ("the left camp gets hit at 1:30, the right one a minute later").
_ORDINAL_OPENS = re.compile(r"\W*(?:and\s+)?(?:then\s+)?(?:the\s+)?(?:first|second|third|fourth|fifth|sixth|last|final|"
                            r"next)\b")
_ATTACK = re.compile(r"\b(?:waves?|attack\w*|assault\w*|raid\w*|push\w*|columns?|strikes?|struck|hit|hits|knocks?|"
                     r"punch\w*|rush\w*|arriv\w*|lands?|inbound|incoming|counter\w*|part(?:y|ies)|bombers?|gunships?|"
                     r"squads?|troops|forces?|arm(?:y|ies)|enem(?:y|ies)|blows?|trickle|drip|come|comes|coming|"
                     r"spawns?|appears?|march\w*|advanc\w*|charg\w*|storm\w*|invad\w*|bots|tanks|aircraft)\b")
_OUTCOME_KEYS = {"archetype", "time_limit", "deadline", "hold_time", "protect", "objective", "objectives",
                 "production_target", "ffa_count", "ranking", "micro", "losses", "escort_unit", "destination", "recon",
                 "raid_target", "teams", "safe_zone", "armies", "resource_goal", "resource_keep", "elimination", "keep_count"}
# Phrases that name something without asking for anything on their own ("the outposts", "the river").
_WEAK = {"objective", "map", "ground"}
# Words that are articles or vague amounts far more often than counts ("a wave", "both sides").
_NOT_COUNTS = {"a", "an", "one", "single", "both", "couple", "few", "many", "several", "multiple"}


def cuts(text: str) -> list[int]:
    """Where clauses start in the normalised request (0 first)."""
    points = {0}
    for m in re.finditer(r"[;:.!?,](?= )", text):
        before = re.findall(r"[\w'-]+", text[:m.start()])[-1:] or [""]
        after = re.findall(r"[\w'-]+", text[m.end():])[:1] or [""]
        if m.group(0) == "," and _same_list(before[0], after[0]):
            continue
        if m.group(0) == "." and re.search(r"\b(?:e\.g|i\.e|etc|vs)$", text[:m.start()]):
            continue
        points.add(m.end() + 1)
    for m in _CONNECTORS.finditer(text):
        word = m.group(1)
        if word == "and":
            nxt = text[m.end():].split(" ", 1)[0]
            if nxt not in _AND_STARTS:
                continue
        if word == "then" and text[:m.start()].endswith(" and"):
            continue
        points.add(m.start() + 1)
    return sorted(p for p in points if p < len(text))


def _same_list(before: str, after: str) -> bool:
    """A comma inside a list of sides or numbers ("west, north and east", "at 1, 3 and 5 minutes")."""
    return (before in _LIST_WORDS and after in _LIST_WORDS) or (before.isdigit() and after.isdigit())


def _words(segment: str) -> list[str]:
    return re.findall(r"[a-z0-9][a-z0-9'-]*", segment)


def segments(text: str, whole: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """The normalised request cut into clauses; a segment of filler words joins the next one. Each span
    of `whole` (a forbidden ask) is one clause of its own: cut where it starts and never inside it."""
    points = cuts(text)
    for a, b in whole or []:
        points = sorted({p for p in points if not a < p < b} | {a} | ({b + 1} if b + 1 < len(text) else set()))
    points = points + [len(text)]
    spans = [(a, b) for a, b in zip(points, points[1:])]
    merged: list[tuple[int, int]] = []
    carry: int | None = None
    for a, b in spans:
        if carry is not None:
            a, carry = carry, None
        if all(w in _FILLER for w in _words(text[a:b])) and (a, b) != spans[-1]:
            carry = a
            continue
        merged.append((a, b))
    if merged and carry is not None:
        merged[-1] = (merged[-1][0], len(text))
    if len(merged) > 1 and all(w in _FILLER for w in _words(text[merged[-1][0]:merged[-1][1]])):
        last = merged.pop()
        merged[-1] = (merged[-1][0], last[1])
    # a bare verdict ("..., or your commander dies, you've lost.") is the end of the condition before it
    joined: list[tuple[int, int]] = []
    for a, b in merged:
        if joined and _VERDICT.match(text[a:b]) and not re.search(r"[.!?]\s*$", text[joined[-1][0]:joined[-1][1]]):
            joined[-1] = (joined[-1][0], b)
        else:
            joined.append((a, b))
    return joined or [(0, len(text))]


_VERDICT = re.compile(r"\s*(?:then\s+|and\s+)?(?:you(?:'ve|\s+have)?\s+(?:lost|won|lose|win|failed|fail)(?:\s+the\s+game)?|"
                      r"(?:it'?s|it\s+is|that'?s|that\s+is)\s+(?:over|game\s+over|a\s+(?:loss|win|draw|defeat|victory))|"
                      r"game\s+over|anything\s+(?:less|else|short\s+of\s+that)\s+(?:is\s+)?(?:a\s+)?(?:loss|defeat))"
                      r"(?:\s+(?:too|as\s+well|also))?\s*[.!;,]*\s*$")


def account(query: str, reading: Reading, requirements: list[Requirement], archetype: str) -> list[ClauseAccount]:
    """Each clause of `query` with its status, the requirements that check it and why."""
    if not query:
        return []
    text, offsets = reading.text, reading.offsets
    if not reading.is_game or not text:
        return [ClauseAccount(text=query, start=0, end=len(query), status="not_honoured",
                              why=reading.refusal or "not a game request")]
    have = {r.id: r.text for r in requirements}
    spans = _lead_ins_joined(text, segments(text, [(h.start, h.end) for h in reading.hits if h.key == "forbidden"]),
                             reading.hits)
    out = []
    for i, (a, b) in enumerate(spans):
        start = 0 if i == 0 else offsets[a]
        end = len(query) if i == len(spans) - 1 else offsets[spans[i + 1][0]]
        hits = [h for h in reading.hits if h.start < b and h.end > a]
        before = re.split(r"[.;!?]", text[:a])[-1]
        # "4 waves. 30s apart. first at the 1-minute mark.": an ordinal opening a clause is an attack named before
        ordinal = _ORDINAL_OPENS.match(text, a) and _ATTACK.search(text[:a])
        out.append(_status(query[start:end], start, end, text[a:b], hits, have, archetype, text,
                           _unread(query, a, b, reading), _unpaired(a, b, reading),
                           bool(_ATTACK.search(before) or ordinal),
                           _thin(text, a, b, hits, archetype), _unheard(text, a, b, hits, archetype, reading)))
    return _continuations_capped(out, text, spans, have)


def _lead_ins_joined(text: str, spans: list[tuple[int, int]], hits: list[Hit]) -> list[tuple[int, int]]:
    """Spans with each lead-in joined to the span it leads into: a span of generic words only, nothing read in
    it, that ends with no punctuation ("and all you start | with 3 turrets", "the player | and the AI each get 6
    tanks") says nothing alone, and honoured alone it would claim what the rest of its phrase does not build."""
    out: list[tuple[int, int]] = []
    carry = None
    for a, b in spans:
        if carry is not None:
            a, carry = carry, None
        read = any(h.start < b and h.end > a for h in hits)
        generic = all(w in _GENERIC for w in _words(text[a:b]))
        if not read and generic and b < len(text) and not re.search(r"[,;:.!?)\]-]\s*$", text[a:b]):
            carry = a
            continue
        out.append((a, b))
    return out      # the last span ends the text: it never leads into another


# A clause read through a few of its words only ("play ranked StarCraft II ladder games on my real account":
# "ranked") is not honoured as a whole: at most THIN_SHARE of its content words read, with THIN_WORDS or more not
THIN_SHARE, THIN_WORDS = 0.25, 4
_STOP = {"if", "when", "as", "its", "his", "her", "each", "every", "there", "than", "out", "off", "into", "onto", "who",
         "what", "do", "does", "did", "was", "were", "been", "being", "just", "only", "very", "too", "more", "most",
         "less", "least", "after", "until", "till", "through", "about", "around", "these", "those", "it's", "you're",
         "they're", "there's", "that's", "matter", "whatever", "regardless", "you've", "we've",
         # how a length of time is framed ("a ten-minute cap", "six minutes max", "for a full 100 seconds")
         "cap", "capped", "max", "maximum", "tops", "limit", "cutoff", "cut-off", "clock", "mark", "runs", "lasts",
         "full", "total", "whole", "entire", "happen", "happens", "period", "span", "duration", "length", "flat",
         "sharp", "hard", "strict", "straight", "running", "solid",
         # politeness ("it would be appreciated if ... could be")
         "appreciated", "could", "would", "kindly", "grateful", "ideally", "perhaps", "maybe",
         # the outcome the time brings ("if nine minutes go by first, it's a loss")
         "first", "loss", "defeat", "victory", "thing"}   # beside _GENERIC's words


def _thin(text: str, a: int, b: int, hits: list[Hit], archetype: str) -> str:
    """The clause's unread content words when the reading covers too few of them ("" when it covers enough)."""
    said = _GENERIC | _STOP | _PLAIN | _FAMILY_WORDS.get(archetype, set())
    words = [m for m in re.finditer(r"[a-z][a-z'.-]*[a-z]", text[a:b]) if m.group(0) not in said and len(m.group(0)) > 2]
    unread = [m.group(0) for m in words if not any(h.start < a + m.end() and a + m.start() < h.end for h in hits)]
    if len(unread) >= THIN_WORDS and len(words) - len(unread) <= THIN_SHARE * len(words):
        return " ".join(unread)
    # a clause read only for its time ("reduce it to rubble before 8:30") says more than how long the game is
    if unread and {h.key for h in hits if h.key not in _WEAK} <= _TIMING:
        return " ".join(unread)
    # a comparison no reading took in ("every push is meaner than the last", "the second wave is tougher") says
    # how the attacks differ: without it the clause is not built as asked
    compared = [m for m in _COMPARED.finditer(text[a:b])
                if not any(h.start < a + m.end() and a + m.start() < h.end for h in hits)]
    if compared:
        return " ".join(m.group(0) for m in compared)
    # a clause read only for its family's word ("so I have a one minute window to push their base": "push") asks
    # what the words around it say
    if len(unread) >= 2 and {h.key for h in hits if h.key not in _WEAK} == {"archetype"} \
            and all(" " not in text[h.start:h.end].strip() for h in hits if h.key == "archetype"):
        return " ".join(unread)
    return ""


# Words an unread stretch of a clause may hold without asking for anything the reading missed: how attacks
# come and when ("roll in", "roughly", "later"), where they come from ("flank", "edges"), who ("faction",
# "everyone"), and how people type ("gimme", "kinda"). Any other content word nothing read ("hill", "entirely",
# "alliance ... turns", "patrols") asks for something: its clause is at most partial.
_PLAIN = {
    # how and when attacks come
    "come", "comes", "coming", "came", "arrive", "arrives", "arriving", "arrival", "pour", "pours", "pouring",
    "roll", "rolls", "rolling", "send", "sends", "sending", "sent", "hit", "hits", "hitting", "strike", "strikes",
    "attacked", "attacking", "show", "shows", "showing", "head", "heads", "heading", "keep", "keeps", "kept",
    "later", "earlier", "between", "roughly", "approximately", "about", "around", "apart", "again", "another",
    "next", "last", "previous", "then", "afterwards", "finally", "soon", "once", "second", "seconds", "minute",
    "minutes", "start", "starting", "starts", "begin", "begins", "beginning", "onwards", "onward", "interval",
    "intervals", "wave", "waves", "alternate", "alternates", "alternating", "periodic", "periodically", "whenever",
    "moment", "new", "follows", "follow", "following", "commits", "size", "sizes", "hunting", "specifically",
    "tests", "test", "warned", "asap", "defences", "defenses", "whether", "pokes", "poke", "poking", "probing",
    "deadline", "deadlines", "timer", "says",
    # where from
    "flank", "flanks", "side", "sides", "edge", "edges", "direction", "directions", "front", "fronts", "way",
    "gate", "gates", "stronghold", "strongholds", "fortress", "fort", "camp", "camps", "somewhere", "dark", "open",
    # who
    "faction", "factions", "team", "teams", "unit", "units", "group", "groups", "everyone", "everybody", "anyone",
    "nobody", "ais", "cpu", "computer", "bots", "guys", "side's", "player's", "enemy's", "itself", "themselves",
    "other", "others", "each", "both", "either", "neither", "whoever", "whichever", "her", "him", "his", "hers",
    "she", "they", "them", "guard", "guards", "guarding", "bodyguards", "armoured", "armored",
    # what the family already says (a loss, a win, holding on)
    "not", "nothing", "else", "die", "dies", "killed", "kill", "kills", "alive", "standing", "intact", "won",
    "lost", "hang", "onto", "stay", "rank", "ranks", "ranked", "racks", "take", "takes", "taking", "reach",
    "reaches", "reached", "drive", "driven", "sits", "sit", "sitting", "fend", "fending", "own", "rest", "past",
    "back", "hide", "hides", "hidden", "hiding", "down", "up", "watch", "watches", "versus", "using", "use",
    "mixed", "likes", "plays", "play", "duty", "carefully",
    # how people type
    "gimme", "gotta", "wanna", "gonna", "hafta", "kinda", "sorta", "pls", "plz", "thx", "yo", "lol", "ok", "okay",
    "idk", "expect", "see", "try", "let", "lets", "really", "pretty", "style", "type", "sort", "some", "get", "got",
    "gets", "give", "given", "gives", "has", "have", "had", "need", "needs", "needed", "want", "wants", "can",
    "cannot", "can't", "don't", "doesn't", "won't", "go", "goes", "going", "went", "make", "makes", "made", "put",
    "set", "still", "also", "even", "yet", "now", "here", "there", "where", "which", "whose", "while",
    # flavour
    "chaotic", "royale", "epic", "intense", "classic", "standard", "basic", "normal", "typical",
}


@lru_cache(maxsize=1)
def _unit_words() -> frozenset[str]:
    """Every word of a unit's name or synonym (a unit named is read by the reader's unit phrases)."""
    return frozenset({w for names in V.UNIT_KIND_TRIGGERS.values() for name in names for w in name.split()}
                     | {w for name in roster_names() for w in name.split()})


def _unheard(text: str, a: int, b: int, hits: list[Hit], archetype: str, reading: Reading) -> str:
    """The content words of text[a:b] no phrase read and that say more than how the clause is put (see _PLAIN):
    what they ask was not built ("" when there are none)."""
    said = _GENERIC | _STOP | _PLAIN | _FAMILY_WORDS.get(archetype, set()) | _LIST_WORDS | set(V.NUMBER_WORDS)
    named = _unit_words()
    words = [m for m in re.finditer(r"[a-z][a-z'-]*[a-z]", text[a:b])
             if m.group(0) not in said and m.group(0) not in named and not _ATTACK.fullmatch(m.group(0))
             and len(m.group(0)) > 2]
    return " ".join(dict.fromkeys(m.group(0) for m in words
                                  if not any(h.start < a + m.end() and a + m.start() < h.end for h in hits)))


# A clause that goes on from the one before it ("but my ally's base is hammered | and if it goes down i lose
# too", "rotates (infantry, | then tanks, | then aircraft") speaks of what that clause named: when that clause
# is not built, neither is it in full.
_GOES_ON = re.compile(r"\s*(?:(?:and|but|or|so)\s+)?(?:(?:if|when|once|unless)\s+)?(?:it|they|them|he|she|this|that|"
                      r"these|those|its|their|his|her)\b")
_LIST_ITEM = re.compile(r"\s*(?:and\s+)?(?:then|or)\s+(?P<item>(?:[\w-]+\s*){1,3})[,)]?\s*$")


def _goes_on(segment: str) -> bool:
    """The clause points back (a pronoun opens it) or is one more item of a list ("then aircraft,")."""
    if _GOES_ON.match(segment):
        return True
    item = _LIST_ITEM.match(segment)
    named = _unit_words() | set(V.NUMBER_WORDS) | {"the", "a", "an", "more", "some"}
    return bool(item) and all(w in named or w.isdigit() for w in _words(item.group("item")))


def _continuations_capped(out: list[ClauseAccount], text: str, spans: list[tuple[int, int]],
                          have: dict[str, str]) -> list[ClauseAccount]:
    """`out` with each clause that goes on from a clause not honoured (in the same sentence) taken down."""
    for i in range(1, len(out)):
        prev, cur = out[i - 1], out[i]
        a, b = spans[i]
        if prev.status != "not_honoured" or cur.status == "not_honoured" \
                or not _goes_on(text[a:b]) or re.search(r"[.!?;]\s*$", text[spans[i - 1][0]:spans[i - 1][1]]):
            continue
        why = f"it goes on from \"{prev.text.strip(' ,;:.!?')}\", which is not honoured"
        if cur.requirement_ids:
            out[i] = cur.model_copy(update={"status": "partial", "why": why,
                                            "built": cur.built or _built(cur.requirement_ids, have)})
        else:
            out[i] = cur.model_copy(update={"status": "not_honoured", "why": why})
    return out


_COMPARED = re.compile(r"\b(?:[a-z]+er|more\s+[a-z]+|worse)\s+than\s+(?:the\s+)?(?:last|previous|one\s+before(?:\s+it)?|"
                       r"first|before|ever)\b")


_TIMING = {"time_limit", "deadline"}


def _subject_words() -> re.Pattern:
    """A count (digits or a number word) or the name of a unit type, as whole words."""
    names = sorted(roster_names(), key=len, reverse=True)
    counts = [w for w in V.NUMBER_WORDS if w not in _NOT_COUNTS]
    return re.compile(r"(?<![\w:.-])(?:\d+(?:\.\d+)?|" + "|".join(map(re.escape, counts + names)) + r")(?![\w-])")


_SUBJECTS = _subject_words()


def _unread(query: str, a: int, b: int, reading: Reading) -> list[str]:
    """The counts and unit names in text[a:b] that no recognised phrase touches: what the clause asks of them
    was not read, so the clause cannot be honoured as a whole ("keep all three of your constructors
    breathing" read only as a deadline). A unit kind the reader took for the enemy's forces ("enemy bots")
    is read. Each as the request writes it ("twenty", not the "20" it was read as)."""
    kinds = {w for k in reading.concepts.unit_kinds for w in V.UNIT_KIND_TRIGGERS.get(k, [])}
    at = reading.offsets
    return list(dict.fromkeys(query[at[m.start()]:at[m.end()] if m.end() < len(at) else len(query)].rstrip(" ,;:.!?")
                              for m in _SUBJECTS.finditer(reading.text, a, b) if m.group(0) not in kinds
                              and not any(h.start < m.end() and m.start() < h.end for h in reading.hits)))


def _unpaired(a: int, b: int, reading: Reading) -> str:
    """When text[a:b] times an attack from a named side ("waves from the west at 1:00 and 3:00") and the
    reading did not tie those times to that side, what was kept and what was not ("" when tied or untimed)."""
    c = reading.concepts
    spans = {(h.start, h.end) for h in reading.hits if h.key == "directions" and a <= h.start < b}
    named = [(reading.text[s:e], side) for s, e, side in reading.sides if (s, e) in spans]
    times = [s for start, _, s in reading.moments if a <= start < b]
    if not named or not times:
        return ""
    codes = {side for _, side in named}
    # the designer sends the named sides in order at the read times when there are as many of each, and
    # every attack from the one side when only one is named
    times_of = c.direction_times or (c.wave_times if len(c.wave_times) == len(c.directions) else [])
    tied = {(d, t) for d, t in zip(c.directions, times_of)}
    if len(set(c.directions)) == 1:
        tied |= {(c.directions[0], t) for t in c.wave_times}
    if all(any((d, t) in tied for d in codes) for t in times):
        return ""
    shown = ", ".join(clock(t) for t in times)
    return f"the times ({shown}) are kept but not the side each attack comes from " \
           f"({', '.join(dict.fromkeys(w for w, _ in named))})"


def _ids(keys: list[str], have: dict[str, str], archetype: str) -> list[str]:
    ids: list[str] = []
    for key in keys:
        for rid in KEY_IDS.get(key, []) if key != "archetype" else CORE_IDS.get(archetype, []):
            if rid in have and rid not in ids:
                ids.append(rid)
    return ids


def _built(ids: list[str], have: dict[str, str]) -> str:
    """What a partial clause's requirements check, each requirement's text cut at BUILT_CHARS."""
    return "; ".join(have[i] if len(have[i]) <= BUILT_CHARS else have[i][:BUILT_CHARS - 1] + "…" for i in ids)


def _status(verbatim: str, start: int, end: int, segment: str, hits: list[Hit], have: dict[str, str],
            archetype: str, text: str, unread: list[str], unpaired: str, attack_before: bool,
            thin: str = "", unheard: str = "") -> ClauseAccount:
    def clause(status: str, ids: list[str] | None = None, why: str = "", built: str = "") -> ClauseAccount:
        return ClauseAccount(text=verbatim, start=start, end=end, status=status,  # type: ignore[arg-type]
                             requirement_ids=ids or [], why=why, built=built)

    problems = list(dict.fromkeys(h.problem for h in hits if h.problem))
    if problems:
        # a capped demand is built within its cap: what its requirements check was built, the rest was not
        ids = _ids([h.key for h in hits], have, archetype)
        if ids:
            return clause("partial", ids, "; ".join(problems), built=_built(ids, have))
        return clause("not_honoured", why="; ".join(problems))
    strong = [h.key for h in hits if h.key not in _WEAK]
    if not strong and any(h.key == "objective" for h in hits) and set(_words(segment)) & _FAMILY_WORDS.get(archetype, set()):
        strong = ["objective"]      # "hold the outpost": the family's own verb on the objective it keeps
    said = set(_words(segment)) - _GENERIC
    if not strong and any(h.key == "map" for h in hits) and said <= {w for h in hits if h.key == "map"
                                                                      for w in _words(text[h.start:h.end])}:
        strong = ["map"]            # a clause that only names the map ("...; open_field"): the map is the setting
    shown = segment.strip(" ,;:.!?")
    if "wave_times" in strong and "directions" not in strong and not attack_before and not _ATTACK.search(segment):
        # "the base has to be standing at five minutes": a time, but no attack happens at it
        misread = ", ".join(dict.fromkeys(f"\"{text[h.start:h.end].strip(' ,;:.!?')}\"" for h in hits
                                          if h.key == "wave_times"))
        why = f"{misread} was read as the time of an attack, but the clause names no attack"
        strong = [k for k in strong if k != "wave_times"]
        ids = _ids(strong, have, archetype)
        if not ids:
            return clause("not_honoured", why=why + f"; nothing was built for \"{shown}\"")
        return clause("partial", ids, why, built=_built(ids, have))
    if not strong and not all(w in _GENERIC | _FAMILY_WORDS.get(archetype, set()) for w in _words(segment)):
        return clause("not_honoured", why=f"the offline backend does not understand \"{shown}\"; nothing was built "
                                          "for it")
    ids = _ids(strong or ["archetype"], have, archetype)
    if not ids:
        return clause("not_honoured", why=f"\"{shown}\" was recognised but a {archetype} scenario has no "
                                          "requirement that can show it")
    # honoured only when every phrase read in it is checked by a requirement: the rest is reported
    outcome = _OUTCOME.search(segment)
    # ... by a phrase this scenario checks: "the first alliance to lose both its factories loses" reads the
    # factories, but a teams game that ends on the last alliance with units never looks at them
    if outcome and not any(h.key in _OUTCOME_KEYS and _ids([h.key], have, archetype) for h in hits):
        return clause("partial", ids, f"the win or loss condition it states (\"{outcome.group(0)}\") is not built",
                      built=_built(ids, have))
    # a phrase read twice ("the enemy commander": a raider and the target) is built when one reading is
    built = [h for h in hits if _ids([h.key], have, archetype)]
    unbuilt = list(dict.fromkeys(text[h.start:h.end].strip(" ,;:.!?") for h in hits if h.key not in _WEAK
                                 and not any(b.start <= h.start and h.end <= b.end for b in built)))
    if unbuilt:
        return clause("partial", ids, "nothing in a " + archetype + " scenario checks "
                      + ", ".join(f"\"{u}\"" for u in unbuilt), built=_built(ids, have))
    if unpaired:
        return clause("partial", ids, unpaired, built=_built(ids, have))
    if unread:
        return clause("partial", ids, "the offline backend read nothing for " + ", ".join(f"\"{u}\"" for u in unread)
                      + " here: what the clause asks of them was not built", built=_built(ids, have))
    if thin:
        return clause("partial", ids, f"the offline backend read only a few words of this clause; \"{thin}\" was not "
                                      "read and is not built", built=_built(ids, have))
    if unheard:
        return clause("partial", ids, f"the offline backend did not read \"{unheard}\" here: what it asks is not "
                                      "built", built=_built(ids, have))
    notes = list(dict.fromkeys(h.note for h in hits if h.note))
    if notes:
        return clause("assumed", ids, "; ".join(notes))
    return clause("honoured", ids)


def unsupported_lines(clauses: list[ClauseAccount]) -> list[str]:
    """The "Not honoured" lines for the clauses not honoured, or honoured only in part."""
    return [f"\"{c.text.strip(' ,;:.!?')}\": {c.why}" for c in clauses if c.status in ("partial", "not_honoured")]
