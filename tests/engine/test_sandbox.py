"""LuaSandbox: every known escape route ends in a clean RuleScriptError and leaves the
process (and other sandboxes) working."""
import time

import pytest

from engine.errors import RuleScriptError
from engine.rules.sandbox import LuaSandbox

SMALL_BUDGET = 200_000  # keeps the runaway-loop tests fast


def make(source, api=None, name="rule.lua", **kw):
    kw.setdefault("instruction_budget", SMALL_BUDGET)
    return LuaSandbox(name, source, api or {}, **kw)


def assert_healthy():
    """A fresh sandbox still compiles and runs after the previous one failed."""
    sb = make("function f(a, b) return a + b end")
    assert sb.call("f", 2, 3) == 5


def fails(source, *, call="f", api=None, **kw):
    """Build a sandbox (defining f) and call it; return the RuleScriptError raised."""
    sb = None
    with pytest.raises(RuleScriptError) as info:
        sb = make(source, api, **kw)
        sb.call(call)
    assert info.value.script == "rule.lua"
    assert "Traceback" not in info.value.message
    assert_healthy()
    return info.value, sb


# ---------------------------------------------------------------- instruction budget
RUNAWAY = {
    "while_true": "function f() while true do end end",
    "loop_in_pcall": "function f() pcall(function() while true do end end) while true do end end",
    "pcall_swallows": "function f() while true do pcall(function() while true do end end) end end",
    "nested_pcall": """function f()
        while true do pcall(pcall, pcall, function() while true do end end) end
    end""",
    "pcall_error_loop": "function f() while true do pcall(error, 'x') end end",
    "xpcall_handler_loops": """function f()
        while true do xpcall(function() while true do end end, function() while true do end end) end
    end""",
    "xpcall_retry": """function f()
        local function again() return xpcall(function() while true do end end, again) end
        while true do again() end
    end""",
    "coroutine_wrap": "function f() coroutine.wrap(function() while true do end end)() end",
    "coroutine_create": """function f()
        local co = coroutine.create(function() while true do end end)
        while true do coroutine.resume(co) end
    end""",
    "coroutine_in_pcall": """function f()
        while true do
            pcall(coroutine.wrap(function() while true do pcall(function() while true do end end) end end))
        end
    end""",
    "coroutine_swallowed_then_return": """function f()
        coroutine.resume(coroutine.create(function() while true do end end))
        return 1
    end""",
    "many_coroutines": """function f()
        while true do
            local co = coroutine.create(function() for i = 1, 900 do end end)
            coroutine.resume(co)
        end
    end""",
    "top_level": "while true do end",
}


@pytest.mark.parametrize("source", RUNAWAY.values(), ids=RUNAWAY.keys())
def test_runaway_code_is_stopped_by_the_budget(source):
    err, _ = fails(source)
    assert err.message == "instruction budget exceeded"


def test_budget_error_names_the_line():
    err, _ = fails("function f()\n  local x = 0\n  while true do x = x + 1 end\nend")
    assert err.line == 3
    assert str(err) == "rule script rule.lua:3: instruction budget exceeded"


def test_sandbox_is_usable_after_an_abort():
    sb = make("function loop() while true do end end\nfunction ok() local s = 0 for i = 1, 1000 do s = s + i end return s end")
    for _ in range(3):
        with pytest.raises(RuleScriptError, match="instruction budget"):
            sb.call("loop")
        assert sb.call("ok") == 500500


def test_hooks_return_to_normal_after_an_abort_in_a_coroutine():
    # after the abort the main thread must not stay in fail-every-instruction mode, and new
    # coroutines get a normal hook: ~70% of the budget in a coroutine must then succeed
    sb = make("""
        function spin()
            coroutine.resume(coroutine.create(function() while true do end end))
            while true do coroutine.create(print) end  -- creating after the abort fails too
        end
        function use()
            local co = coroutine.create(function() local s = 0 for i = 1, 40000 do s = s + i end return s end)
            return select(2, coroutine.resume(co))
        end
    """)
    with pytest.raises(RuleScriptError, match="instruction budget"):
        sb.call("spin")
    assert sb.call("use") == 800020000


def test_budget_resets_per_call():
    # ~60% of the budget per call, many calls in a row
    sb = make("function f() local s = 0 for i = 1, 40000 do s = s + i end return s end",
              instruction_budget=SMALL_BUDGET)
    for _ in range(50):
        assert sb.call("f") == 800020000


def test_nested_calls_do_not_refill_the_budget():
    # an API function that calls back into the script must not reset the budget
    box = {}

    def callback():
        return box["sb"].call("work")

    sb = make("""
        function work() for i = 1, 50000 do end return 1 end
        function f() while true do cb() end end
    """, {"cb": callback})
    box["sb"] = sb
    with pytest.raises(RuleScriptError, match="instruction budget"):
        sb.call("f")


def test_wall_clock_backstop_says_machine_overloaded():
    slow = lambda: __import__("time").sleep(0.002)  # noqa: E731 - a process that gets no CPU
    err, _ = fails("function f() while true do sleep() end end", api={"sleep": slow},
                   instruction_budget=10**12, wall_clock_s=0.05)
    assert err.message.startswith("machine overloaded")


def test_cpu_time_backstop_for_work_no_counter_sees():
    def burn():  # stands in for C work instruction counting cannot see
        end = time.thread_time() + 0.002
        while time.thread_time() < end:
            pass

    err, _ = fails("function f() while true do burn() end end", api={"burn": burn},
                   instruction_budget=10**12, cpu_s=0.05, wall_clock_s=60)
    assert err.message == "CPU-time limit (0.05 s per call) exceeded"
    err, _ = fails("function f() while true do burn() end end", api={"burn": burn},
                   instruction_budget=10**12, cpu_s=10, run_cpu_s=0.05, wall_clock_s=60)
    assert err.message == "CPU-time limit per run (0.05 s) exceeded"


def test_run_budget_spans_calls():
    sb = make("function f() local s = 0 for i = 1, 20000 do s = s + i end return s end",
              run_budget=1_000_000)
    calls = 0
    with pytest.raises(RuleScriptError, match=r"instruction budget per run \(1000000\) exceeded"):
        for _ in range(1000):
            sb.call("f")
            calls += 1
    assert 10 <= calls < 40
    with pytest.raises(RuleScriptError, match="per run"):  # spent for good
        sb.call("f")


# ---------------------------------------------------------------- stack and memory
def test_recursion_depth_bomb():
    err, _ = fails("function f() local function r(n) return 1 + r(n + 1) end return r(1) end",
                   instruction_budget=10**8)
    # the Lua stack hits its limit or fills the memory cap first; either is a clean error
    assert "stack overflow" in err.message or "memory limit" in err.message


def test_c_stack_bomb_through_pcall():
    err, _ = fails("function f() local function r() return pcall(r) end r() error('deep') end",
                   instruction_budget=10**8)
    assert err.message == "deep"  # "C stack overflow" was caught by the innermost pcall


def test_metamethod_loop():
    err, _ = fails("function f() local t = setmetatable({}, {}) getmetatable(t).__index = t return t.x end")
    assert "loop" in err.message or "chain" in err.message


MEMORY_BOMBS = {
    "table_growth": "function f() local t = {} for i = 1, 1e9 do t[i] = i end end",
    "string_doubling": "function f() local s = 'x' for i = 1, 40 do s = s .. s end end",
    "string_table": "function f() local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(1000) .. i end end",
    "concat_in_pcall": "function f() local t = {} while true do pcall(function() t[#t+1] = {} end) end end",
}


@pytest.mark.parametrize("source", MEMORY_BOMBS.values(), ids=MEMORY_BOMBS.keys())
def test_memory_bombs(source):
    # out of memory is a hard limit: pcall cannot catch it and retry
    err, _ = fails(source, instruction_budget=10**7, memory_mb=16)
    assert err.message == "memory limit (16 MiB) exceeded"


def test_memory_error_leaves_sandbox_usable():
    sb = make("function bomb() local t = {} for i = 1, 1e9 do t[i] = i end end\nfunction ok() return 7 end",
              instruction_budget=10**9, memory_mb=16)
    with pytest.raises(RuleScriptError, match=r"memory limit \(16 MiB\) exceeded"):
        sb.call("bomb")
    assert sb.call("ok") == 7


def test_string_rep_huge_is_capped():
    err, _ = fails("function f() local s = string.rep('x', 1e9) return s end")
    assert "string.rep: result longer than" in err.message
    assert err.line == 1
    err, _ = fails("function f() return ('ab'):rep(1e8, ',') end")
    assert "string.rep" in err.message


# ---------------------------------------------------------------- escape attempts
ESCAPES = {
    "os.execute": ("function f() os.execute('touch /tmp/pwned') end", "global 'os'"),
    "io.open": ("function f() io.open('/etc/passwd') end", "global 'io'"),
    "require": ("function f() require('os') end", "global 'require'"),
    "load": ("function f() load('return 1')() end", "global 'load'"),
    "loadstring": ("function f() loadstring('return 1')() end", "global 'loadstring'"),
    "dofile": ("function f() dofile('/etc/passwd') end", "global 'dofile'"),
    "loadfile": ("function f() loadfile('/etc/passwd') end", "global 'loadfile'"),
    "debug.sethook": ("function f() debug.sethook() end", "global 'debug'"),
    "package.loadlib": ("function f() package.loadlib('libc.so.6', 'system') end", "global 'package'"),
    "collectgarbage": ("function f() collectgarbage('stop') end", "global 'collectgarbage'"),
    "string.dump": ("function f() string.dump(f) end", "field 'dump'"),
    "python.eval": ("function f() python.eval('1') end", "global 'python'"),
    "python.builtins": ("function f() return python.builtins.open end", "global 'python'"),
    "math.random": ("function f() return math.random() end", "field 'random'"),
    "string_meta_dump": ("function f() return getmetatable('').__index.dump(f) end", "field 'dump'"),
    "method_dump": ("function f() return ('x').dump(f) end", "field 'dump'"),
    "_G.os": ("function f() return _G.os.execute end", "field 'os'"),
    "_ENV.io": ("function f() return _ENV.io.open end", "global 'io'"),
}


@pytest.mark.parametrize("source,expected", ESCAPES.values(), ids=ESCAPES.keys())
def test_escape_routes_are_nil(source, expected):
    err, _ = fails(source)
    assert expected in err.message
    assert err.line == 1


def test_dangerous_globals_are_absent():
    sb = make("""function f()
        local found = {}
        for _, k in ipairs{'os','io','load','loadfile','dofile','require','debug','package',
                           'collectgarbage','python','loadstring','module','newproxy'} do
            if _G[k] ~= nil or _ENV[k] ~= nil then found[#found + 1] = k end
        end
        if string.dump or string.pack or math.random or math.randomseed then found[#found+1] = 'lib' end
        return found
    end""")
    assert sb.call("f") == {}  # empty table converts to {}


def test_string_metatable_cannot_be_replaced_or_reached():
    sb = make("""
        function f()
            local mt = getmetatable('')
            mt.__index = {rep = function() return 'hacked' end}   -- only a decoy copy
            assert(not pcall(setmetatable, 'x', {}))
            return ('a'):rep(3), rawequal(mt.__index, string)
        end
        function g() string.rep = nil return ('a').upper('b') end
    """)
    assert sb.call("f") == ("aaa", False)
    assert sb.call("g") == "B"
    with pytest.raises(RuleScriptError, match="string.rep"):
        make("function f() return ('a'):rep(1e9) end").call("f")


def test_gc_metamethods_refused():
    err, _ = fails("function f() setmetatable({}, {__gc = function() while true do end end}) end")
    assert "__gc" in err.message


def test_bytecode_chunk_rejected():
    with pytest.raises(RuleScriptError, match="binary chunk"):
        make("\x1bLua\x54\x00\x19\x93\r\n\x1a\n")
    assert_healthy()


def test_python_objects_are_opaque():
    # nothing in the environment is a Python object; if one leaked, its attributes stay shut
    class Secret:
        token = "s3cret"

    sb = make("function f() return leaked.token end\nfunction g() return leaked.__class__ end")
    sb._env["leaked"] = Secret()  # simulate a leak (the public API refuses Python objects)
    for fn in ("f", "g"):
        with pytest.raises(RuleScriptError, match="not allowed"):
            sb.call(fn)
    with pytest.raises(TypeError, match="cannot pass a Secret to Lua"):  # engine bug, not script
        sb.call("f", Secret())


def test_api_cannot_return_python_objects():
    sb = make("function f() return leak() end", {"leak": lambda: object()})
    with pytest.raises(RuleScriptError, match="leak: cannot pass a object to Lua"):
        sb.call("f")


def test_sandboxes_do_not_share_globals():
    a = make("secret = 42\nstring.upper = nil\nfunction f() return secret end")
    b = make("function f() return secret, string.upper('x') end")
    assert a.call("f") == 42
    assert b.call("f") == (None, "X")


# ---------------------------------------------------------------- pathological patterns
PATTERNS = {
    "backtracking": "function f() local r = string.find(('a'):rep(3000), '(.-)(.-)b') return r end",
    "many_stars": "function f() local r = ('a'):rep(200):find(('a*'):rep(10) .. 'b') return r end",
    "gmatch": "function f() for x in ('a'):rep(5000):gmatch('a*a*b') do end end",
    "gsub": "function f() local r = ('a'):rep(5000):gsub('(a-)(a-)b', '') return r end",
    "long_pattern": "function f() local r = ('a'):find(('x'):rep(1000), 1, true) return r end",
    "backreference": "function f() local r = ('a'):rep(100000):match('(a*)%1%1b') return r end",
}


@pytest.mark.parametrize("source", PATTERNS.values(), ids=PATTERNS.keys())
def test_pathological_patterns_are_refused(source):
    err, _ = fails(source)
    assert "pattern" in err.message
    assert err.line == 1


def test_normal_patterns_still_work():
    sb = make("""function f(s)
        local out = {}
        for k, v in s:gmatch('(%w+)=(%w+)') do out[k] = v end
        return out, (s:gsub('%s+', ' ')), s:find('b=', 1, true), string.format('%d-%s', 3, 'x')
    end""")
    assert sb.call("f", "a=1  b=2") == ({"a": "1", "b": "2"}, "a=1 b=2", 6, "3-x")


def test_table_functions_cannot_loop_in_c():
    err, _ = fails("""function f()
        local t = setmetatable({}, {__len = function() return 1 << 60 end, __index = {}, __newindex = {}})
        table.insert(t, 1, 1)
    end""")
    assert "table.insert: table longer than" in err.message
    err, _ = fails("function f() table.move({}, 1, 1 << 60, 2) end")
    assert "table.move: range" in err.message


# ---------------------------------------------------------------- output floods
def test_output_flood_through_api_logger_is_capped():
    logged = []
    sb = make("function f() for i = 1, 1e9 do pcall(log, 'spam', {i = i}) end end",
              {"log": lambda *a: logged.append(a)}, instruction_budget=10**9, output_limit=10_000)
    with pytest.raises(RuleScriptError, match=r"output limit \(10000 bytes\) exceeded"):
        sb.call("f")
    assert sb.output_bytes > 10_000 and len(logged) < 1000
    assert_healthy()


def test_huge_message_is_refused():
    messages = []
    sb = make("function f() message(('x'):rep(1 << 20)) end", {"message": messages.append},
              output_limit=100_000)
    with pytest.raises(RuleScriptError, match="output limit"):
        sb.call("f")
    assert messages == []


def test_print_is_captured_and_capped():
    sb = make("function f() print('hello', 1, nil, true) end\nfunction g() while true do print(('y'):rep(1000)) end end",
              output_limit=50_000, instruction_budget=10**9)
    sb.call("f")
    assert sb.output == ["hello\t1\tnil\ttrue"]
    with pytest.raises(RuleScriptError, match="output limit"):
        sb.call("g")
    assert len(sb.output) < 60


# ---------------------------------------------------------------- errors and lines
def test_syntax_error_reports_line():
    with pytest.raises(RuleScriptError) as info:
        make("local x = 1\n\nfunction f(\n  return x\nend")
    assert info.value.line == 4
    assert "expected" in info.value.message or "near" in info.value.message


def test_runtime_error_reports_line():
    sb = make("function f()\n  local t = nil\n  return t.x\nend")
    with pytest.raises(RuleScriptError) as info:
        sb.call("f")
    assert info.value.line == 3
    assert info.value.message == "attempt to index a nil value (local 't')"


def test_error_with_table_value_does_not_run_script_code():
    sb = make("function f() error(setmetatable({}, {__tostring = function() while true do end end})) end")
    with pytest.raises(RuleScriptError, match="error object is a table value"):
        sb.call("f")


def test_api_exception_becomes_clean_catchable_error():
    def spawn(team, kind):
        raise ValueError(f"unknown unit type '{kind}'")

    sb = make("""
        function f() spawn(1, 'tank9') end
        function g() local ok, msg = pcall(spawn, 1, 'tank9') return ok, msg end
    """, {"spawn": spawn})
    with pytest.raises(RuleScriptError) as info:
        sb.call("f")
    assert info.value.message == "spawn: unknown unit type 'tank9'"
    assert info.value.line == 2
    assert isinstance(info.value.__cause__, ValueError)
    ok, msg = sb.call("g")
    assert ok is False and "unknown unit type" in msg


def test_missing_function():
    sb = make("x = 1")
    assert not sb.has("x") and not sb.has("on_start")
    with pytest.raises(RuleScriptError, match="no global function 'on_start'"):
        sb.call("on_start")


# ---------------------------------------------------------------- conversions
def test_conversions_both_ways():
    seen = []

    def units(team, filt=None):
        seen.append((team, filt))
        return [{"id": 1, "type": "tank", "pos": [3.5, 4]}, {"id": 2, "type": "scout", "pos": [0, 0]}]

    def map_size():
        return 48, 32

    sb = make("""
        function on_start()
            local us = units(1, {type = 'tank', tag = 'a'})
            local w, h = map_size()
            return #us, us[1].type, us[1].pos[1], w, h
        end
        function echo(...) return ... end
        function nested() return {1, 2, {a = {true, false}}, {}} end
        function ids(u) order({u.id, 5}, 'move', 1, 2) end
    """, {"units": units, "map_size": map_size, "order": lambda *a: seen.append(a)})
    assert sb.has("on_start")
    assert sb.call("on_start") == (2, "tank", 3.5, 48, 32)
    assert seen[0] == (1, {"type": "tank", "tag": "a"})
    assert sb.call("echo", 1, 2.5, "s", True, None) == (1, 2.5, "s", True, None)
    assert sb.call("echo") is None
    assert sb.call("echo", {"a": [1, {"b": 2}]}) == {"a": [1, {"b": 2}]}
    assert sb.call("nested") == [1, 2, {"a": [True, False]}, {}]
    sb.call("ids", sb.table({"id": 9, "type": "tank"}))
    assert seen[-1] == ([9, 5], "move", 1, 2)


def test_lua_functions_pass_through_and_can_be_called_later():
    registered = []
    sb = make("n = 0\nevery(5, function(x) n = n + x return n end)",
              {"every": lambda s, fn: registered.append((s, fn))})
    seconds, fn = registered[0]
    assert seconds == 5
    assert sb.call(fn, 2) == 2 and sb.call(fn, 3) == 5


def test_cyclic_table_result_is_refused():
    sb = make("function f() local t = {} t.self = t return t end")
    with pytest.raises(RuleScriptError, match="nested too deeply"):
        sb.call("f")


def test_invalid_utf8_result_is_an_error_not_a_crash():
    sb = make("function f() return '\\255' end")
    with pytest.raises(RuleScriptError, match="UTF-8"):
        sb.call("f")


def test_wrapped_library_functions_behave_normally():
    sb = make("""function f()
        local gen = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)
        local got = {gen(), gen(), gen()}
        local ok, msg = pcall(error, 'boom', 0)
        local xok, handled = xpcall(function() error('bad', 0) end, function(m) return 'handled ' .. m end)
        local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b * 2 end)
        local _, first = coroutine.resume(co, 1)
        local _, second = coroutine.resume(co, 10)
        local t = {3, 1, 2}
        table.sort(t)
        table.insert(t, 4)
        return got, ok, msg, xok, handled, first, second, table.concat(t, ','), ('%d'):rep(2, '/')
    end""")
    assert sb.call("f") == ([1, 2, 3], False, "boom", False, "handled bad", 2, 20, "1,2,3,4", "%d/%d")


# ---------------------------------------------------------------- charged C work and fixed order
def test_c_work_is_charged_to_the_budget():
    # one sort of 300k numbers is ~6M comparisons in C: more than a 2M-instruction callback may spend
    sb = make("function f() local t = {} for i = 1, 300000 do t[i] = -i end table.sort(t) end",
              instruction_budget=2_000_000)
    with pytest.raises(RuleScriptError, match="instruction budget exceeded") as info:
        sb.call("f")
    assert info.value.line == 1
    small = make("function f() local t = {} for i = 1, 1000 do t[i] = -i end table.sort(t) return t[1] end",
                 instruction_budget=2_000_000)
    assert small.call("f") == -1000


def test_pairs_visits_keys_in_a_fixed_order():
    sb = make("""function f()
        local t = {zeta = 1, alpha = 2, [3] = 3, [1] = 4, [true] = 5, mid = 6, [2.5] = 7}
        local keys = {}
        for k in pairs(t) do keys[#keys + 1] = tostring(k) end
        return table.concat(keys, ",")
    end""")
    assert sb.call("f") == "1,2.5,3,alpha,mid,zeta,true"


def test_table_error_objects_get_the_raising_line():
    sb = make("function f()\n  local x = 1\n  error({code = x})\nend")
    with pytest.raises(RuleScriptError) as info:
        sb.call("f")
    assert info.value.line == 3 and "table value" in info.value.message


def test_flat_records_reach_lua_as_the_same_tables_for_the_same_charge():
    from engine.rules.sandbox import FlatRecords

    records = [{"id": i, "type": "light_bot", "x": 1.5 * i, "tag": None, "alive": True} for i in range(5)]
    box = LuaSandbox("t.lua", "function f(us) local s = 0 for _, u in ipairs(us) do s = s + u.id * u.x end "
                               "return #us, s, us[2].type, us[3].tag end", {})
    seen = []
    for value in (records, FlatRecords(records)):
        box._converted = 0
        table = box._to_lua(value)
        seen.append((box._converted, box.call("f", table)))
    assert seen[0] == seen[1] and seen[0][0] == 5 + 5 * 5
