"""Errors of the sandbox's library functions read as the script wrote the call: the public name
(`string.format`), the script's line, never the sandbox's own wrappers (`s_format`, `[string "<python>"]`),
also for an error the script catches with pcall and then logs or raises itself."""
from __future__ import annotations

import re

import pytest

from engine.errors import RuleScriptError
from engine.rules.sandbox import LuaSandbox

INTERNAL = re.compile(r"\bs_\w+|\bt_\w+|\bco_\w+|real_\w+|<python>|'f'|\[string ")

CALLS = {
    "string.format": 'string.format("%d", "x")',
    "string.sub": '("x"):sub({})',
    "string.rep": 'string.rep()',
    "string.find": 'string.find("a", {})',
    "string.gsub": 'string.gsub("a", "a", 5, "z")',
    "string.byte": 'string.byte({})',
    "string.char": 'string.char(-1)',
    "string.gmatch": 'string.gmatch(5)',
    "table.sort": 'table.sort({3, 2, 1}, 5)',
    "table.unpack": 'table.unpack({}, "x")',
    "math.max": 'math.max()',
    "utf8.char": 'utf8.char(-1)',
    "setmetatable": 'setmetatable(1, {})',
    "tonumber": 'tonumber()',
    "coroutine.wrap": 'coroutine.wrap(5)',
}


def _error(source: str, logged: list | None = None) -> RuleScriptError:
    sandbox = LuaSandbox("r.lua", source, {"log": (logged if logged is not None else []).append})
    with pytest.raises(RuleScriptError) as info:
        sandbox.call("f")
    return info.value


@pytest.mark.parametrize("name", CALLS)
def test_a_failing_library_call_names_the_public_function_and_the_line(name):
    err = _error(f"function f()\n  local x = {CALLS[name]}\n  return x\nend\n")
    assert not INTERNAL.search(str(err)), str(err)
    assert err.line == 2, str(err)
    if "bad argument" in err.message:
        assert f"to '{name}'" in err.message, err.message


@pytest.mark.parametrize("name", ["string.format", "table.sort", "setmetatable"])
def test_an_error_caught_by_the_script_reads_the_same(name):
    logged: list = []
    err = _error(f"function f()\n  local ok, e = pcall(function() local x = {CALLS[name]} end)\n  log(e)\n"
                 "  error(e, 0)\nend\n", logged)
    assert logged and not INTERNAL.search(str(logged[0])), logged
    assert f"to '{name}'" in logged[0] and str(logged[0]).startswith("r.lua:2: ")
    assert not INTERNAL.search(str(err)) and err.line == 2


def test_the_script_s_own_errors_pass_through_unchanged():
    err = _error('function f()\n  table.sort({3, 2, 1}, function(a, b) error("bad argument #1 to \'mine\'") end)\nend\n')
    assert err.message == "bad argument #1 to 'mine'" and err.line == 2
