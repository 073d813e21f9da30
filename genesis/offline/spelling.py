"""Typo repair before the request is read: a word the reader does not know that is one common slip
away from a word it does ("betwen", "armys", "free-for-al", "agaisnt", "defnd") is read as that word.

Only slips that rarely turn one real word into another are repaired: a letter doubled or undoubled, a
letter left out, two neighbouring letters swapped, and "-ys" plurals. Substitutions are not ("might"
is one letter from "fight", "right", "eight" and "light"), and words shorter than MIN_LENGTH are left
alone ("rain" is one letter from "raid")."""
from __future__ import annotations

import re
from functools import lru_cache

from genesis.offline import vocabulary as V

MIN_LENGTH = 5
# words the reader's patterns rely on beyond the vocabulary's trigger lists
READER_WORDS = (
    "between against armies teams players factions battle minutes seconds ranked damage dealt survival "
    "efficiency double triple times bigger larger stronger escalating growing previous before after attack "
    "attacks assault assaults flank flanks probe probes probing main defend defence defense capture "
    "produce deadline within survive protect waves direction directions north south east west north-east "
    "north-west south-east south-west northeast northwest southeast southwest everyone themselves itself "
    "against alliances allied periodic raids extractors collectors storages every until second minute "
    "staggered another finally first then later hidden losing scout scouts locate find spot "
    # common words one slip from a reader word ("there" / "three", "form" / "from", "trial" / "trail")
    "there their where these those other whose which while once since never every hours rider riders rides ridden riding")
_TOKEN = re.compile(r"[a-z]+(?:-[a-z]+)*")


@lru_cache(maxsize=1)
def lexicon() -> frozenset[str]:
    from genesis.offline.concepts import roster_names     # concepts imports this module

    phrases = [*V.GAME_WORDS, *V.NUMBER_WORDS, *V.COMPASS, *V.UNIT_SYNONYMS, *V.OBJECTIVE_TYPES, *V.MAP_HINTS,
               *V.ENGLISH_FUNCTION_WORDS, *V.RANDOM_TIMING_TRIGGERS, *roster_names(), READER_WORDS]
    phrases += [p for triggers in (*V.ARCHETYPE_TRIGGERS.values(), *V.UNIT_KIND_TRIGGERS.values()) for p in triggers]
    return frozenset(w for p in phrases for w in p.split())


def _slips(word: str) -> set[str]:
    """The words `word` could have been meant as: one letter added after its first (a letter left out
    of it), a doubled letter undoubled, neighbours swapped, "-ys" as "-ies"."""
    out = set()
    letters = "abcdefghijklmnopqrstuvwxyz-"
    for i in range(1, len(word) + 1):      # never a first letter: "layers" is not "players"
        out.update(word[:i] + c + word[i:] for c in letters)
    for i in range(1, len(word)):
        if word[i] == word[i - 1]:
            out.add(word[:i] + word[i + 1:])
        out.add(word[:i - 1] + word[i] + word[i - 1] + word[i + 1:])
    if word.endswith("ys"):
        out.add(word[:-2] + "ies")
    return out


# chat spelling: whole words typed short ("if ur commander goes down u lose")
CHAT_WORDS = {"u": "you", "ur": "your", "r": "are", "ya": "you", "yr": "your", "thru": "through", "b4": "before",
              "pls": "please", "plz": "please", "cuz": "because", "coz": "because", "w/": "with", "w/o": "without",
              "n": "and", "til": "until", "till": "until", "wanna": "want to", "gotta": "have to", "hafta": "have to",
              "gonna": "going to"}
_CHAT = re.compile(r"(?<![\w'/-])(?:" + "|".join(re.escape(w) for w in sorted(CHAT_WORDS, key=len, reverse=True))
                   + r")(?![\w'/-])")


def repair(word: str) -> str | None:
    """The known word a typo'd `word` stands for, None when it is known or no single slip explains it
    (or more than one known word would)."""
    known = lexicon()
    if len(word) < MIN_LENGTH or word in known:
        return None
    # a known word's singular or plural is that word in another number, not a slip ("alliance", "alliances")
    plural_of_known = word.endswith("s") and not word.endswith("ys") and word[:-1] in known
    if word + "s" in known or word + "es" in known or plural_of_known:
        return None
    found = sorted(_slips(word) & known)
    return found[0] if len(found) == 1 else None


def _unhyphenated(word: str) -> str | None:
    """A phrase typed as one hyphenated word ("every-man-for-himself", "last-man-standing") read as its words;
    one the vocabulary knows hyphenated ("free-for-all") and compounds of two ("north-east") stay."""
    if word.count("-") < 2 or word in lexicon():
        return None
    return word.replace("-", " ")


def correct(text: str, where: list[int]) -> tuple[str, list[int]]:
    """`text` with its typos repaired, and where each character came from in the verbatim request (a
    repaired word's characters all come from the word it replaced)."""
    out: list[str] = []
    places: list[int] = []
    last = 0
    for m in sorted([*_TOKEN.finditer(text), *_CHAT.finditer(text)], key=lambda m: (m.start(), -m.end())):
        if m.start() < last:
            continue
        fixed = CHAT_WORDS.get(m.group(0)) if m.re is _CHAT else repair(m.group(0)) or _unhyphenated(m.group(0))
        if fixed is None:
            continue
        out.append(text[last:m.start()])
        places += where[last:m.start()]
        out.append(fixed)
        places += [where[m.start() + min(i, len(m.group(0)) - 1)] for i in range(len(fixed))]
        last = m.end()
    out.append(text[last:])
    places += where[last:]
    return "".join(out), places
