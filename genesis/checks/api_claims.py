"""Which rule API limits a component purpose runs into: the wording of a need claimed, never of a need
denied ("it never takes resources from the player" asks nothing of the API; "raiders steal 50 metal"
does)."""
from __future__ import annotations

import re

from genesis.prompt_facts import RULE_API_LIMITS

# Where a clause starts: punctuation, or a word that joins a new statement to the last one.
_BOUNDARY = re.compile(r"[.;:!?,()]|\b(?:but|and|or|yet|while|whereas|although|though|then|so|because|when|if|"
                       r"unless|until)\b", re.I)
# A denial of the verb that follows it, up to two words later ("never takes", "does not actually take",
# "is never allowed to take", "doesn't take", "without taking", "no rule takes"); "with no escort" is a
# condition, not a denial.
_DENIED_BEFORE = re.compile(r"(?:\b(?:never|not|nothing|nobody|none|neither|nor|without|cannot)\b|n't\b|"
                            r"\b(?:instead of|rather than|no longer|no one)\b|(?<!with )(?<!has )(?<!have )\bno\b)"
                            r"(?:\s+[\w'-]+){0,2}\s*$", re.I)
# A denial after the demand, in its clause ("taking metal away is impossible").
_DENIED_AFTER = re.compile(r"^[^.;,]{0,25}?\b(?:is|are|was|were|be)\s+(?:not|never|impossible|forbidden)\b", re.I)
_WORD = re.compile(r"\b\w")


def _clause_before(text: str, at: int) -> str:
    starts = [m.end() for m in _BOUNDARY.finditer(text, 0, at)]
    return text[starts[-1] if starts else 0:at]


def claim(pattern: str, text: str) -> str:
    """The words of `text` that affirm what `pattern` (a verb ... object wording) describes ("" when none);
    every place the wording starts is judged on its own, so a denial does not hide a claim next to it."""
    wording = re.compile(pattern, re.I)
    for w in _WORD.finditer(text):
        m = wording.match(text, w.start())
        if m is None:
            continue
        if _DENIED_BEFORE.search(_clause_before(text, m.start())) or _DENIED_AFTER.search(text[m.end():]):
            continue
        return m.group(0)
    return ""


def impossible_demands(purpose: str) -> list[str]:
    """The rule API limits a component purpose claims to need, each with the words that claim it."""
    out = []
    for limit, pattern in RULE_API_LIMITS:
        said = claim(pattern, purpose) if pattern else ""
        if said:
            out.append(f"\"{said}\" asks what rules cannot do: {limit.split(':')[0]}")
    return out
