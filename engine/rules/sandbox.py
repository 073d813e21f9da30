"""A Lua 5.4 sandbox for untrusted rule scripts.

Every rule script gets its own `LuaRuntime` (own globals, own memory cap) and sees only a
whitelisted environment plus the engine's rule API. Whatever goes wrong inside it — a syntax
error, a runtime error, an endless loop, a memory bomb, an escape attempt — surfaces as one
`RuleScriptError(script, message, line)`.

Why it is built this way:
- lupa's LuaJIT ignores count hooks in compiled loops, so this uses `lupa.lua54`.
- The instruction budget is a count hook. Once the budget is spent the hook fires on every
  instruction of the offending thread, so `pcall`/`xpcall` cannot swallow the abort.
- Coroutines do not inherit hooks in Lua 5.4, so `coroutine.create/wrap` are re-implemented to
  hook every new coroutine.
- C functions run unmetered, so the string/table functions whose cost depends on their
  arguments are wrapped: size caps, and their work (a worst-case estimate for patterns) charged
  to the instruction budget. A per-run budget bounds a script over a whole simulation. CPU-time
  and wall-clock backstops (checked in the hook) bound what instruction counting cannot see.
- Lua seeds its string hash per process, so `pairs` is replaced by one with a fixed order.
- `__gc` metamethods are refused: finalizers could run outside any call, i.e. unmetered.
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from lupa import lua54

from engine.errors import RuleScriptError
from engine.rules import limits
from engine.rules.limits import MAX_CONVERT_BYTES, MAX_PATTERN, MAX_PATTERN_WORK, MAX_STRING, MAX_TABLE_LEN
from engine.rules.limits import OUTPUT_LIMIT as DEFAULT_OUTPUT_LIMIT

# Count-hook period: the budget is charged in steps of this many VM instructions, and the
# clocks are checked once per step.
HOOK_INTERVAL = 1000
MAX_CONVERT_DEPTH = 32          # nesting limit when converting tables (tables may be cyclic)
MAX_CONVERT_ITEMS = 100_000     # entries one Lua->Python conversion may produce
OUTPUT_CALL_COST = 16           # bytes charged per output call, so empty calls are not free
DEFAULT_OUTPUT_FUNCTIONS = ("log", "message", "mark", "print")
OVERLOADED = "machine overloaded: wall-clock backstop ({:g} s) hit before any instruction or CPU limit"

_SCALARS = frozenset((type(None), bool, int, float, str))


class FlatRecords(list):
    """A list of flat records (str keys, scalar values) built by the engine, such as unit tables:
    passed to Lua as the same tables, charged the same, without checking each value."""


_monotonic = time.monotonic
_cpu_time = time.thread_time
_LuaTable = type(lua54.LuaRuntime().table())
_OUT_OF_MEMORY = "not enough memory"
_OTHER_CHUNK = re.compile(r'^\[string "[^"]*"\]:\d+: ')  # positions inside the sandbox's own code

# Runs once per runtime with the full standard library; everything it keeps is reachable
# from the script only through the functions it deliberately puts into `env`.
_BOOTSTRAP = r"""
local script_source, interval, budget, run_budget, clock_check, budget_msg, run_budget_msg, memory_msg,
      MAX_STRING, MAX_PATTERN, MAX_WORK, STEPS_PER_INSTR, BYTES_PER_INSTR, MAX_TABLE_LEN, CALL_COST,
      MAX_CONVERT_BYTES, MAX_CONVERT_ITEMS, MAX_CONVERT_DEPTH = ...

local sethook, getinfo = debug.sethook, debug.getinfo
local co_create, co_resume, co_close, running = coroutine.create, coroutine.resume, coroutine.close, coroutine.running
local error, type, pcall, xpcall, select, rawget, tostring, tonumber, next =
      error, type, pcall, xpcall, select, rawget, tostring, tonumber, next
local real_setmetatable, getmetatable, raw_getmetatable = setmetatable, getmetatable, debug.getmetatable
local s_find, s_match, s_gmatch, s_gsub, s_rep, s_format =
      string.find, string.match, string.gmatch, string.gsub, string.rep, string.format
local t_concat, t_insert, t_remove, t_move, t_sort, t_unpack, t_pack =
      table.concat, table.insert, table.remove, table.move, table.sort, table.unpack, table.pack
local floor, huge, log, tointeger = math.floor, math.huge, math.log, math.tointeger

-- Shared with Python: `aborted` is the reason once a hard limit hit (false otherwise), `line`
-- the script line it hit on. Keys exist up front so setting them never allocates.
local S = {aborted = false, line = false}
local remaining, run_left = budget, run_budget
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

-- Charge `n` instructions' worth of work to the call's and the run's budget. A cost that is NaN
-- or negative (an argument no wrapper validated) would refill the budget: it counts as infinite.
local function charge(n)
  if not (n >= 0) then n = huge end
  remaining = remaining - n
  run_left = run_left - n
  if run_left <= 0 then abort(run_budget_msg) end
  if remaining <= 0 then abort(budget_msg) end
end

-- A hard limit stays hard: pcall/xpcall/resume must not let a script go on after an abort (in
-- a coroutine) or retry after running out of memory (each retry forces an emergency GC).
local OUT_OF_MEMORY = "not enough memory"
local function no_oom(ok, ...)
  if S.aborted then abort(S.aborted) end
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
  charge(interval)
  local over = clock_check()
  if over then abort(over) end
end
sethook(hook, "", interval)

local env = {}

-- Message handler of every call from Python: while the stack is still there, note the script
-- line an error came from (for errors raised with level 0, from wrappers, or with a table value).
local err_line = false
local function locate(err)
  if S.aborted then return S.aborted end
  for level = 2, 60 do
    local info = getinfo(level, "Sl")
    if not info then break end
    if info.source == script_source and info.currentline > 0 then err_line = info.currentline; break end
  end
  return err
end

local function finish(ok, ...)
  if S.aborted then return false, S.aborted, false end
  if ok then return true, ... end
  local err = ...
  if type(err) == "number" then err = tostring(err)
  elseif type(err) == "userdata" then err = tostring(err)  -- a Python exception from lupa
  elseif type(err) ~= "string" then err = "(error object is a " .. type(err) .. " value)" end
  return false, err, err_line
end

-- Entry point for every call from Python. `fresh` refills the call budget; it is false for a
-- call nested inside another one (an API function calling back into the script).
local function enter(fresh, fn, ...)
  if fresh then remaining = budget end
  run_left = run_left - CALL_COST  -- the call itself costs the host about this much
  if run_left <= 0 then return false, run_budget_msg, false end
  if type(fn) == "string" then
    local f = rawget(env, fn)
    if type(f) ~= "function" then return false, "no global function '" .. fn .. "'", false end
    fn = f
  end
  err_line = false
  return finish(xpcall(fn, locate, ...))
end

local function compile(source, chunkname)
  local chunk, err = load(source, chunkname or script_source, "t", env)
  return chunk or false, err or false
end

-- API functions: Python returns (true, cost, results...) or (false, message [, fatal]).
local function api_result(ok, status, ...)
  if not ok then fail(type(status) == "string" and status or tostring(status)) end
  if status then
    charge((...))
    return select(2, ...)
  end
  local msg, fatal = ...
  if fatal then abort(msg) end
  fail(msg)
end
-- Text and entries an API call hands to Python, counted raw (as they will be converted) and
-- capped before Python converts anything: a table holding many references to one large string
-- would otherwise become as many copies in the host. Entries past the cap, and nesting past the
-- depth limit, are left to Python's conversion, which refuses them.
local function convert_size(v, depth, acc)
  local t = type(v)
  if t == "string" then
    acc.bytes = acc.bytes + #v
  elseif t == "table" and depth <= MAX_CONVERT_DEPTH then
    for k, x in next, v do
      acc.items = acc.items + 1
      if acc.items > MAX_CONVERT_ITEMS or acc.bytes > MAX_CONVERT_BYTES then return end
      convert_size(k, depth + 1, acc)
      convert_size(x, depth + 1, acc)
    end
  end
end
local function wrap_api(name, pyfn)
  local too_long = name .. ": arguments hold more than " .. MAX_CONVERT_BYTES .. " bytes of text"
  return function(...)
    local args, acc = t_pack(...), {bytes = 0, items = 0}
    for i = 1, args.n do convert_size(args[i], 0, acc) end
    if acc.bytes > MAX_CONVERT_BYTES then fail(too_long) end
    charge(acc.bytes / BYTES_PER_INSTR)
    return api_result(pcall(pyfn, ...))
  end
end

-- Bytes of the string (or number) arguments: what a linear C function's cost is charged on.
local function size_of(v)
  local t = type(v)
  if t == "string" then return #v elseif t == "number" then return 24 end
  return 0
end

------------------------------------------------------------------ string, charged and capped
-- Worst-case matcher steps of one pattern call, as a float (Lua integers would wrap around).
-- k = quantifiers, %b and back-references outside sets; each can try every subject position,
-- so an anchored attempt costs at most steps(k) * C(n + k, k) and all start positions together
-- at most steps(k) * C(n + k + 1, k + 1) (sum over the remaining subject lengths).
local function binomial(n, k)
  local r = 1.0
  for i = 1, k do
    r = r * (n + i) / i  -- every factor is >= 1, so stopping early keeps a lower bound above the cap
    if r > MAX_WORK then return huge end
  end
  return r
end
local function pattern_cost(p, n, anchored, repeats)
  local k = select(2, s_gsub(p, "%%[b1-9]", ""))
  local bare = s_gsub(s_gsub(p, "%%.", ""), "%[%^?%]?[^%]]*%]", "")
  k = k + select(2, s_gsub(bare, "[%*%+%-%?]", ""))
  local per_path = 2.0 * (#p + 2) * (k + 2)
  local paths = anchored and binomial(n, k) or binomial(n + 1, k + 1)
  return per_path * paths * repeats
end

local function pattern_check(fname, s, p, init, plain, repeats)
  if type(p) == "number" then p = tostring(p) end  -- the C function matches a number as its text
  if type(p) ~= "string" or (type(s) ~= "string" and type(s) ~= "number") then return end
  if #p > MAX_PATTERN then
    fail("string." .. fname .. ": pattern longer than " .. MAX_PATTERN .. " characters")
  end
  local n = #tostring(s)
  init = tonumber(init)
  if init and init > 1 then n = floor(n - init + 1); if n < 0 then n = 0 end end
  local work
  if plain then work = (n + 1.0) * (#p + 1)
  else work = pattern_cost(p, n, fname ~= "gmatch" and p:sub(1, 1) == "^", repeats) end
  if work > MAX_WORK then
    fail("string." .. fname .. ": pattern too complex for a subject of " .. n .. " characters")
  end
  charge(work / STEPS_PER_INSTR + 1)
end

local function result_check(fname, r)
  if type(r) == "string" then
    if #r > MAX_STRING then fail("string." .. fname .. ": result longer than " .. MAX_STRING .. " bytes") end
    charge(#r / BYTES_PER_INSTR)
  end
  return r
end

-- A C function linear in its arguments' sizes: charged on them before it runs, `per_byte`
-- instructions a byte (default 1 / BYTES_PER_INSTR).
local function linear(f, per_byte)
  per_byte = per_byte or 1 / BYTES_PER_INSTR
  return function(...)
    local args = t_pack(...)
    local size = args.n
    for i = 1, args.n do size = size + size_of(args[i]) end
    charge(size * per_byte + 1)
    return f(...)
  end
end

local sstring = {}
for _, k in ipairs{"char", "lower", "reverse", "sub", "upper"} do sstring[k] = linear(string[k]) end
sstring.byte = linear(string.byte, 1)  -- may push one value per byte
sstring.len = string.len
sstring.find = function(s, p, init, plain)
  pattern_check("find", s, p, init, plain, 1)
  return s_find(s, p, init, plain)
end
sstring.match = function(s, p, init) pattern_check("match", s, p, init, false, 1); return s_match(s, p, init) end
-- gmatch and gsub try each start position at most twice (again after an empty match)
sstring.gmatch = function(s, p, init) pattern_check("gmatch", s, p, init, false, 2); return s_gmatch(s, p, init) end
sstring.gsub = function(s, p, repl, n)
  pattern_check("gsub", s, p, 1, false, 2)
  local r, count = s_gsub(s, p, repl, n)
  return result_check("gsub", r), count
end
sstring.rep = function(s, n, sep)
  n = tonumber(n)
  if n and (type(s) == "string" or type(s) == "number") and n > 0 then
    local size = (#tostring(s) + 0.0) * n
    if type(sep) == "string" then size = size + #sep * (n - 1.0) end
    if size > MAX_STRING then fail("string.rep: result longer than " .. MAX_STRING .. " bytes") end
    charge(size / BYTES_PER_INSTR + 1)
  end
  return s_rep(s, n, sep)
end
-- Addresses ("table: 0x55d4...") differ from run to run: a value without a __tostring prints as
-- its __name (a string) or its type alone, and format's %p is refused, so nothing a script
-- writes depends on the allocator.
local function safe_tostring(v)
  local t = type(v)
  if t == "table" or t == "function" or t == "thread" or t == "userdata" then
    local mt = raw_getmetatable(v)
    if mt and rawget(mt, "__tostring") ~= nil then return tostring(v) end
    local name = mt and rawget(mt, "__name")
    return type(name) == "string" and name or t
  end
  return tostring(v)
end
sstring.format = linear(function(fmt, ...)
  if type(fmt) == "string" and s_find(fmt, "%%[-+ #0]*%d*%.?%d*p") then fail("string.format: %p is not allowed") end
  local args = t_pack(...)
  for i = 1, args.n do
    local t = type(args[i])
    if t ~= "string" and t ~= "number" then args[i] = safe_tostring(args[i]) end
  end
  return (result_check("format", s_format(fmt, t_unpack(args, 1, args.n))))
end)

-- The string metatable is how `("x"):rep(...)` reaches the library: point it at the safe
-- table and protect it so getmetatable("") cannot reach or change the real one.
local smt = getmetatable("")
smt.__index = sstring
smt.__metatable = {__index = sstring}

------------------------------------------------------------------ table, charged and capped
-- With __len/__index/__newindex tricks insert/remove/move can loop in C without allocating.
-- Costs are computed in floats from arguments validated as the C functions read them, so no
-- __len result or integer overflow can make a charge negative or NaN.
local function int_arg(fname, pos, v)
  local i = tointeger(tonumber(v) or false)
  if not i then fail("bad argument #" .. pos .. " to 'table." .. fname .. "' (number has no integer representation)") end
  return i + 0.0
end
local function len_of(fname, t)
  if type(t) ~= "table" then return 0.0 end
  local n = #t
  n = type(n) == "number" and tointeger(n)
  if not n then fail("table." .. fname .. ": object length is not an integer") end
  if n > MAX_TABLE_LEN then fail("table." .. fname .. ": table longer than " .. MAX_TABLE_LEN .. " elements") end
  return n < 0 and 0.0 or n + 0.0
end
-- The elements a C loop over [i, j] visits, refused beyond the cap.
local function range(fname, i, j)
  local n = j - i + 1
  if n > MAX_TABLE_LEN then fail("table." .. fname .. ": range longer than " .. MAX_TABLE_LEN .. " elements") end
  return n > 0 and n or 0
end
-- Elements shifted when inserting at / removing from `pos` of a table of length `n`.
local function shifted(fname, n, pos)
  local d = n - int_arg(fname, 2, pos) + 1
  if d < 1 then return 1 end
  return d < n + 1 and d or n + 1
end
local stable = {pack = linear(table.pack)}
stable.insert = function(t, ...)
  local n = len_of("insert", t)
  if select("#", ...) >= 2 then charge(shifted("insert", n, (...))) else charge(1) end
  return t_insert(t, ...)
end
stable.remove = function(t, ...)
  local n = len_of("remove", t)
  if select("#", ...) >= 1 then charge(shifted("remove", n, (...))) else charge(1) end
  return t_remove(t, ...)
end
stable.sort = function(t, cmp)
  local n = len_of("sort", t)
  if n > 1 then charge(n * (log(n, 2) + 1)) end
  return t_sort(t, cmp)
end
stable.unpack = function(t, i, j)
  local first = i == nil and 1.0 or int_arg("unpack", 2, i)
  local last = j == nil and len_of("unpack", t) or int_arg("unpack", 3, j)
  charge(range("unpack", first, last) + 1)
  return t_unpack(t, i, j)
end
stable.concat = function(t, sep, i, j)
  local first = i == nil and 1.0 or int_arg("concat", 3, i)
  local last = j == nil and len_of("concat", t) or int_arg("concat", 4, j)
  charge(range("concat", first, last) + 1)
  local r = t_concat(t, sep, i, j)
  if #r > MAX_STRING then fail("table.concat: result longer than " .. MAX_STRING .. " bytes") end
  charge(#r / BYTES_PER_INSTR)
  return r
end
stable.move = function(a1, f, e, t, a2)
  charge(range("move", int_arg("move", 2, f), int_arg("move", 3, e)) + 1)
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
  no_oom(ok, ...)
  if ok then return ... end
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

------------------------------------------------------------------ pairs and next, in a fixed order
-- Lua seeds its string hash per process and hashes tables, functions and coroutines by address,
-- so raw `next` visits keys in a different order in every process. pairs() and next() visit
-- numbers, then strings, then booleans, each sorted, then at most one key of another type (two
-- such keys have no order that does not depend on addresses: refused), so a script does the same
-- thing (and spends the same budget) in every run.
local KEY_RANK = {number = 1, string = 2, boolean = 3}
local function key_before(a, b)
  local ra, rb = KEY_RANK[type(a)] or 4, KEY_RANK[type(b)] or 4
  if ra ~= rb then return ra < rb end
  if ra == 3 then return not a and b end
  return a < b
end
local function ordered_keys(fname, t)
  local keys, n, odd = {}, 0, 0
  for k in next, t do
    n = n + 1
    keys[n] = k
    if not KEY_RANK[type(k)] then odd = odd + 1 end
  end
  if odd > 1 then
    fail(fname .. ": a table with several keys that are tables, functions or coroutines has no fixed order")
  end
  if n > 1 then charge(n * (log(n, 2) + 1)) end
  t_sort(keys, key_before)
  return keys
end
-- The position, key and value of the next key after position i of `keys` still present in t
-- (entries removed while traversing are skipped).
local function next_from(t, keys, i)
  while true do
    i = i + 1
    local k = keys[i]
    if k == nil then return nil end
    local v = rawget(t, k)
    if v ~= nil then return i, k, v end
  end
end
-- next(t, k) finds k in the order computed by the last next(t, nil) (kept while t lives), so a
-- traversal by next costs one sort, like pairs.
local ORDER = real_setmetatable({}, {__mode = "k"})
local function ordered_next(t, k)
  if type(t) ~= "table" then return next(t, k) end  -- the C function raises the error
  local order = ORDER[t]
  if k == nil or not order or not order.pos[k] then
    if k == nil and next(t) == nil then return nil end
    local keys = ordered_keys("next", t)
    local pos = {}
    for i = 1, #keys do pos[keys[i]] = i end
    order = {keys = keys, pos = pos}
    ORDER[t] = order
    if k ~= nil and not pos[k] then fail("invalid key to 'next'") end
  end
  return select(2, next_from(t, order.keys, k == nil and 0 or order.pos[k]))
end
local real_pairs = pairs
local function sorted_pairs(t)
  local mt = raw_getmetatable(t)
  if type(t) ~= "table" or (mt and rawget(mt, "__pairs") ~= nil) then return real_pairs(t) end
  local keys, i = ordered_keys("pairs", t), 0
  return function()
    local j, k, v = next_from(t, keys, i)
    if j then i = j end
    return k, v
  end, t, nil
end

------------------------------------------------------------------ the environment
for _, k in ipairs{"ipairs", "rawequal", "rawget", "rawlen", "rawset", "getmetatable", "type",
                   "_VERSION"} do
  env[k] = _G[k]
end
-- error copies its message to prefix the position: a megabyte message raised in a pcall loop is
-- C work like any other
env.error = function(msg, level)
  charge(size_of(msg) / BYTES_PER_INSTR + 1)
  if level == nil then level = 1 end
  if type(level) == "number" and level > 0 then level = level + 1 end
  return error(msg, level)
end
env.pairs, env.next = sorted_pairs, ordered_next
env.tonumber = linear(tonumber)
env.tostring = safe_tostring
env.select = function(n, ...)
  charge(select("#", ...) / BYTES_PER_INSTR + 1)
  return select(n, ...)
end
-- assert's message gets the caller's line like error's does
env.assert = function(v, ...)
  if v then return v, ... end
  if select("#", ...) == 0 then fail("assertion failed!") end
  local msg = ...
  charge(size_of(msg) / BYTES_PER_INSTR + 1)
  if type(msg) == "string" then fail(msg) end
  error(msg, 2)
end
-- An error raised inside a hook calls xpcall's message handler while hooks are still off:
-- an unguarded handler could loop forever. Aborts are the only errors the hook raises.
env.xpcall = function(f, handler, ...)
  return no_oom(xpcall(f, function(...)
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
smath.max, smath.min = linear(math.max), linear(math.min)
local sutf8 = {charpattern = utf8.charpattern}
for _, k in ipairs{"char", "len", "offset"} do sutf8[k] = linear(utf8[k]) end
sutf8.codepoint = linear(utf8.codepoint, 1)
sutf8.codes = utf8.codes

------------------------------------------------------------------ errors in the script's words
-- A C function called from a wrapper above names the wrapper's local ("bad argument #2 to
-- 's_format'") at a position in this chunk, which a script catching the error would see: each
-- public function re-raises such an error under its public name, at the script's line.
local OWN_POSITION = '^%[string "<python>"%]:%d+: '
local function public_error(name, ok, ...)
  if ok then return ... end
  local msg = ...
  if type(msg) ~= "string" then error(msg, 0) end
  local bare, own = s_gsub(msg, OWN_POSITION, "", 1)
  local renamed, named = s_gsub(bare, "^(bad argument #%d+ to )'[%w_?]+'", "%1'" .. name .. "'", 1)
  if own + named == 0 then error(msg, 0) end  -- the script's own error, or one already at its line
  fail(renamed)
end
local function in_public_words(lib, prefix, names)
  for _, k in ipairs(names) do
    local f, name = lib[k], prefix .. k
    lib[k] = function(...) return public_error(name, no_oom(pcall(f, ...))) end
  end
end
in_public_words(sstring, "string.", {"byte", "char", "find", "format", "gmatch", "gsub", "len", "lower", "match",
                                     "rep", "reverse", "sub", "upper"})
in_public_words(stable, "table.", {"concat", "insert", "move", "pack", "remove", "sort", "unpack"})
in_public_words(sutf8, "utf8.", {"char", "codepoint", "len", "offset"})
in_public_words(smath, "math.", {"max", "min"})
in_public_words(scoroutine, "coroutine.", {"create", "wrap"})
in_public_words(env, "", {"setmetatable", "tonumber"})
env.string, env.table, env.math, env.utf8, env.coroutine = sstring, stable, smath, sutf8, scoroutine
env.unpack = stable.unpack
env._G = env

return S, env, enter, compile, wrap_api, hook, pattern_cost, function() return run_budget - run_left end,
       safe_tostring
"""

# A print() for scripts: formats like Lua's print, then goes through the output cap.
_PRINT = r"""
local out, tostring = ...
local select, concat = select, table.concat
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
    """One rule script in its own Lua 5.4 runtime, callable under per-call and per-run limits."""

    def __init__(
        self,
        name: str,
        source: str,
        api: Mapping[str, Callable[..., Any]],
        *,
        instruction_budget: int = limits.CALL_BUDGET,
        run_budget: int = limits.RUN_BUDGET,
        memory_mb: int = limits.MEMORY_MB,
        cpu_s: float = limits.CALL_CPU_S,
        run_cpu_s: float = limits.RUN_CPU_S,
        wall_clock_s: float | None = None,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
        output_functions: Iterable[str] = DEFAULT_OUTPUT_FUNCTIONS,
        prelude: str | None = None,
    ):
        self.name = name
        self.instruction_budget = instruction_budget
        self.memory_mb = memory_mb
        self.cpu_s, self.run_cpu_s = cpu_s, run_cpu_s
        self.wall_clock_s = wall_clock_s if wall_clock_s is not None else cpu_s * limits.WALL_FACTOR
        self.cpu_used = 0.0             # CPU seconds spent in this script's top-level calls
        self.output_limit = output_limit
        self.output_bytes = 0
        self.output: list[str] = []     # lines written by the script's print()
        self.last_api_exception: BaseException | None = None
        self._depth = 0
        self._converted = 0             # values converted in the current API call (charged)
        self._host_cost = 0             # host work the current API call reported (charged)
        self._cpu_deadline = self._wall_deadline = float("inf")
        self._cpu_msg = ""
        self._overloaded = OVERLOADED.format(self.wall_clock_s)
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
        self._hook_interval = min(HOOK_INTERVAL, max(1, instruction_budget))
        try:
            (state, env, enter, compile_, wrap_api, self._hook, self._pattern_cost, self._spent,
             safe_tostring) = lua.execute(
                _BOOTSTRAP, "=" + name, self._hook_interval, instruction_budget, run_budget, self._clock_check,
                "instruction budget exceeded", f"instruction budget per run ({run_budget}) exceeded", self._mem_msg,
                MAX_STRING, MAX_PATTERN, MAX_PATTERN_WORK, limits.PATTERN_STEPS_PER_INSTRUCTION,
                limits.BYTES_PER_INSTRUCTION, MAX_TABLE_LEN, limits.CALL_COST, MAX_CONVERT_BYTES, MAX_CONVERT_ITEMS,
                MAX_CONVERT_DEPTH)
        except lua54.LuaMemoryError:
            raise RuleScriptError(name, self._mem_msg) from None
        self._state, self._env, self._enter = state, env, enter
        self._rawget = lua.globals().rawget
        self._sethook = lua.globals().debug.sethook  # a C function: runs no hooked code

        output_names = set(output_functions)
        for api_name, fn in api.items():
            env[api_name] = wrap_api(api_name, self._wrap_python(api_name, fn, api_name in output_names))
        if "print" not in api:
            env["print"] = lua.execute(_PRINT, wrap_api("print", self._wrap_python("print", self.output.append, True)),
                                       safe_tostring)

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
        top = self._depth == 0
        if top:
            started = _cpu_time()
            self._arm_clocks(started)
        self._depth += 1
        try:
            result = self._enter(top, fn, *args)
        except lua54.LuaMemoryError:
            result = (False, _OUT_OF_MEMORY, False)
        except lua54.LuaError as exc:  # an abort escaping enter() itself
            result = (False, str(exc).split("\nstack traceback:", 1)[0], False)
        except UnicodeDecodeError:
            result = (False, "returned a string that is not valid UTF-8", False)
        finally:
            self._depth -= 1
            if top:
                self.cpu_used += _cpu_time() - started
        if result is True:
            return None
        if result.__class__ is not tuple:
            # enter() always returns a status first; a lone false cannot occur
            raise RuleScriptError(self.name, f"unexpected result {result!r}")
        if not result[0]:
            self._fail(result[1], result[2])
        if len(result) == 2:
            value = result[1]
            return value if value.__class__ is not _LuaTable else self._to_py_checked(value)
        return tuple(self._to_py_checked(v) for v in result[1:])

    @property
    def instructions_used(self) -> int:
        """Instructions (and charged work) this script spent so far in the run."""
        return int(self._spent())

    def pattern_cost(self, pattern: str, subject_len: int, anchored: bool = False, repeats: int = 1) -> float:
        """The sandbox's worst-case matcher steps for a pattern call (what it refuses and charges)."""
        return self.call(self._pattern_cost, pattern, subject_len, anchored, repeats)

    # ------------------------------------------------------------------ clocks (backstops only)
    def _arm_clocks(self, now_cpu: float) -> None:
        run_left = self.run_cpu_s - self.cpu_used
        if run_left < self.cpu_s:
            self._cpu_msg = f"CPU-time limit per run ({self.run_cpu_s:g} s) exceeded"
            self._cpu_deadline = now_cpu + max(run_left, 0.0)
        else:
            self._cpu_msg = f"CPU-time limit ({self.cpu_s:g} s per call) exceeded"
            self._cpu_deadline = now_cpu + self.cpu_s
        self._wall_deadline = _monotonic() + self.wall_clock_s

    def _clock_check(self) -> str | bool:
        if _cpu_time() > self._cpu_deadline:
            return self._cpu_msg
        if _monotonic() > self._wall_deadline:
            return self._overloaded
        return False

    def has(self, name: str) -> bool:
        """True if the script defines a global function `name`."""
        return lua54.lua_type(self._rawget(self._env, name)) == "function"

    def charge(self, instructions: int) -> None:
        """Called by an API function: the host work it causes (or queues, like path planning),
        charged to the script's budgets with the call, before the simulation goes on."""
        self._host_cost += max(int(instructions), 0)

    def table(self, obj: Mapping | list | tuple) -> Any:
        """Convert a dict/list (recursively) to a Lua table owned by this sandbox."""
        return self._to_lua(obj)

    # ------------------------------------------------------------------ errors
    def _fail(self, message: str, line: int | bool | None) -> None:
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
        text, own_line = self._split_message(message)
        raise RuleScriptError(self.name, text, own_line if own_line is not None else (line or None)) from exc

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
                self._converted = self._host_cost = 0
                args = tuple(map(to_py, args))
                if is_output:
                    self.output_bytes += OUTPUT_CALL_COST + _text_size(args)
                    if self.output_bytes > self.output_limit:
                        return False, f"output limit ({self.output_limit} bytes) exceeded", True
                result = fn(*args)
                if result is None:
                    values = ()
                elif result.__class__ is tuple:
                    values = tuple(map(to_lua, result))
                else:
                    values = (to_lua(result),)
                cost = limits.API_CALL_COST + limits.API_ITEM_COST * self._converted + self._host_cost
                return (True, cost, *values)
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
        self._converted += len(value) if hasattr(value, "__len__") else 1
        if cls is FlatRecords and depth < MAX_CONVERT_DEPTH:    # the engine's own flat records: nothing to inspect
            self._converted += sum(map(len, value))
            return self._table_from([self._table_from(r) for r in value])
        if cls is dict and all(k.__class__ is str and v.__class__ in _SCALARS for k, v in value.items()):
            return self._table_from(value)     # a flat record (a unit, a team's resources): nothing to convert
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
        left = [MAX_CONVERT_ITEMS, MAX_CONVERT_BYTES]
        try:
            return _table_to_py(value, 0, left)
        finally:
            self._converted += MAX_CONVERT_ITEMS - left[0]

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
    """Array-like tables (keys exactly 1..n) become lists, others dicts; the empty table is {}.
    `left` is [entries, characters of text] the conversion may still produce: checked after each
    entry, so the host holds at most one string beyond the cap."""
    if depth > MAX_CONVERT_DEPTH:
        raise ValueError("table nested too deeply (or cyclic)")
    out = {}
    for key, val in table.items():  # raw traversal: no metamethods, no script code
        left[0] -= 1
        if left[0] < 0:
            raise ValueError(f"table too large (more than {MAX_CONVERT_ITEMS} entries)")
        if key.__class__ not in _SCALARS:
            raise ValueError("table keys must be strings, numbers or booleans")
        if key.__class__ is str or val.__class__ is str:
            left[1] -= (len(key) if key.__class__ is str else 0) + (len(val) if val.__class__ is str else 0)
            if left[1] < 0:
                raise ValueError(f"table holds more than {MAX_CONVERT_BYTES} bytes of text")
        if key in out:  # Lua's true and 1 (false and 0) are one key in Python
            raise ValueError(f"table has both the key {int(key)} and the key {str(bool(key)).lower()}")
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
