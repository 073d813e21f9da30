"""Simulator benchmark: a mixed skirmish on a generated 128x128 map (~15% impassable), 30 Hz,
fog on, built-in AI on both sides attack-moving at each other, one Lua rule counting units every
5 s, no rendering. Reports speed at 40, 200, 1000 and 5000 units, the flow-field cost, a screenshot
cost, and a MicroRTS-comparable melee: 100 v 100 light bots on an open 48x48 map, fought out.
"""
from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from engine.level import load_level
from engine.schema.level import MapGenParams
from engine.sim import Simulation
from engine.systems.pathfinding import clear_shared, compute_flow_field

MAP = MapGenParams(width=128, height=128, seed=7, cliff_density=0.10, water_density=0.05, deposits=12,
                   symmetry="mirror_x")
ROSTER = ("light_bot", "raider_bot", "assault_bot", "rocket_bot", "artillery_bot")
RULE = """
function on_start()
  every(5, function()
    local counts = {}
    for _, t in ipairs(teams()) do counts["team" .. t] = #units(t) end
    log("unit_count", counts)
  end)
end
"""


def _anchors(passable: np.ndarray, x0: int, x1: int, n: int) -> list[tuple[float, float]]:
    """`n` well-spread passable anchor tiles in columns [x0, x1)."""
    h = passable.shape[0]
    out: list[tuple[float, float]] = []
    step = 4
    for y in range(4, h - 4, step):
        for x in range(x0, x1, step):
            if passable[y - 1:y + 2, x - 1:x + 2].all():
                out.append((x + 0.5, y + 0.5))
    if len(out) < n:
        raise RuntimeError("bench map has too few free anchors")
    picks = np.linspace(0, len(out) - 1, n).round().astype(int)
    return [out[i] for i in picks]


def bench_level(units_per_side: int, time_limit: float = 600.0, per_anchor: int = 10) -> dict:
    """The benchmark level as a LevelConfig dict (rule script path relative to a temp folder)."""
    from engine.mapgen import generate
    from engine.maps import ground_passable, terrain_array

    passable = ground_passable(terrain_array(generate(MAP)))
    teams = []
    for team, (x0, x1, goal) in enumerate(((4, 40, 112.0), (88, 124, 16.0))):
        anchors = _anchors(passable, x0, x1, units_per_side // per_anchor)
        units = [{"type": ROSTER[k % len(ROSTER)], "x": ax, "y": ay, "count": per_anchor, "spread": 1.5 * (per_anchor / 10) ** 0.5}
                 for k, (ax, ay) in enumerate(anchors)]
        teams.append({"id": team, "name": f"side{team}", "units": units,
                      "controller": {"type": "ai", "behaviour": "waves", "target": {"x": goal, "y": 64.0},
                                     "interval": 30.0}})
    return {
        "name": f"bench_{2 * units_per_side}", "description": "benchmark skirmish",
        "map": {"generate": MAP.model_dump()}, "teams": teams,
        "rules": [{"id": "unit_counter", "script": "counter.lua"}],
        "switches": {"fog_of_war": True, "production": False, "time_limit": time_limit},
        "conditions": [{"kind": "last_survivor"}],
    }


def _measure(units_per_side: int, game_seconds: float, per_anchor: int = 10) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "counter.lua").write_text(RULE, encoding="utf-8")
        # the 5000-unit run is beyond what a level may start with: this level is the bench's own
        level = load_level(bench_level(units_per_side, per_anchor=per_anchor), base_dir=tmp,
                           max_start_units=2 * units_per_side)
    clear_shared()      # every size computes its own flow fields, as a run in a fresh process does
    sim = Simulation(level, seed=0)
    ticks = int(game_seconds * 30)
    unit_ticks = 0
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(ticks):
        if sim.done:
            break
        unit_ticks += sim.world.alive_idx.size
        sim.step()
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu
    done_ticks = max(1, sim.tick)
    return {
        "units": 2 * units_per_side,
        "game_seconds": round(sim.time, 2),
        "game_seconds_per_wall_second": round(sim.time / wall, 2),
        "game_seconds_per_cpu_second": round(sim.time / cpu, 2),
        "unit_ticks_per_second": int(unit_ticks / wall),
        "ms_per_tick": round(1000 * wall / done_ticks, 3),
        "cpu_ms_per_tick": round(1000 * cpu / done_ticks, 3),
        "deaths": sum(1 for e in sim.trace.events if e["event"] == "death"),
        "sim": sim,
    }


def _flowfield_ms(repeats: int = 10) -> float:
    from engine.mapgen import generate
    from engine.maps import ground_passable, terrain_array

    passable = ground_passable(terrain_array(generate(MAP)))
    goals = [(x + 0.0, y + 0.0) for x, y in zip(*np.nonzero(passable.T))][:: max(1, passable.sum() // repeats)][:repeats]
    times = []
    for gx, gy in goals:
        t = time.process_time()
        compute_flow_field(passable, int(gx), int(gy))
        times.append(1000 * (time.process_time() - t))
    return round(statistics.median(times), 2)


def _screenshot_ms(sim: Simulation, repeats: int = 10) -> float | None:
    try:
        from engine.render import render_minimap
    except ImportError:
        return None
    snap = sim.snapshot()
    render_minimap(snap, viewer=0)  # warm the terrain cache, as a real run does after frame one
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        render_minimap(sim.snapshot(), viewer=0).tobytes()
        times.append(1000 * (time.perf_counter() - t))
    return round(statistics.median(times), 2)


def _scale_figures(big: dict, quick: bool) -> dict:
    """5000 units (25 a start group) against the 1000-unit run: how the cost grows with the army."""
    huge = _measure(2500, 10.0 if quick else 30.0, per_anchor=25)
    return {
        "ms_per_tick_5000_units": huge["ms_per_tick"],
        "cpu_ms_per_tick_5000_units": huge["cpu_ms_per_tick"],
        "game_seconds_per_wall_second_5000_units": huge["game_seconds_per_wall_second"],
        "game_seconds_per_cpu_second_5000_units": huge["game_seconds_per_cpu_second"],
        "cpu_ms_per_tick_1000_units": big["cpu_ms_per_tick"],
        "cpu_cost_ratio_5000_to_1000_units": round(huge["cpu_ms_per_tick"] / big["cpu_ms_per_tick"], 2),
    }


def melee_level(per_side: int = 100) -> dict:
    """Two blocks of light bots facing each other across an open 48x48 map, both attack-moving."""
    teams = []
    for team, (x, goal) in enumerate(((8.5, 40.0), (39.5, 8.0))):
        groups = [{"type": "light_bot", "x": x, "y": 6.5 + 4 * k, "count": per_side // 10, "spread": 1.5} for k in range(10)]
        teams.append({"id": team, "name": f"side{team}", "units": groups,
                      "controller": {"type": "ai", "behaviour": "waves", "target": {"x": goal, "y": 24.0},
                                     "interval": 5.0}})
    return {"name": f"melee_{per_side}v{per_side}", "description": "melee benchmark", "map": {"name": "open_field"},
            "teams": teams, "switches": {"fog_of_war": False, "production": False, "time_limit": 300.0},
            "conditions": [{"kind": "last_survivor"}]}


def melee_figures(per_side: int = 100) -> dict:
    """Game seconds simulated per wall / CPU second while the melee is fought to its end."""
    clear_shared()
    sim = Simulation(load_level(melee_level(per_side)), seed=0)
    start, cpu = time.perf_counter(), time.process_time()
    result = sim.run()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {f"melee_{per_side}v{per_side}": {
        "game_seconds": round(sim.time, 2), "ended_by": result.ended_by, "winners": result.winners,
        "deaths": sum(1 for e in sim.trace.events if e["event"] == "death"),
        "game_seconds_per_wall_second": round(sim.time / wall, 1),
        "game_seconds_per_cpu_second": round(sim.time / cpu, 1)}}


def run_bench(quick: bool = False) -> dict:
    # 30 game seconds covers the approach and the main clash (most units alive throughout)
    small = _measure(100, 10.0 if quick else 30.0)
    big = _measure(500, 10.0 if quick else 30.0)
    # generated scenarios field tens of units: there the fixed cost of a tick, not the unit count, rules
    tiny = _measure(20, 10.0 if quick else 30.0)
    shot = _screenshot_ms(small["sim"])
    return {
        "ms_per_tick_40_units": tiny["ms_per_tick"],
        "game_seconds_per_wall_second_40_units": tiny["game_seconds_per_wall_second"],
        "game_seconds_per_wall_second": small["game_seconds_per_wall_second"],
        "unit_ticks_per_second": small["unit_ticks_per_second"],
        "ms_per_tick_200_units": small["ms_per_tick"],
        "game_seconds_per_cpu_second_200_units": small["game_seconds_per_cpu_second"],
        "game_seconds_per_wall_second_1000_units": big["game_seconds_per_wall_second"],
        "unit_ticks_per_second_1000_units": big["unit_ticks_per_second"],
        "ms_per_tick_1000_units": big["ms_per_tick"],
        "game_seconds_per_cpu_second_1000_units": big["game_seconds_per_cpu_second"],
        "flowfield_128_ms": _flowfield_ms(),
        "screenshot_ms": shot,
        "game_seconds_measured": {"40": tiny["game_seconds"], "200": small["game_seconds"], "1000": big["game_seconds"]},
        "deaths": {"40": tiny["deaths"], "200": small["deaths"], "1000": big["deaths"]},
        **_scale_figures(big, quick),
        **melee_figures(),
    }


# --- sandbox kill latencies -----------------------------------------------------------------------
KILL_CASES = {
    "runaway_loop": "function f() while true do end end",
    "memory_bomb": "function f() local t = {} for i = 1, 1e9 do t[i] = {i} end end",
    "pattern_bomb": 'function f() string.find(string.rep("a", 1000), "a*a*a*a*a*a*a*b") end',
    # megabyte string copies cost one instruction each: only the CPU-time backstop stops this
    "big_concat_loop": "function f() local s = ('x'):rep(1 << 20) while true do local t = s .. s end end",
    # a __len of NaN once made table.concat's charge NaN, and the budget never ran out again
    "budget_refill": "function f() pcall(table.concat, setmetatable({}, {__len = function() return 0/0 end})) "
                     "while true do end end",
    # 4000 references to one megabyte string: once 4 GB of copies in the host before log's size check
    "shared_string_copies": "function f() local big, t = ('x'):rep(1 << 20), {} for i = 1, 4000 do t[i] = big end "
                            "g(t) end",
}


def sandbox_kill_latencies(repeats: int = 3) -> dict:
    """Milliseconds from calling a hostile callback to its RuleScriptError (median of `repeats`) and
    the most host (Python) memory the call took (KB; the script's own Lua heap is capped apart), the
    process's peak resident memory, and the wall time of whole runs whose rule burns 600k
    instructions every tick (per-run budget) or orders 2000 units to a fresh point every tick."""
    import resource
    import tracemalloc

    from engine.errors import RuleScriptError
    from engine.rules.sandbox import LuaSandbox

    out: dict = {}
    n = _largest_admitted_subject("a*a*a*b")
    cases = {**KILL_CASES,  # the C matcher's longest unmetered stretch: the worst call the limits admit
             "pattern_at_limit": f'function f() for i = 1, 1e9 do string.find(("a"):rep({n}), "a*a*a*b") end end'}
    out["pattern_at_limit_subject"] = n
    for name, source in cases.items():
        times, peaks, message = [], [], ""
        for _ in range(1 if name == "big_concat_loop" else repeats):
            box = LuaSandbox("bench.lua", source, {"g": lambda *args: None})
            tracemalloc.start()
            start = time.perf_counter()
            try:
                box.call("f")
                message = "not stopped"
            except RuleScriptError as err:
                message = err.message
            times.append(1000 * (time.perf_counter() - start))
            peaks.append(tracemalloc.get_traced_memory()[1] / 1024)
            tracemalloc.stop()
        out[f"kill_ms_{name}"] = round(statistics.median(times), 1)
        out[f"kill_host_peak_kb_{name}"] = round(max(peaks))
        out[f"kill_reason_{name}"] = message
    out["per_run_budget_run_s"] = _per_tick_loop_run_s()
    out["order_flood_run_s"] = _order_flood_run_s()
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out


def _largest_admitted_subject(pattern: str) -> int:
    """The longest subject of 'a's one call of string.find(subject, pattern) may get."""
    from engine.rules import limits
    from engine.rules.sandbox import LuaSandbox

    box = LuaSandbox("bench.lua", "", {})
    cap = min(limits.MAX_PATTERN_WORK, limits.CALL_BUDGET * limits.PATTERN_STEPS_PER_INSTRUCTION)
    n = 1
    while box.pattern_cost(pattern, n + 1) <= cap:
        n += 1
    return n


def _per_tick_loop_run_s() -> float:
    return _rule_run_s("function on_start() every(1/30, function() for i = 1, 600000 do end end) end")


ORDER_FLOOD = """
function on_start()
  local ids = {}
  for i = 1, 10 do
    for _, id in ipairs(spawn(1, "light_bot", 60, 20 + 2 * i, 200)) do ids[#ids + 1] = id end
  end
  every(1/30, function()
    local w, h = map_size()
    order(ids, "move", 1 + random() * (w - 2), 1 + random() * (h - 2))
  end)
end
"""


def _order_flood_run_s() -> float:
    return _rule_run_s(ORDER_FLOOD)


def _rule_run_s(rule: str) -> float:
    """Wall seconds of a 20 s run of the 10-unit bench level with `rule`."""
    level = bench_level(10, time_limit=20.0)
    level["rules"] = [{"id": "bench_rule", "script": "rule.lua"}]
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "rule.lua").write_text(rule, encoding="utf-8")
        lv = load_level(level, base_dir=tmp)
    start = time.perf_counter()
    Simulation(lv, seed=0).run()
    return round(time.perf_counter() - start, 2)
