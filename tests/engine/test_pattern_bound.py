"""The sandbox's pattern-cost estimate is an upper bound of the C matcher's work, and never wraps.

A step-counting model of Lua 5.4's matcher (lua_pattern_model.py, checked against real Lua on
every example) measures the work; hypothesis searches patterns and subjects for a case where the
work exceeds the estimate the sandbox charges and refuses by.
"""
from fractions import Fraction
from math import comb

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lupa import lua54

from engine.errors import RuleScriptError
from engine.rules.limits import MAX_PATTERN_WORK
from engine.rules.sandbox import LuaSandbox

from lua_pattern_model import PatternError, find, gsub_steps

SANDBOX = LuaSandbox("bound.lua", "", {})
REAL = lua54.LuaRuntime()
REAL_FIND = REAL.eval("function(s, p) local ok, r = pcall(string.find, s, p) if ok then return r or 0 end return -1 end")
REAL_GSUB = REAL.eval("function(s, p) local ok, r, n = pcall(string.gsub, s, p, '') if ok then return n end return -1 end")

ATOMS = ["a", "b", ".", "%a", "%A", "[ab]", "[^b]", "[a-b]", "%(", "[%]a]"]
QUANTIFIERS = ["", "", "*", "+", "-", "?"]


@st.composite
def patterns(draw):
    parts, open_groups, closed = [], 0, 0
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["atom", "atom", "atom", "open", "close", "balance", "frontier", "backref", "pos"]))
        if kind == "atom":
            parts.append(draw(st.sampled_from(ATOMS)) + draw(st.sampled_from(QUANTIFIERS)))
        elif kind == "open" and open_groups < 3:
            parts.append("(")
            open_groups += 1
        elif kind == "close" and open_groups:
            parts.append(")")
            open_groups -= 1
            closed += 1
        elif kind == "balance":
            parts.append("%b()")
        elif kind == "frontier":
            parts.append("%f[a]")
        elif kind == "backref" and closed:
            parts.append(f"%{draw(st.integers(1, closed))}")
        elif kind == "pos":
            parts.append("()")
    parts.append(")" * open_groups)
    pattern = "".join(parts)
    if draw(st.booleans()):
        pattern = "^" + pattern
    if draw(st.booleans()):
        pattern += "$"
    return pattern


subjects = st.text(alphabet="aab()", max_size=24)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(patterns(), subjects)
def test_estimate_bounds_find(pattern, subject):
    real = REAL_FIND(subject, pattern)
    try:
        start, steps = find(subject.encode(), pattern.encode())
    except PatternError:
        assert real == -1  # the model refuses exactly what real Lua refuses
        return
    assert real == (start or 0), "the model disagrees with real Lua"
    estimate = SANDBOX.pattern_cost(pattern, len(subject), pattern.startswith("^"), 1)
    assert steps <= estimate


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(patterns(), subjects)
def test_estimate_bounds_gsub(pattern, subject):
    real = REAL_GSUB(subject, pattern)
    try:
        count, steps = gsub_steps(subject.encode(), pattern.encode())
    except PatternError:
        assert real == -1
        return
    assert real == count, "the model disagrees with real Lua"
    assert steps <= SANDBOX.pattern_cost(pattern, len(subject), pattern.startswith("^"), 2)


def exact_cost(pattern: str, n: int, k: int, anchored: bool, repeats: int) -> Fraction:
    per_path = 2 * (len(pattern) + 2) * (k + 2)
    paths = comb(n + k, k) if anchored else comb(n + k + 2, k + 1)
    return Fraction(per_path * paths * repeats)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 40), st.integers(0, 2**62), st.booleans())
def test_estimate_never_wraps_around(stars, n, anchored):
    # integer arithmetic wrapped to negative values for big subjects, so the check passed
    pattern = ("^" if anchored else "") + "a*" * stars + "b"
    got = SANDBOX.pattern_cost(pattern, n, anchored, 1)
    exact = exact_cost(pattern, n, stars, anchored, 1)
    assert got > 0
    if exact <= MAX_PATTERN_WORK:
        assert abs(Fraction(got) - exact) <= exact * Fraction(1, 10**9)
    else:
        assert got > MAX_PATTERN_WORK  # refused, whatever the sizes


def test_issue_pattern_bomb_is_refused_at_once():
    sb = LuaSandbox("bomb.lua", 'function on_start() string.find(string.rep("a",1000), "a*a*a*a*a*a*a*b") end', {})
    with pytest.raises(RuleScriptError) as info:
        sb.call("on_start")
    assert "pattern too complex" in info.value.message and info.value.line == 1
    for size in (5000, 10**6):
        with pytest.raises(RuleScriptError, match="pattern too complex"):
            LuaSandbox("bomb.lua", f'local s = string.rep("a", {size}) return s:find("a*a*b")', {})


@pytest.mark.parametrize("pattern", ["^a*a*a*b", "a*a*a*b", "a-a-b", "^(a*)%1b"])
def test_estimate_is_not_vacuous(pattern):
    # the bound stays within two orders of magnitude of the real worst case (a subject of 'a's)
    _, steps = find(b"a" * 20, pattern.encode())
    assert SANDBOX.pattern_cost(pattern, 20, pattern.startswith("^"), 1) <= 100 * steps
