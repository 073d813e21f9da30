"""A Lua 5.4 sandbox for untrusted rule scripts.

Every rule script gets its own `LuaRuntime` (own globals, own memory cap) and sees only a
whitelisted environment plus the engine's rule API. Whatever goes wrong inside it — a syntax
error, a runtime error, an endless loop, a memory bomb, an escape attempt — surfaces as one
`RuleScriptError(script, message, line)`.

Why it is built this way (see DESIGN.md §5):
- lupa's LuaJIT ignores count hooks in compiled loops, so this uses `lupa.lua54`.
- The instruction budget is a count hook. Once the budget is spent the hook fires on every
  instruction of the offending thread, so `pcall`/`xpcall` cannot swallow the abort.
- Coroutines do not inherit hooks in Lua 5.4, so `coroutine.create/wrap` are re-implemented to
  hook every new coroutine.
- C functions run unmetered, so the string/table functions whose cost depends on their
  arguments are wrapped with size caps and a worst-case cost estimate for patterns; the
  wall-clock backstop (checked in the hook) bounds what slips through.
- `__gc` metamethods are refused: finalizers could run outside any call, i.e. unmetered.
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from lupa import lua54

from engine.errors import RuleScriptError

# Count-hook period: the budget is charged in steps of this many VM instructions, and the
# wall clock is checked once per step.
HOOK_INTERVAL = 1000
MAX_STRING = 1 << 20            # largest string string.rep/gsub/format/table.concat may build
MAX_PATTERN = 256               # longest pattern (or plain search string) accepted
MAX_PATTERN_WORK = 5e7          # worst-case matcher steps one pattern call may cost (~20 ms)
BIG_WORK = 1e6                  # C work above which a wrapper checks the wall clock first
MAX_TABLE_LEN = 1 << 22         # longest table the shifting table functions accept
MAX_CONVERT_DEPTH = 32          # nesting limit when converting tables (tables may be cyclic)
MAX_CONVERT_ITEMS = 100_000     # entries one Lua->Python conversion may produce
DEFAULT_OUTPUT_LIMIT = 1 << 20  # bytes all output functions together may receive
OUTPUT_CALL_COST = 16           # bytes charged per output call, so empty calls are not free
DEFAULT_OUTPUT_FUNCTIONS = ("log", "message", "mark", "print")

_SCALARS = frozenset((type(None), bool, int, float, str))
_monotonic = time.monotonic
_LuaTable = type(lua54.LuaRuntime().table())
_OUT_OF_MEMORY = "not enough memory"
_OTHER_CHUNK = re.compile(r'^\[string "[^"]*"\]:\d+: ')  # positions inside the sandbox's own code

# Runs once per runtime with the full standard library; everything it keeps is reachable
# from the script only through the functions it deliberately puts into `env`.
_BOOTSTRAP = r"""
local script_source, interval, budget, now, budget_msg, clock_msg, memory_msg,
      MAX_STRING, MAX_PATTERN, MAX_WORK, BIG_WORK, MAX_TABLE_LEN = ...

local sethook, getinfo = debug.sethook, debug.getinfo
local co_create, co_resume, co_close, running = coroutine.create, coroutine.resume, coroutine.close, coroutine.running
local error, type, pcall, select, rawget, tostring = error, type, pcall, select, rawget, tostring
local real_setmetatable, getmetatable = setmetatable, getmetatable
local s_find, s_match, s_gmatch, s_gsub, s_rep, s_format =
      string.find, string.match, string.gmatch, string.gsub, string.rep, string.format
local t_concat, t_insert, t_remove, t_move, t_sort, t_unpack =
      table.concat, table.insert, table.remove, table.move, table.sort, table.unpack

-- Shared with Python: `aborted` is the reason once a hard limit hit (false otherwise), `line`
-- the script line it hit on. Keys exist up front so setting them never allocates.
local S = {aborted = false, line = false}
local remaining, deadline = budget, math.huge
local hook

-- Make the current thread fail on every instruction from now on and raise the abort.
local function abort(reason)
  sethook(running(), hook, "", 1)  -- first: what follows may itself run out of memory
  if not S.aborted then
    S.aborted = reason
    for level = 3, 40 do  -- first script frame above abort/hook/wrappers
      local info = getinfo(level, "Sl")
      if not info then break end
      if info.source == script_source and info.currentline > 0 then S.line = info.currentline; break end
    end
  end
  error(S.aborted, 3)
end

-- Out of memory is a hard limit too: pcall/xpcall/resume must not let a script retry (each
-- retry forces an emergency GC, so a retry loop would crawl until the wall clock).
local OUT_OF_MEMORY = "not enough memory"
local function no_oom(ok, ...)
  if not ok and ... == OUT_OF_MEMORY then abort(memory_msg) end
  return ok, ...
end

-- Raise `msg` at the innermost script line (wrappers sit between the script and the error).
local function fail(msg)
  for level = 2, 40 do
    local info = getinfo(level, "Sl")
    if not info then break end
    if info.source == script_source and info.currentline > 0 then error(msg, level) end
  end
  error(msg, 0)
end

-- Only threads that are already failing run in abort mode (count 1), so they never execute
-- again; the main thread is put back to normal by Python after each failed call.
hook = function()
  if S.aborted then
    sethook(running(), hook, "", 1)
    error(S.aborted, 2)
  end
  remaining = remaining - interval
  if remaining <= 0 then abort(budget_msg)
  elseif now() > deadline then abort(clock_msg) end
end
sethook(hook, "", interval)

local env = {}

local function finish(ok, ...)
  if S.aborted then return false, S.aborted end
  if ok then return true, ... end
  local err = ...
  if type(err) == "number" then err = tostring(err)
  elseif type(err) == "userdata" then err = tostring(err)  -- a Python exception from lupa
  elseif type(err) ~= "string" then err = "(error object is a " .. type(err) .. " value)" end
  return false, err
end

-- Entry point for every call from Python. `d` is the wall-clock deadline; nil for a call
-- nested inside another one (an API function calling back into the script), which must not
-- refill the budget.
local function enter(d, fn, ...)
  if d then remaining = budget; deadline = d end
  if type(fn) == "string" then
    local f = rawget(env, fn)
    if type(f) ~= "function" then return false, "no global function '" .. fn .. "'" end
    fn = f
  end
  return finish(pcall(fn, ...))
end

local function compile(source, chunkname)
  local chunk, err = load(source, chunkname or script_source, "t", env)
  return chunk or false, err or false
end

-- API functions: Python returns (true, results...) or (false, message [, fatal]).
local function api_result(ok, status, ...)
  if not ok then fail(type(status) == "string" and status or tostring(status)) end
  if status then return ... end
  local msg, fatal = ...
  if fatal then abort(msg) end
  fail(msg)
end
local function wrap_api(pyfn)
  return function(...) return api_result(pcall(pyfn, ...)) end
end

------------------------------------------------------------------ string, capped
local function pattern_check(fname, s, p, init)
  if type(p) ~= "string" or (type(s) ~= "string" and type(s) ~= "number") then return end
  if #p > MAX_PATTERN then
    fail("string." .. fname .. ": pattern longer than " .. MAX_PATTERN .. " characters")
  end
  -- Worst-case backtracking: each quantifier (also %b and back-references) can multiply
  -- the work by the subject length.
  local k = select(2, s_gsub(p, "%%[b1-9]", ""))
  local bare = s_gsub(s_gsub(p, "%%.", ""), "%[%^?%]?[^%]]*%]", "")
  k = k + select(2, s_gsub(bare, "[%*%+%-%?]", ""))
  local n = #tostring(s)
  if type(init) == "number" and init > 1 then n = n - init + 1 end
  local work, f = (#p + 1) * (n + 1), 1
  for i = 1, k do f = f * i; work = work * (n + 1) end
  work = work / f
  if work > MAX_WORK then
    fail("string." .. fname .. ": pattern too complex for a subject of " .. n .. " characters")
  end
  -- many big calls between two hook firings could otherwise overrun the wall clock
  if work > BIG_WORK and now() > deadline then abort(clock_msg) end
end

local function result_check(fname, r)
  if type(r) == "string" and #r > MAX_STRING then
    fail("string." .. fname .. ": result longer than " .. MAX_STRING .. " bytes")
  end
  return r
end

local sstring = {}
for _, k in ipairs{"byte", "char", "len", "lower", "reverse", "sub", "upper"} do sstring[k] = string[k] end
sstring.find = function(s, p, init, plain) pattern_check("find", s, p, init); return s_find(s, p, init, plain) end
sstring.match = function(s, p, init) pattern_check("match", s, p, init); return s_match(s, p, init) end
sstring.gmatch = function(s, p, init) pattern_check("gmatch", s, p, init); return s_gmatch(s, p, init) end
sstring.gsub = function(s, p, repl, n)
  pattern_check("gsub", s, p, 1)
  local r, count = s_gsub(s, p, repl, n)
  return result_check("gsub", r), count
end
sstring.rep = function(s, n, sep)
  if type(n) == "number" and (type(s) == "string" or type(s) == "number") and n > 0 then
    local size = #tostring(s) * n
    if type(sep) == "string" then size = size + #sep * (n - 1) end
    if size > MAX_STRING then fail("string.rep: result longer than " .. MAX_STRING .. " bytes") end
    if size > BIG_WORK and now() > deadline then abort(clock_msg) end
  end
  return s_rep(s, n, sep)
end
sstring.format = function(...) return (result_check("format", s_format(...))) end

-- The string metatable is how `("x"):rep(...)` reaches the library: point it at the safe
-- table and protect it so getmetatable("") cannot reach or change the real one.
local smt = getmetatable("")
smt.__index = sstring
smt.__metatable = {__index = sstring}

------------------------------------------------------------------ table, capped
-- With __len/__index/__newindex tricks insert/remove/move can loop in C without allocating.
local function len_check(fname, t)
  if type(t) == "table" and #t > MAX_TABLE_LEN then
    fail("table." .. fname .. ": table longer than " .. MAX_TABLE_LEN .. " elements")
  end
end
local stable = {pack = table.pack}
stable.insert = function(t, ...) len_check("insert", t); return t_insert(t, ...) end
stable.remove = function(t, ...) len_check("remove", t); return t_remove(t, ...) end
stable.sort = function(t, cmp) len_check("sort", t); return t_sort(t, cmp) end
stable.unpack = function(t, i, j) len_check("unpack", t); return t_unpack(t, i, j) end
stable.concat = function(t, sep, i, j)
  len_check("concat", t)
  local r = t_concat(t, sep, i, j)
  if #r > MAX_STRING then fail("table.concat: result longer than " .. MAX_STRING .. " bytes") end
  return r
end
stable.move = function(a1, f, e, t, a2)
  if type(f) == "number" and type(e) == "number" and e - f > MAX_TABLE_LEN then
    fail("table.move: range longer than " .. MAX_TABLE_LEN .. " elements")
  end
  return t_move(a1, f, e, t, a2)
end

------------------------------------------------------------------ coroutines, hooked
local function hooked_create(f)
  if S.aborted then abort(S.aborted) end
  local co = co_create(f)
  sethook(co, hook, "", interval)
  return co
end
local function wrap_result(co, ok, ...)
  if ok then return ... end
  no_oom(ok, ...)
  co_close(co)
  error((...), 0)
end
local scoroutine = {
  create = hooked_create,
  wrap = function(f)
    local co = hooked_create(f)
    return function(...) return wrap_result(co, co_resume(co, ...)) end
  end,
  resume = function(...) return no_oom(co_resume(...)) end, yield = coroutine.yield, status = coroutine.status,
  running = running, isyieldable = coroutine.isyieldable, close = co_close,
}

------------------------------------------------------------------ the environment
for _, k in ipairs{"assert", "error", "ipairs", "next", "pairs", "select", "tonumber",
                   "tostring", "type", "getmetatable", "rawequal", "rawget",
                   "rawlen", "rawset", "_VERSION"} do
  env[k] = _G[k]
end
-- An error raised inside a hook calls xpcall's message handler while hooks are still off:
-- an unguarded handler could loop forever. Aborts are the only errors the hook raises.
local real_xpcall = xpcall
env.xpcall = function(f, handler, ...)
  return no_oom(real_xpcall(f, function(...)
    if S.aborted then return S.aborted end
    return handler(...)
  end, ...))
end
env.pcall = function(...) return no_oom(pcall(...)) end
env.setmetatable = function(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    fail("__gc metamethods are not allowed")
  end
  return real_setmetatable(t, mt)
end
local smath = {}
for k, v in pairs(math) do if k ~= "random" and k ~= "randomseed" then smath[k] = v end end
local sutf8 = {}
for k, v in pairs(utf8) do sutf8[k] = v end
env.string, env.table, env.math, env.utf8, env.coroutine = sstring, stable, smath, sutf8, scoroutine
env.unpack = stable.unpack
env._G = env

return S, env, enter, compile, wrap_api, hook
"""

# A print() for scripts: formats like Lua's print, then goes through the output cap.
_PRINT = r"""
local out = ...
local select, tostring, concat = select, tostring, table.concat
return function(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  return out(concat(parts, "\t"))
end
"""


def _deny_attribute(obj: Any, name: Any, is_setting: bool) -> str:
    # No Python object is reachable from the environment; if one ever leaks, it stays opaque.
    raise AttributeError("Python attribute access is not allowed in rule scripts")


class LuaSandbox:
    """One rule script in its own Lua 5.4 runtime, callable under per-call limits."""

    def __init__(
        self,
        name: str,
        source: str,
        api: Mapping[str, Callable[..., Any]],
        *,
        instruction_budget: int = 2_000_000,
        memory_mb: int = 32,
        wall_clock_s: float = 2.0,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
        output_functions: Iterable[str] = DEFAULT_OUTPUT_FUNCTIONS,
        prelude: str | None = None,
    ):
        self.name = name
        self.instruction_budget = instruction_budget
        self.memory_mb = memory_mb
        self.wall_clock_s = wall_clock_s
        self.output_limit = output_limit
        self.output_bytes = 0
        self.output: list[str] = []     # lines written by the script's print()
        self.last_api_exception: BaseException | None = None
        self._depth = 0
        self._line_re = re.compile(re.escape(name) + r":(\d+): ")
        self._mem_msg = f"memory limit ({memory_mb} MiB) exceeded"

        self._lua = lua = lua54.LuaRuntime(
            max_memory=memory_mb << 20,
            register_eval=False,
            register_builtins=False,
            unpack_returned_tuples=True,
            attribute_filter=_deny_attribute,
        )
        self._table_from = lua.table_from
        try:
            state, env, enter, compile_, wrap_api, self._hook = lua.execute(
                _BOOTSTRAP, "=" + name, min(HOOK_INTERVAL, max(1, instruction_budget)),
                instruction_budget, time.monotonic, "instruction budget exceeded",
                f"wall-clock limit ({wall_clock_s:g} s) exceeded", self._mem_msg,
                MAX_STRING, MAX_PATTERN, MAX_PATTERN_WORK, BIG_WORK, MAX_TABLE_LEN)
        except lua54.LuaMemoryError:
            raise RuleScriptError(name, self._mem_msg) from None
        self._state, self._env, self._enter = state, env, enter
        self._rawget = lua.globals().rawget
        self._sethook = lua.globals().debug.sethook  # a C function: runs no hooked code
        self._hook_interval = min(HOOK_INTERVAL, max(1, instruction_budget))

        output_names = set(output_functions)
        for api_name, fn in api.items():
            env[api_name] = wrap_api(self._wrap_python(api_name, fn, api_name in output_names))
        if "print" not in api:
            env["print"] = lua.execute(_PRINT, wrap_api(self._wrap_python("print", self.output.append, True)))

        if prelude is not None:  # trusted helpers, but run as script code: same env, budget and memory cap
            chunk, err = compile_(prelude, "=rule_lib")
            if not chunk:
                raise RuleScriptError(name, f"rule library: {err}")
            self.call(chunk)
        chunk, err = compile_(source)
        if not chunk:
            raise RuleScriptError(name, *self._split_message(err))
        self.call(chunk)

    # ------------------------------------------------------------------ public API
    def call(self, fn: str | Any, *args: Any) -> Any:
        """Call a global function (by name) or a Lua function value under the limits.

        Returns None, one value, or a tuple for several results, converted to Python.
        """
        if args:
            args = [a if a.__class__ in _SCALARS else self._to_lua(a) for a in args]
        deadline = _monotonic() + self.wall_clock_s if self._depth == 0 else None
        self._depth += 1
        try:
            result = self._enter(deadline, fn, *args)
        except lua54.LuaMemoryError:
            result = (False, _OUT_OF_MEMORY)
        except lua54.LuaError as exc:  # an abort escaping enter() itself
            result = (False, str(exc).split("\nstack traceback:", 1)[0])
        except UnicodeDecodeError:
            result = (False, "returned a string that is not valid UTF-8")
        finally:
            self._depth -= 1
        if result is True:
            return None
        if result.__class__ is not tuple:
            # enter() always returns a status first; a lone false cannot occur
            raise RuleScriptError(self.name, f"unexpected result {result!r}")
        if not result[0]:
            self._fail(result[1])
        if len(result) == 2:
            value = result[1]
            return value if value.__class__ is not _LuaTable else self._to_py_checked(value)
        return tuple(self._to_py_checked(v) for v in result[1:])

    def has(self, name: str) -> bool:
        """True if the script defines a global function `name`."""
        return lua54.lua_type(self._rawget(self._env, name)) == "function"

    def table(self, obj: Mapping | list | tuple) -> Any:
        """Convert a dict/list (recursively) to a Lua table owned by this sandbox."""
        return self._to_lua(obj)

    # ------------------------------------------------------------------ errors
    def _fail(self, message: str) -> None:
        state = self._state
        reason = state["aborted"]
        if reason:
            line = state["line"] or None
            if self._depth:  # nested call: the outer call must keep failing too
                raise RuleScriptError(self.name, reason, line) from None
            state["aborted"] = state["line"] = False
            # the main thread was left failing on every instruction
            self._sethook(self._hook, "", self._hook_interval)
            raise RuleScriptError(self.name, reason, line) from None
        if message == _OUT_OF_MEMORY:
            raise RuleScriptError(self.name, self._mem_msg) from None
        exc = self.last_api_exception
        self.last_api_exception = None
        raise RuleScriptError(self.name, *self._split_message(message)) from exc

    def _split_message(self, message: str) -> tuple[str, int | None]:
        """'name:12: text' -> ('text', 12); position prefixes of other chunks are dropped."""
        m = self._line_re.match(message)
        if m:
            return message[m.end():], int(m.group(1))
        return _OTHER_CHUNK.sub("", message, count=1), None

    # ------------------------------------------------------------------ API wrapping
    def _wrap_python(self, api_name: str, fn: Callable, is_output: bool) -> Callable:
        to_py, to_lua = self._to_py, self._to_lua

        def call_from_lua(*args: Any) -> tuple:
            try:
                args = tuple(map(to_py, args))
                if is_output:
                    self.output_bytes += OUTPUT_CALL_COST + _text_size(args)
                    if self.output_bytes > self.output_limit:
                        return False, f"output limit ({self.output_limit} bytes) exceeded", True
                result = fn(*args)
                if result is None:
                    return (True,)
                if result.__class__ is tuple:
                    return (True, *map(to_lua, result))
                return True, to_lua(result)
            except Exception as exc:  # becomes a Lua error the script may pcall
                self.last_api_exception = exc
                return False, f"{api_name}: {exc or type(exc).__name__}"

        return call_from_lua

    # ------------------------------------------------------------------ conversions
    def _to_lua(self, value: Any, depth: int = 0) -> Any:
        cls = value.__class__
        if cls in _SCALARS:
            return value
        if depth > MAX_CONVERT_DEPTH:
            raise ValueError("value nested too deeply to pass to Lua")
        if isinstance(value, Mapping):
            return self._table_from({_lua_key(k): self._to_lua(v, depth + 1) for k, v in value.items()})
        if isinstance(value, (list, tuple)):
            return self._table_from([self._to_lua(v, depth + 1) for v in value])
        if lua54.lua_type(value) is not None:  # a Lua value of this runtime (table, function)
            return value
        if hasattr(value, "item"):  # numpy scalar
            item = value.item()
            if item.__class__ in _SCALARS:
                return item
        raise TypeError(f"cannot pass a {cls.__name__} to Lua")

    def _to_py(self, value: Any) -> Any:
        if value.__class__ is not _LuaTable:
            return value
        return _table_to_py(value, 0, [MAX_CONVERT_ITEMS])

    def _to_py_checked(self, value: Any) -> Any:
        try:
            return self._to_py(value)
        except (ValueError, UnicodeDecodeError) as exc:
            raise RuleScriptError(self.name, f"bad return value: {exc}") from None


def _lua_key(key: Any) -> Any:
    if key.__class__ in _SCALARS and key is not None:
        return key
    if hasattr(key, "item"):
        return key.item()
    raise TypeError(f"cannot use a {key.__class__.__name__} as a Lua table key")


def _table_to_py(table: Any, depth: int, left: list[int]) -> dict | list:
    """Array-like tables (keys exactly 1..n) become lists, others dicts; the empty table is {}."""
    if depth > MAX_CONVERT_DEPTH:
        raise ValueError("table nested too deeply (or cyclic)")
    out = {}
    for key, val in table.items():  # raw traversal: no metamethods, no script code
        left[0] -= 1
        if left[0] < 0:
            raise ValueError(f"table too large (more than {MAX_CONVERT_ITEMS} entries)")
        if key.__class__ not in _SCALARS:
            raise ValueError("table keys must be strings, numbers or booleans")
        out[key] = _table_to_py(val, depth + 1, left) if val.__class__ is _LuaTable else val
    n = len(out)
    if n and all(k.__class__ is int for k in out) and min(out) == 1 and max(out) == n:
        return [out[i] for i in range(1, n + 1)]
    return out


def _text_size(values: Iterable[Any]) -> int:
    """Bytes of text in (nested) arguments, the measure of an output call's size."""
    size = 0
    for v in values:
        if isinstance(v, str):
            size += len(v)
        elif isinstance(v, dict):
            size += _text_size(v.keys()) + _text_size(v.values())
        elif isinstance(v, list):
            size += _text_size(v)
        else:
            size += 8
    return size
