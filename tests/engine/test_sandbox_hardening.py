"""Issue 30: what a hostile script can still do to the host — refill its instruction budget,
copy more into Python than its Lua heap holds, or make what it sees depend on addresses."""
import time
import tracemalloc

import pytest

from engine.errors import RuleScriptError
from engine.rules.sandbox import LuaSandbox

BUDGET = 200_000
LONG_LOOP = "for i = 1, 60000000 do end"     # 60M instructions: far past any budget


def run(source, api=None, **kw):
    kw.setdefault("instruction_budget", BUDGET)
    sb = LuaSandbox("rule.lua", source, api or {}, **kw)
    return sb.call("f")


def error_of(source, api=None, **kw):
    with pytest.raises(RuleScriptError) as info:
        run(source, api, **kw)
    return info.value.message


# ---------------------------------------------------------------- 4: the budget cannot be refilled
REFILLS = {
    "len_negative": "pcall(table.concat, setmetatable({}, {__len = function() return -1e300 end}))",
    "len_nan": "pcall(table.concat, setmetatable({}, {__len = function() return 0/0 end}))",
    "len_huge_negative_int": "pcall(table.concat, setmetatable({}, {__len = function() return math.mininteger end}))",
    "len_nan_sort": "pcall(table.sort, setmetatable({}, {__len = function() return 0/0 end}))",
    "len_nan_insert": "pcall(table.insert, setmetatable({}, {__len = function() return 0/0 end}), 1, 1)",
    "move_overflow": "pcall(table.move, {}, -1, math.maxinteger, 1)",
    "move_nan": "pcall(table.move, {}, 0/0, 5, 1)",
    "unpack_overflow": "pcall(table.unpack, {}, -1, math.maxinteger)",
    "unpack_wrap": "pcall(table.unpack, {}, math.mininteger, math.maxinteger)",
    "concat_range_overflow": "pcall(table.concat, {}, '', -1, math.maxinteger)",
    "insert_position_overflow": "pcall(table.insert, {}, math.mininteger, 1)",
    "remove_position_nan": "pcall(table.remove, {}, 0/0)",
}


@pytest.mark.parametrize("refill", list(REFILLS.values()), ids=list(REFILLS))
def test_budget_cannot_be_refilled(refill):
    start = time.monotonic()
    message = error_of(f"function f() {refill} {LONG_LOOP} end", cpu_s=5.0)
    assert message == "instruction budget exceeded"
    assert time.monotonic() - start < 2.0


def test_numeric_pattern_is_charged_like_its_text():
    subject = "local s = string.rep('1e', 500000) "
    for call in ("string.find(s, 1e30)", "string.match(s, 1e30)", "string.gsub(s, 1e30, '')"):
        message = error_of(f"function f() {subject} {call} end")
        assert "pattern too complex" in message, call
    # a short subject still matches a number as its text (a pattern: e+ is one or more e)
    assert run("function f() return string.find('x1ee30', 1e30) end") == (2, 6)


def test_invalid_table_arguments_fail_like_lua():
    assert "number has no integer representation" in error_of("function f() table.concat({}, '', 1.5) end")
    assert "object length is not an integer" in error_of(
        "function f() table.concat(setmetatable({}, {__len = function() return 0.5 end})) end")
    assert run("function f() return table.concat({'a', 'b', 'c'}, '-', 2) end") == "b-c"
    assert run("function f() return select('#', table.unpack({1, 2, 3}, 2)) end") == 2


# ---------------------------------------------------------------- 1: conversions to Python are bounded
def _peak_of(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


SHARED_STRING = "local big = string.rep('x', 1000000) local t = {} for i = 1, 400 do t[i] = big end "


@pytest.mark.parametrize("call", ["log('x', t)", "log('x', {a = {b = t}})", "log(big, big)"])
def test_api_arguments_are_capped_before_python_copies_them(call):
    seen = []
    source = f"function f() {SHARED_STRING} {call} end"

    def attempt():
        with pytest.raises(RuleScriptError) as info:
            run(source, {"log": lambda *a: seen.append(a)}, instruction_budget=2_000_000)
        assert "arguments hold more than 1048576 bytes of text" in info.value.message

    peak = _peak_of(attempt)
    assert not seen
    assert peak < 16 << 20, f"peak {peak >> 20} MiB"   # 400 copies would be 400 MB


def test_a_callback_result_is_capped_while_converting():
    def attempt():
        with pytest.raises(RuleScriptError) as info:
            run(f"function f() {SHARED_STRING} return t end", instruction_budget=2_000_000)
        assert "bytes of text" in info.value.message

    assert _peak_of(attempt) < 16 << 20


def test_arguments_under_the_cap_are_charged():
    sb = LuaSandbox("rule.lua", "function f(n) local s = string.rep('x', n) for i = 1, 50 do g(s) end end",
                    {"g": lambda s: None})
    sb.call("f", 10)
    small = sb.instructions_used
    sb.call("f", 500_000)
    assert sb.instructions_used - small > 50 * 500_000 / 16 * 0.9


# ---------------------------------------------------------------- 7: nothing depends on addresses
def test_tostring_of_a_named_table_prints_its_name_not_its_address():
    out = run("function f() local t = setmetatable({}, {__name = 'Thing'}) "
              "return tostring(t) .. '|' .. string.format('%s', t) .. '|' .. tostring(setmetatable({}, {__name = 7})) end")
    assert out == "Thing|Thing|table"


def test_next_follows_the_fixed_order_of_pairs():
    out = run("""function f()
      local t = {zeta = 1, alpha = 2, [10] = 3, [2] = 4, [true] = 5, [false] = 6, mid = 7}
      local a, b = {}, {}
      for k in pairs(t) do a[#a + 1] = tostring(k) end
      local k = next(t)
      while k ~= nil do b[#b + 1] = tostring(k); if k == 'mid' then t.zeta = nil end; k = next(t, k) end
      return table.concat(a, ' ') .. '|' .. table.concat(b, ' ')
    end""")
    assert out == "2 10 alpha mid zeta false true|2 10 alpha mid false true"  # zeta removed on the way
    assert run("function f() return next({}) end") is None
    assert "invalid key to 'next'" in error_of("function f() next({a = 1}, 'b') end")


def test_pairs_over_several_table_keys_is_refused():
    for call in ("for k in pairs(t) do end", "next(t)"):
        message = error_of(f"function f() local t = {{[{{}}] = 1, [{{}}] = 2}} {call} end")
        assert "has no fixed order" in message
    assert run("function f() local n = 0 for k in pairs({[{}] = 1, a = 2}) do n = n + 1 end return n end") == 2


def test_keys_that_collide_in_python_are_refused():
    assert "both the key 1 and the key true" in error_of("function f() return {[1] = 'a', [true] = 'b'} end")
