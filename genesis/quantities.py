"""Quantities in their many spoken forms, rewritten to the one form the reader's patterns read.

"twenty-five" -> "25", "fifteen hundred" / "1,500" / "1.5k" -> "1500", "two thousand" -> "2000", "a minute and a half" -> "90 seconds", "two and a half minutes" -> "2.5 minutes",
"half a minute" -> "30 seconds", "1 minute and 30 seconds" -> "90 seconds", "the clock hits 3:00" ->
"3:00", "the 3:00 mark" -> "3:00". Small numbers stay words ("two versus two", "both", "a couple"): the
reader knows them. Every rewritten character keeps a pointer to the words it replaced, so a clause of the
verbatim request still owns what was read from it.
"""
from __future__ import annotations

import re

_UNITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
_TEENS = {"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
          "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_SMALL_WORDS = "|".join(sorted({**_UNITS, **_TEENS}, key=len, reverse=True))
_TENS_WORDS = "|".join(_TENS)
# a number in words up to 999: "one hundred and twenty", "a hundred", "hundred-and-twenty", "forty-five", "thirteen"
_WORDS = (rf"(?:(?:(?:a|one|{'|'.join(_UNITS)})[\s-]+hundred|hundred(?=-and-))(?:[\s-]+and)?(?:[\s-]+(?:(?:{_TENS_WORDS})(?:[\s-](?:{'|'.join(_UNITS)}))?"
          rf"|{_SMALL_WORDS}))?|(?:{_TENS_WORDS})(?:[\s-](?:{'|'.join(_UNITS)}))?|thirteen|fourteen|fifteen|sixteen|"
          rf"seventeen|eighteen|nineteen)")
# a number in words stands alone, or before a hyphenated unit ("the forty-second mark", "a thirty-minute game")
_NUMBER_IN_WORDS = re.compile(rf"(?<![\w-])({_WORDS})(?![\w]|-(?!(?:seconds?|minutes?|mins?|secs?|hours?)\b))")
_N = r"(\d+(?:\.\d+)?|a|an|one|" + "|".join(_UNITS) + r")"
_UNIT = r"(hours?|hrs?|minutes?|mins?|seconds?|secs?)"
_ANY = r"(\d+(?:\.\d+)?|" + _SMALL_WORDS + r")"      # a number in digits or a small one in words


def _value(words: str) -> int:
    total = 0
    for w in re.split(r"[\s-]+", words):
        if w == "hundred":
            total = max(total, 1) * 100
        elif w in ("a", "one") and total == 0:
            total = 1
        elif w in _UNITS:
            total += _UNITS[w]
        elif w in _TEENS:
            total += _TEENS[w]
        elif w in _TENS:
            total += _TENS[w]
    return total


def _num(word: str) -> float:
    return float(word) if word[0].isdigit() else float({**_UNITS, **_TEENS}.get(word, 1))



def _unit_seconds(unit: str) -> float:
    return 3600.0 if unit.startswith("h") else 60.0 if unit.startswith("m") else 1.0


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _hundreds(m: re.Match) -> str:           # "15 hundred" (from "fifteen hundred"), "twelve hundred"
    n = m.group(1)
    return _fmt((float(n) if n[0].isdigit() else {**_UNITS, **_TEENS}[n]) * 100 + float(m.group(2) or 0))


def _thousands(m: re.Match) -> str:          # "two thousand", "2 thousand 500", "1.5k"
    return _fmt(_num(m.group(1)) * 1000 + float(m.group(2) or 0))


_SHARES = {"a half": 0.5, "a quarter": 0.25, "three quarters": 0.75, "three quarter": 0.75}
_SHARE = r"(a\s+half|a\s+quarter|three[\s-]+quarters?)"


def _share(words: str) -> float:
    return _SHARES[re.sub(r"[\s-]+", " ", words)]


def _half(m: re.Match) -> str:                # "a minute and a half", "two and a quarter minutes"
    return f"{_fmt((_num(m.group(1)) + _share(m.group(3))) * _unit_seconds(m.group(2)))} seconds"


def _and_share(m: re.Match) -> str:           # "two and a quarter minutes": the share comes before the unit
    return f"{_fmt((_num(m.group(1)) + _share(m.group(2))) * _unit_seconds(m.group(3)))} seconds"


def _bare_unit_and_share(m: re.Match) -> str:  # "every minute and a quarter": one unit, no article
    return f"{m.group(1)} {_fmt((1 + _share(m.group(3))) * _unit_seconds(m.group(2)))} seconds"


def _half_of(m: re.Match) -> str:             # "half a minute", "half an hour"
    return f"{_fmt(0.5 * _unit_seconds(m.group(1)))} seconds"


def _quarter_of(m: re.Match) -> str:          # "a quarter of an hour", "three quarters of a minute"
    share = 0.75 if m.group(1) else 0.25
    return f"{_fmt(share * _unit_seconds(m.group(2)))} seconds"


def _compound(m: re.Match) -> str:            # "1 minute and 30 seconds", "2 min 15 s"
    return f"{_fmt(_num(m.group(1)) * _unit_seconds(m.group(2)) + _num(m.group(3)))} seconds"


def _unit_then_seconds(m: re.Match) -> str:   # "a minute thirty" (after words became digits: "a minute 30")
    return f"{_fmt(_num(m.group(1)) * 60 + _num(m.group(2)))} seconds"


def clock(seconds: float) -> str:
    """A game time as the clock shows it: 75 -> "1:15" (whole seconds)."""
    s = int(seconds)
    return f"{s // 60}:{s % 60:02d}"


def _mmss(value: str, unit: str) -> str:         # "2", "minutes" -> "2:00"
    return clock(round(_num(value) * _unit_seconds(unit)))


def _matched_clock(m: re.Match, at: int = 1) -> str:  # the number and unit at groups at, at+1 as "m:ss"
    return _mmss(m.group(at), m.group(at + 1))


def _clock_list(numbers: str, unit: str) -> str:
    clocks = [_mmss(v, unit) for v in re.findall(rf"\d+(?:\.\d+)?|{_SMALL_WORDS}", numbers)]
    return ", ".join(clocks[:-1]) + " and " + clocks[-1] if len(clocks) > 1 else clocks[0]


def _rate(m: re.Match) -> str:             # "three times a minute", "twice per minute"
    per = {"once": 1.0, "twice": 2.0}.get(m.group(1)) or _num(m.group(1).split()[0])
    return f"every {_fmt(_unit_seconds(m.group(2)) / per)} seconds"


_MINUTE_NUMBER = rf"(?<![\w:.])(?:\d{{1,2}}|{_SMALL_WORDS})(?![\w:]|\.\d)"

_GROUP_SIZES = {"pair": 2, "duo": 2, "brace": 2, "trio": 3, "quartet": 4, "quintet": 5, "sextet": 6, "score": 20}

# in order: numbers in words first, so the duration forms after them see digits
_REWRITES: list[tuple[re.Pattern, object]] = [
    (_NUMBER_IN_WORDS, lambda m: str(_value(m.group(1)))),
    # counts by the dozen and in pairs: "half a dozen", "two dozen", "a pair of heavy tanks", "a trio of"
    (re.compile(r"(?<![\w-])(?:half\s+an?\s+|(?:an?\s+)?half[\s-]+)dozen(?:\s+of)?(?![\w-])"), lambda m: "6"),
    (re.compile(rf"(?<![\w-])(?:(a|one|\d+|{_SMALL_WORDS})\s+)dozens?(?:\s+of)?(?![\w-])"),
     lambda m: str(12 * (1 if m.group(1) in ("a", "one") else round(_num(m.group(1)))))),
    (re.compile(r"(?<![\w-])an?\s+(pair|brace|trio|quartet|quintet|sextet|score)\s+of(?![\w-])"),
     lambda m: str(_GROUP_SIZES[m.group(1)])),
    (re.compile(r"(?<![\w-])a\s+couple(?:\s+of)?(?![\w-])"), lambda m: "2"),
    # ... and without the article before a unit or a noun: "every couple of minutes", "couple minutes later"
    (re.compile(r"(?<![\w-])couple(?:\s+of)?(?=\s+[a-z])"), lambda m: "2"),
    # the group word after the unit: "a heavy tank quartet" -> "4 heavy tank"
    (re.compile(r"(?<![\w-])an?\s+((?:[a-z-]+\s+){1,2}?)(pair|duo|trio|quartet|quintet|sextet)(?![\w-])"),
     lambda m: f"{_GROUP_SIZES[m.group(2)]} {m.group(1).strip()}"),
    # large amounts (a stockpile of metal): digit groups, hundreds and thousands
    (re.compile(r"(?<![\w.,-])(\d{1,3}(?:,\d{3})+)(?![\w,-]|\.\d)"), lambda m: m.group(1).replace(",", "")),
    # "seventeen hundred and fifty" (its "fifty" already 50)
    (re.compile(rf"(?<![\w.-])(\d+|{_SMALL_WORDS})\s+hundred(?:\s+and\s+(\d{{1,2}}))?(?![\w-])"), _hundreds),
    # "every hundred and ten seconds", "a hundred and twenty": one hundred
    (re.compile(rf"(?<![\w.-])(?:(?:an?|one)\s+)?hundred(?:\s+and\s+(\d{{1,2}}|{_SMALL_WORDS}))?(?![\w-])"),
     lambda m: _fmt(100 + (_num(m.group(1)) if m.group(1) else 0))),
    (re.compile(rf"(?<![\w.-])(\d+(?:\.\d+)?|a|an|{_SMALL_WORDS})\s+thousand(?:\s+(?:and\s+)?(\d{{1,3}}))?(?![\w-])"),
     _thousands),
    (re.compile(r"(?<![\w.-])(\d+(?:\.\d+)?)k()(?![\w-])"), _thousands),
    # absurd sizes stay absurd: "a million tanks" is a million, never "a" (one) tank
    (re.compile(rf"(?<![\w.-])(\d+(?:\.\d+)?|a|an|{_SMALL_WORDS})\s+(million|billion)(?![\w-])"),
     lambda m: _fmt(_num(m.group(1)) * (1e6 if m.group(2) == "million" else 1e9))),
    # "one and a half thousand metal" -> 1500
    (re.compile(rf"(?<![\w.-])(\d+|a|one|{_SMALL_WORDS})\s+and\s+{_SHARE}\s+(thousand|hundred)(?![\w-])"),
     lambda m: str(round((_num(m.group(1)) + _share(m.group(2))) * (1000 if m.group(3) == "thousand" else 100)))),
    (re.compile(rf"(?<![\w-]){_N}\s+{_UNIT}\s+and\s+{_SHARE}(?![\w-])"), _half),
    (re.compile(rf"(?<![\w-]){_N}\s+and\s+{_SHARE}\s+{_UNIT}(?![\w-])"), _and_share),
    # hyphenated: "the three-and-a-quarter-minute mark"
    (re.compile(rf"(?<![\w-]){_N}-and-(a-half|a-quarter|three-quarters)-{_UNIT}(?![\w])"), _and_share),
    (re.compile(rf"(?<![\w-])(every|each|per|after|for|within|in)\s+{_UNIT}\s+and\s+{_SHARE}(?![\w-])"),
     _bare_unit_and_share),
    (re.compile(rf"(?<![\w-])(\d+(?:\.\d+)?)\s*-\s*and\s*-\s*a\s*-\s*half\s*-?\s*{_UNIT}(?![\w-])"),
     lambda m: f"{_fmt((_num(m.group(1)) + 0.5) * _unit_seconds(m.group(2)))} seconds"),
    (re.compile(rf"(?<![\w-])half\s+(?:a|an)\s+{_UNIT}(?![\w-])"), _half_of),
    (re.compile(rf"(?<![\w-])(?:(?:a|one)\s+|(three)[\s-]+)?quarters?\s+of\s+(?:a|an)\s+{_UNIT}(?![\w-])"), _quarter_of),
    # every second one of a unit: "every other minute" is every two
    (re.compile(rf"(?<![\w-])(every|each)\s+(?:other|second|2nd)\s+{_UNIT}(?![\w-])"),
     lambda m: f"{m.group(1)} 2 {m.group(2) if m.group(2).endswith('s') else m.group(2) + 's'}"),
    # minutes named by their numbers: "at minute 4", "by minute six", "at minutes 2, 4 and 6" -> "at 4:00", ...
    (re.compile(rf"(?<![\w-])(at|by|in|on|before|after|until|till|from)\s+(?:the\s+)?minutes?\s+((?:{_MINUTE_NUMBER}"
                rf"\s*(?:,\s*(?:and\s+)?|and\s+))*{_MINUTE_NUMBER})(?![\w:-]|\.\d)"),
     lambda m: f"{m.group(1)} " + re.sub(_MINUTE_NUMBER, lambda n: clock(round(_num(n.group(0))) * 60), m.group(2))),
    (re.compile(rf"(?<![\w-])(\d+(?:\.\d+)?|a|an|{_SMALL_WORDS})\s+(?:full\s+|whole\s+|solid\s+)?(minutes?|mins?|hours?|hrs?)\s*,?\s+(?:and\s+)?"
                rf"(\d+|{_SMALL_WORDS})\s*(?:seconds?|secs?|s)(?![\w-])"), _compound),
    (re.compile(rf"(?<![\w-])(a|an|one|\d+|{_SMALL_WORDS})\s+(?:minutes?|mins?)\s+(\d{{1,2}}|{_SMALL_WORDS})"
                # what may follow: the clause's end or a word that goes on with it ("for a minute fifteen with nobody
                # on it"), never a noun the number counts ("every minute 5 light bots")
                rf"(?=\s*(?:[,.;!?)]|$|(?:with|without|and|or|but|while|before|after|then|to|of|in|on|at|straight|"
                rf"running|uninterrupted|nonstop|total|flat|tops)(?![\w-])))"),
     _unit_then_seconds),
    # written short: "4m40s", "4m 40s"
    (re.compile(r"(?<![\w-])(\d+)\s*m\s*(\d{1,2})\s*s(?![\w-])"), _unit_then_seconds),
    # a rate: "three times a minute" is every 20 seconds
    (re.compile(r"(?<![\w-])(once|twice|(?:\d+|" + "|".join(_UNITS) + r")\s+times)\s+(?:a|an|per|each|every)\s+(minute|hour)(?![\w-])"), _rate),
    # a moment as a point or mark on the clock: "the one-minute point", "the 4.5-minute mark" -> "1:00", "4:30"
    (re.compile(rf"(?<![\w-])the\s+{_ANY}[\s-]*{_UNIT}\s+(?:point|mark|bell|gong|horn|buzzer|siren|whistle)(?![\w-])"),
     lambda m: _matched_clock(m)),
    # a span between two marks: "between the one- and three-minute marks" -> "between 1 and 3 minutes"
    (re.compile(rf"(?<![\w-])between\s+the\s+{_ANY}(?:[\s-]*{_UNIT})?\s*-?\s+and\s+(?:the\s+)?{_ANY}[\s-]*{_UNIT}\s+"
                r"(?:marks?|points?)(?![\w-])"),
     lambda m: f"between {m.group(1)} and {m.group(3)} {m.group(4) if m.group(4).endswith('s') else m.group(4) + 's'}"),
    # a half left in a list ("at one, two and a half and four minutes"): its unit comes later
    (re.compile(rf"(?<![\w.-])({_SMALL_WORDS}|\d+)[\s-]+and[\s-]+a[\s-]+half(?![\w-])"),
     lambda m: _fmt(_num(m.group(1)) + 0.5)),
    # a list of moments sharing one unit: "at one, three and five minutes" -> "at 1:00, 3:00 and 5:00", "on the
    # 2.5 and 5-minute marks" -> "at 2:30 and 5:00"
    (re.compile(rf"(?<![\w-])(?:at|on)\s+(?:the\s+)?((?:{_ANY}\s*,\s*)+(?:{_ANY}\s*,?\s+and\s+)?{_ANY}|{_ANY}\s+and\s+{_ANY})"
                rf"[\s-]+{_UNIT}(?:\s+(?:marks|points))?(?![\w-])"),
     lambda m: "at " + _clock_list(m.group(1), m.group(m.re.groups))),
    # "two minutes in" (into the game) -> "at 2:00"
    (re.compile(rf"(?<![\w-]){_ANY}\s*{_UNIT}\s+in(?=\s*(?:[,;.]|and\b|then\b|$))"),
     lambda m: "at " + _matched_clock(m)),
    # a span that runs out: "until six minutes have passed", "before 270 seconds have gone by" -> "until 6:00"
    (re.compile(rf"(?<![\w-])(until|till|before|by)\s+(?:the\s+)?{_ANY}\s*{_UNIT}\s+(?:have\s+|has\s+|are\s+|is\s+)?"
                r"(?:passed|elapsed|gone\s+by|gone|up|over|elapse|pass|go\s+by|run\s+out|on\s+the\s+clock|"
                r"ticked\s+by|tick\s+by)(?![\w-])"), lambda m: f"{m.group(1)} {_matched_clock(m, 2)}"),
    # ... or a moment it comes: "when twenty minutes have gone by" -> "at 20:00"
    (re.compile(rf"(?<![\w-])(?:when|once)\s+(?:the\s+)?{_ANY}\s*{_UNIT}\s+(?:have|has)\s+(?:passed|elapsed|gone\s+by|"
                r"gone|ticked\s+by|run\s+out)(?![\w-])"), lambda m: f"at {_matched_clock(m)}"),
    # the end of the game named as a moment: "the whistle blows at 12 minutes" is a game lasting that long
    (re.compile(r"(?<![\w-])(?:the\s+)?(?:final\s+)?whistle\s+blows\s+at|(?:it's|it\s+is)\s+over\s+at|"
                r"the\s+(?:game|match|round|battle)\s+ends\s+at|time\s+(?:is\s+up|runs\s+out|expires)\s+at|"
                r"(?:a\s+|the\s+)?hard\s+(?:stop|cut-?off|limit)\s+(?:is\s+)?at|(?:the\s+)?cut-?off\s+(?:is\s+)?at|"
                r"(?:everything|play|the\s+(?:game|match|clock))\s+stops\s+at|the\s+buzzer\s+(?:sounds|goes)\s+at|"
                r"the\s+(?:game\s+)?(?:clock|timer|watch|stopwatch)\s+(?:runs\s+out|stops|hits\s+zero|expires)(?:\s+(?:you|the\s+game|"
                r"everything|play))?(?:\s+(?:cold|dead|short))?\s+at"), lambda m: "lasting"),
    # a clock reading stated through the clock: "until the clock hits 3:00", "the 3:00 mark", "the timer reads 2:30"
    (re.compile(r"(?<![\w-])the\s+(?:game\s+)?(?:clock|timer)\s+(?:hits|reads|shows|strikes|reaches|passes|"
                r"says|turns|ticks\s+(?:over|past)(?:\s+to)?)\s+(\d{1,2}:[0-5]\d)\b"), lambda m: m.group(1)),
    # ... or as a span: "before the clock passes five and a half minutes" -> "before 5:30"
    (re.compile(rf"(?<![\w-])the\s+(?:game\s+)?(?:clock|timer)\s+(?:hits|reads|shows|strikes|reaches|passes|"
                rf"says|turns|ticks\s+(?:over|past)(?:\s+to)?)\s+{_ANY}\s*{_UNIT}(?![\w-])"), lambda m: _matched_clock(m)),
    (re.compile(r"(?<![\w-])the\s+(\d{1,2}:[0-5]\d)\s+mark(?![\w-])"), lambda m: m.group(1)),
    # a moment said as its arrival: "when the twelve-minute mark arrives", "once 4:00 comes around" -> "at 12:00"
    (re.compile(r"(?<![\w-])(?:when|once|as\s+soon\s+as)\s+(\d{1,2}:[0-5]\d)\s+(?:arrives|comes(?:\s+around)?|"
                r"rolls\s+around|is\s+reached|hits|strikes|ticks\s+over)(?![\w-])"), lambda m: f"at {m.group(1)}"),
    # the end of the game on the clock: "the watch stops at the eight-minute mark" -> "lasting 480 seconds"
    (re.compile(r"(?<![\w-])lasting\s+(\d{1,2}):([0-5]\d)\b"),
     lambda m: f"lasting {int(m.group(1)) * 60 + int(m.group(2))} seconds"),
    # a round amount corrected at once: "a couple of thousand energy, twenty-two hundred to be exact" -> "2200 energy"
    (re.compile(r"(?<![\w.])\d+(?:\.\d+)?(\s+[a-z]+)?\s*,\s*(\d+(?:\.\d+)?)\s+(?:to\s+be\s+(?:exact|precise)|exactly|precisely)"
                r"(?![\w-])"), lambda m: f"{m.group(2)}{m.group(1) or ''}"),
]


def canonical(text: str, where: list[int]) -> tuple[str, list[int]]:
    """`text` with its quantities in canonical form, and where each character came from in the verbatim
    request (a rewritten phrase's characters all come from the phrase they replaced)."""
    for pattern, replace in _REWRITES:
        text, where = rewrite(text, where, pattern, replace)
    return text, where


def rewrite(text: str, where: list[int], pattern: re.Pattern, replace) -> tuple[str, list[int]]:
    out: list[str] = []
    places: list[int] = []
    last = 0
    for m in pattern.finditer(text):
        new = replace(m)
        out.append(text[last:m.start()])
        places += where[last:m.start()]
        span = m.end() - m.start()
        out.append(new)
        places += [where[m.start() + min(i * span // max(1, len(new)), span - 1)] for i in range(len(new))]
        last = m.end()
    out.append(text[last:])
    places += where[last:]
    return "".join(out), places
