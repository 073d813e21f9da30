"""What the free-for-all and team-battle requests say about every side rather than the player alone: each
side's start army ("each team starts with a commander and 8 light tanks", "the two enemy teams each get 6
assault bots") and a game decided by elimination ("wipe out both enemy teams", "the last team with a living
commander wins"), as opposed to a ranking at the time limit."""
from __future__ import annotations

import re

from genesis.offline import vocabulary as V

_NUM = r"(\d+|an?|" + "|".join(sorted(V.NUMBER_WORDS, key=len, reverse=True)) + r")"
_ITEM = _NUM + r"\s+((?:[\w-]+\s+){0,2}?[\w-]+)"
_LIST = r"((?:(?:and\s+|plus\s+)?" + _ITEM + r"(?:\s*,\s*|\s+and\s+|\s+plus\s+|\s*(?=[;.:,]|$)|(?=\s+(?:each|apiece)\b)))+)"
_GETS = (r"(?:(?:starts?|starting|begins?|beginning)\s+(?:(?:out|off)\s+)?with|gets?|getting|has|have|having|is\s+given|"
         r"are\s+given|fields?|fielding|spawns?\s+with|receives?|receiving|commands?|commanding|brings?|bringing|"
         r"(?:is\s+|are\s+)?(?:given|handed|issued|allotted|dealt|equipped\s+with|armed\s+with))")
_SIDE = r"(?:teams?|armies|army|sides?|players?|factions?|warlords?|camps?|clans?|nations?|empires?)"
# whose army a statement gives: every side's, the player's alliance's, or each enemy side's
_ALL = re.compile(r"(?:(?:\b(?:each|every)\s+(?:(?:one\s+)?of\s+the\s+(?:\w+\s+)?)?" + _SIDE +
                  # "every one of us begins with", "everybody starts out with", "we each get", "five AI players,
                  # each fielding", "all of them start with"
                  r"|\b(?:(?:each|every)\s+(?:one\s+)?of\s+(?:us|them|you)|everybody|everyone|all\s+of\s+(?:us|them)|"
                  r"(?:we|they)(?:\s+all)?\s+each|(?:we|they)\s+all)"
                  r"|\b" + _SIDE + r"\s*,?\s+each(?:\s+one)?)\s+" + _GETS
                  # "each side with 12 light tanks", "two hostile computer players, each with six light tanks"
                  + r"|\b(?:each|every)\s+" + _SIDE + r"\s+with|\b" + _SIDE + r"\s*,\s*each(?:\s+one)?\s+with"
                  # "eight armies, every one for itself, each fielding four heavy tanks"
                  + r"|\beach(?:\s+one)?\s+(?=" + _GETS + r")" + _GETS
                  # "each army a commander plus four assault bots", "everyone on fixed armies of 8 light bots"
                  + r"|\b(?:each|every)\s+" + _SIDE + r"(?=\s+(?:an?\s|\d|" + "|".join(V.NUMBER_WORDS) + r"))"
                  + r"|\b(?:everyone|everybody|all\s+(?:the\s+)?" + _SIDE + r")\s+(?:on|with|gets?|has|have|fields?)\s+"
                  r"(?:(?:fixed|equal|identical|matching|mirrored|the\s+same|same)\s+)?(?:armies|forces|armies|starts?|"
                  r"squads?)\s+of)\s+" + _LIST)
_OURS = re.compile(r"\b(?:the\s+player|you|i|me)\s+and\s+(?:(?:an?|\w+)\s+)?(?:ai\s+|computer\s+|ai-controlled\s+)?"
                   r"(?:all(?:y|ies)|teammates?|partners?|friends?)\s+each\s+" + _GETS + r"\s+" + _LIST)
_THEIRS = re.compile(r"\b(?:(?:the\s+)?(?:\w+\s+)?(?:enemy|rival|opposing|hostile)\s+(?:ai\s+)?" + _SIDE + r"\s+each|"
                     r"(?:each|every)\s+(?:enemy|rival|opposing|hostile)\s+(?:ai\s+)?" + _SIDE + r")\s+" + _GETS
                     + r"\s+" + _LIST)

# a list every side gets, said by "apiece" after it: "everyone starts equal: a commander and six light tanks apiece"
_APIECE = re.compile(r"(?<![\w-])" + _LIST + r"\s*(?:apiece|each|for\s+(?:each|every)\s+(?:one|side|team|player|army))\b")
_OWNED = re.compile(r"\b(?:you|your|my|i|me|we|our|us|enemy|enemies|their|they|them|rivals?|opponents?|hostiles?)\b")

# ... with "each" after the list: "both enemy teams field 6 light tanks each"
_THEIRS_EACH = re.compile(r"\b(?:the\s+)?(?:\w+\s+)?(?:enemy|rival|opposing|hostile)\s+(?:ai\s+)?" + _SIDE + r"\s+" + _GETS
                          + r"\s+" + _LIST + r"(?=\s*(?:each|apiece)\b)")

# a side is out once its commander(s) die
_BY_COMMANDERS = re.compile(
    r"\blast\s+(?:team|side|army|player|alliance|one|faction|warlord)\s+with\s+(?:an?\s+)?(?:living|surviving|live)\s+"
    r"commanders?\b|"
    r"\b(?:los(?:es|e)|is\s+(?:out|eliminated|beaten|defeated|done|finished))\s+(?:when|once|if|as\s+soon\s+as)\s+"
    r"(?:(?:all|both|every\s+one)\s+(?:\w+\s+)?(?:of\s+)?)?(?:its|their|his|her)\s+(?:\w+\s+)?commanders?\s+"
    r"(?:(?:are|is|has|have|has\s+been|have\s+been)\s+)?(?:dead|killed|destroyed|dies?|died|fall(?:s|en)?|lost)\b|"
    # "the last commander alive wins", "whose commander survives longest", "the side whose commander breathes last"
    r"\blast\s+commander\s+(?:alive|standing|left|breathing)\b|"
    # "whichever pair still has a commander breathing wins", "the side that keeps its commander alive wins"
    r"\b(?:whichever|the)\s+(?:pair|side|team|alliance|trio|duo|army|faction)\s+(?:that\s+)?(?:still\s+)?(?:has|keeps|holds)\s+"
    r"(?:an?|its|their|a\s+living)\s+commanders?\s+(?:alive|breathing|standing|left|intact)?\s*(?:at\s+the\s+end\s+)?wins\b|"
    # "whoever's commander is last alive takes it", "the faction whose commander stays alive last"
    r"\b(?:whoever'?s|whose)\s+commanders?\s+(?:is|stays|remains|are|stay|remain)\s+(?:the\s+)?(?:last\s+(?:one\s+)?"
    r"(?:alive|standing|left|breathing)|alive\s+(?:the\s+)?(?:last|longest))\b|"
    r"\bwhose\s+commanders?\s+(?:survives?|lives?|lasts?|breathes?|holds?\s+out|stays?\s+alive)\s+(?:the\s+)?"
    r"(?:longest|last)\b|"
    # "whoever's commander outlives all the others"
    r"\b(?:whoever'?s|whose|the\s+side\s+whose|the\s+player\s+whose)\s+commanders?\s+(?:outlives?|outlasts?|survives?)\s+"
    r"(?:all\s+)?(?:the\s+)?(?:others?|rest|every\s+other(?:\s+one)?)\b|"
    r"\bcommanders?\s+(?:dies?|falls?|is\s+(?:killed|destroyed|dead))[^.;]{0,40}?\b(?:los(?:es|e)|out|eliminated)\b|"
    r"\b(?:kill|destroy|eliminate|take\s+out)\s+(?:all|every|each|both)\s+(?:of\s+)?(?:the\s+)?(?:\w+\s+)?enemy\s+"
    r"commanders?\b|"
    # "win when both enemy commanders are dead", "the last alliance with a commander still alive wins"
    r"\b(?:all|both|every|each)\s+(?:of\s+)?(?:(?:the\s+)?(?:\w+\s+)?enemy|their)\s+commanders?\s+(?:are\s+|is\s+)?(?:dead|"
    r"killed|destroyed|down|gone|fallen|eliminated)\b|"
    r"\blast\s+(?:team|side|army|alliance|player|faction)\s+with\s+(?:an?\s+|its\s+|their\s+)?commanders?\s+(?:still\s+)?"
    r"(?:alive|standing|breathing|left)\b")
# a side is out once every unit of it is destroyed
_BY_UNITS = re.compile(
    r"\b(?:wipe\s+out|destroy|eliminate|annihilate|exterminate|crush|kill\s+off)\s+(?:all|every|each|both|all\s+the|"
    r"the\s+(?:two|three|other))\s+(?:\w+\s+)?(?:enemy\s+|rival\s+|other\s+)?(?:teams?|sides?|armies|alliances?|"
    r"enemies|units|opponents|rivals|factions)\b|"
    r"\blast\s+(?:team|side|army|alliance|one|faction|player|pair|duo|trio|man|woman|crew|squad)\s+(?:left\s+)?standing\b|"
    r"\buntil\s+(?:only\s+)?one\s+(?:[\w-]+\s+)?(?:remains|is\s+left|survives|stands)\b|"
    # "the side still fielding units when everyone else is gone takes it", "whoever still has units at the end"
    r"\b(?:the\s+)?(?:side|team|army|alliance|one|faction|player|whoever)\s+(?:that\s+)?(?:still\s+)?(?:fielding|with|"
    r"having|has|have|holding)\s+(?:any\s+)?(?:units|troops|an\s+army|forces)\s+(?:left\s+)?(?:when|once|after)\s+"
    r"(?:everyone|everybody|every\s+other\s+(?:side|army|team)|all\s+the\s+others?|the\s+(?:rest|others))\s+(?:else\s+)?"
    r"(?:is|are|has|have)\s+(?:gone|dead|wiped\s+out|eliminated|out|been\s+wiped\s+out)\b|"
    # "whoever has units left at the end wins": every side with nothing left is out
    r"\bwhoever\s+(?:still\s+)?(?:has|holds|keeps|is\s+left\s+with)\s+(?:any\s+)?(?:units|troops|forces|an\s+army)\s+(?:left|"
    r"standing|alive)?\s*(?:at\s+the\s+end|when\s+(?:it|the\s+\w+)\s+ends)\s+wins\b|"
    r"\b(?:the\s+)?(?:side|team|army|alliance|one)\s+(?:that\s+is\s+)?left\s+with\s+no\s+units(?:\s+at\s+all)?\s+"
    r"(?:is|gets)\s+(?:beaten|out|eliminated|defeated)\b|"
    # "the first alliance to lose all its units loses"
    r"\bthe\s+first\s+(?:side|team|army|alliance|faction)\s+to\s+lose\s+(?:all|every\s+one\s+of)\s+(?:of\s+)?(?:its\s+|their\s+)?"
    r"(?:units|troops|forces)\s+(?:loses|is\s+out|is\s+beaten)\b")


# the same elimination said of the player's side: "and we lose if both of ours are", "and vice versa"
_MIRRORED = re.compile(r"\b(?:we|you|i)\s+lose\s+(?:if|when|once)\s+(?:both|all|every\s+one|each)\s+of\s+(?:ours|mine|"
                       r"yours|(?:our|my|your)\s+(?:own\s+)?(?:commanders?|units|teams?|sides?))\b(?:\s+(?:are|is|do|die|"
                       r"dead|gone|killed|destroyed|wiped\s+out)\b)*|\b(?:and\s+)?vice\s+versa\b|"
                       r"\bthe\s+same\s+(?:goes|holds|applies)\s+(?:for|to)\s+(?:us|you|me|our\s+side|your\s+side)\b")
# all sides alike, said apart from the list: "everyone starts equal", "identical armies", "mirrored forces"
_EQUAL = re.compile(r"\b(?:everyone|everybody|all\s+(?:sides|teams|players|armies)|each\s+side|both\s+sides)\s+"
                    r"(?:starts?|begins?|is|are|gets?)\s+(?:out\s+)?(?:equal|even|the\s+same|identical|alike|on\s+equal\s+"
                    r"footing)\b|\b(?:identical|mirrored|mirror|equal|matching|symmetric)\s+(?:armies|forces|starts|"
                    r"squads|setups?)\b")


def _army(r, m: re.Match, roster: dict[str, str], unit_pattern: str, number) -> dict[str, int]:
    """The roster units of a statement's list, hit as `side_armies` when every item is one."""
    army: dict[str, int] = {}
    for item in re.finditer(_ITEM + r"(?=\s*,|\s+and\b|\s+plus\b|\s*[;.:]|\s*$|\s+(?:each|apiece)\b)", m.group(1)):
        words = item.group(2)
        named = re.match(unit_pattern, words)
        if not (named and named.end() == len(words.rstrip())):
            return {}
        type_id = roster[named.group(1)]
        army[type_id] = army.get(type_id, 0) + int(number(item.group(1)))
    if army:
        r.hit(m, "side_armies")
    return army


def read(r, roster: dict[str, str], unit_pattern: str, number) -> None:
    """Each side's start army and the elimination a free-for-all or team battle is decided by."""
    c, text = r.concepts, r.text
    if c.archetype not in ("ffa", "teams"):
        return
    # sides counted here are the battle's teams, never attack fronts: "each of the four sides starts with"
    c.fronts = None
    r.hits = [h for h in r.hits if h.key != "fronts"]
    # a battle has no waves: a moment it names ("at the ten-minute mark sides are ranked") is its end
    if c.wave_times and not any(h.key in ("waves", "interval") for h in r.hits):
        c.time_limit = c.time_limit or max(c.wave_times)
        c.wave_times = []
        for h in r.hits:
            if h.key == "wave_times":
                h.key = "time_limit"
    # nor objectives: "no base building" names no storage to keep, a commander is the elimination's
    c.objective_type = None
    r.hits = [h for h in r.hits if h.key != "objective"]
    ours = []
    # an "apiece" list whose clause names no owner is every side's
    apiece = [m for m in _APIECE.finditer(text)
              if not _OWNED.search(text[max(text.rfind(";", 0, m.start()), text.rfind(".", 0, m.start()), 0):m.start()])]
    for m in [*_ALL.finditer(text), *_OURS.finditer(text), *apiece]:
        army = _army(r, m, roster, unit_pattern, number)
        if army:
            c.side_army = army
            ours.append(m.span())
    # "every player starts with ..." was also read as the player's own start: the side army is it
    given = [h for h in r.hits if h.key == "start_forces"]
    said_here = [h for h in given if any(a <= h.start < b for a, b in ours)]
    if said_here:
        r.hits = [h for h in r.hits if h not in said_here]
        if len(said_here) == len(given):
            c.player_start = {}
    if c.archetype == "teams":
        for m in [*_THEIRS.finditer(text), *_THEIRS_EACH.finditer(text)]:
            c.rival_army = _army(r, m, roster, unit_pattern, number) or c.rival_army
    if c.side_army and not c.rival_army:
        for m in _EQUAL.finditer(text):
            r.hit(m, "side_armies")
    if (m := _BY_COMMANDERS.search(text)):
        c.elimination = "commanders"
        r.hit(m, "elimination")
    elif (m := _BY_UNITS.search(text)):
        c.elimination = "units"
        r.hit(m, "elimination")
    if c.elimination:
        for m in _MIRRORED.finditer(text):
            r.hit(m, "elimination")
