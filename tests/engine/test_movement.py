"""Movement and pathfinding: flow fields route around walls, units never enter cliffs or water."""
import numpy as np
import pytest

from engine import Simulation, load_level
from engine.systems import pathfinding
from engine.systems.pathfinding import FlowFieldCache, compute_flow_field


def test_flow_field_routes_around_a_wall():
    p = np.ones((20, 20), dtype=bool)
    p[2:20, 10] = False                     # wall with a gap at the top
    f = compute_flow_field(p, 15, 15)
    x, y, path = 5, 15, []
    for _ in range(200):
        if (x, y) == (15, 15):
            break
        dx, dy = int(np.sign(f.dir_x[y, x])), int(np.sign(f.dir_y[y, x]))
        assert (dx, dy) != (0, 0)
        x, y = x + dx, y + dy
        assert p[y, x]
        path.append((x, y))
    assert (x, y) == (15, 15)
    assert min(py for _, py in path) <= 1   # went through the gap
    assert f.dist[15, 5] > 0 and f.dist[15, 15] == 0


def _dijkstra(p: np.ndarray, gx: int, gy: int) -> np.ndarray:
    """Textbook Dijkstra over the same moves (orthogonal 2, diagonal 3, no cut corners)."""
    import heapq

    h, w = p.shape
    dist = np.full((h, w), np.iinfo(np.int32).max, dtype=np.int64)
    dist[gy, gx] = 0
    heap = [(0, gx, gy)]
    while heap:
        d, x, y = heapq.heappop(heap)
        if d > dist[y, x]:
            continue
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                nx, ny = x + dx, y + dy
                if (dx, dy) == (0, 0) or not (0 <= nx < w and 0 <= ny < h) or not p[ny, nx]:
                    continue
                if dx and dy and not (p[y, nx] and p[ny, x]):
                    continue
                nd = d + (3 if dx and dy else 2)
                if nd < dist[ny, nx]:
                    dist[ny, nx] = nd
                    heapq.heappush(heap, (nd, nx, ny))
    return dist


@pytest.mark.parametrize("seed", range(4))
def test_flow_field_distances_are_shortest_paths(seed):
    """The label-correcting wave gives every cell its exact shortest distance, and each open cell
    steps to the first of its neighbours (orthogonal, then diagonal, past no blocked corner) with
    the least distance below its own."""
    rng = np.random.default_rng(seed)
    p = rng.random((int(rng.integers(12, 40)), int(rng.integers(12, 40)))) > 0.3
    gy, gx = (int(v) for v in np.argwhere(p)[int(rng.integers(np.count_nonzero(p)))])
    f = compute_flow_field(p, gx, gy)
    dist = _dijkstra(p, gx, gy)
    assert np.array_equal(f.dist, dist)
    assert (f.dist[p] < np.iinfo(np.int32).max).sum() > 10      # a real wave, not a sealed pocket
    h, w = p.shape
    for y, x in np.argwhere(p):
        best, step = dist[y, x], (0, 0)
        for dy, dx, cost in pathfinding._STEPS:
            ny, nx = y + dy, x + dx
            if not (0 <= ny < h and 0 <= nx < w) or (cost == pathfinding.DIAG and not (p[ny, x] and p[y, nx])):
                continue
            if dist[ny, nx] < best:
                best, step = dist[ny, nx], (dx, dy)
        assert (np.sign(f.dir_x[y, x]), np.sign(f.dir_y[y, x])) == step


def test_unreachable_cells_have_no_direction():
    p = np.ones((16, 16), dtype=bool)
    p[:, 8] = False
    f = compute_flow_field(p, 12, 8)
    assert f.dir_x[8, 2] == 0 and f.dir_y[8, 2] == 0


def test_goal_inside_a_wide_building_is_reached_from_its_rim():
    # a 3x3 footprint: every neighbour of the goal cell is blocked too
    p = np.ones((20, 20), dtype=bool)
    p[9:12, 9:12] = False
    f = compute_flow_field(p, 10, 10)
    x, y = 2, 2
    for _ in range(40):
        dx, dy = int(np.sign(f.dir_x[y, x])), int(np.sign(f.dir_y[y, x]))
        if (dx, dy) == (0, 0) or not p[y + dy, x + dx]:
            break
        x, y = x + dx, y + dy
    assert max(abs(x - 10), abs(y - 10)) == 2   # stopped on the building's rim
    assert f.dist[2, 2] < f.dist[0, 0]


def test_cache_reuses_fields_per_goal_and_version():
    p = np.ones((16, 16), dtype=bool)
    c = FlowFieldCache(capacity=2)
    a = c.get(p, 0, 3, 3)
    assert c.get(p, 0, 3, 3) is a and c.computed == 1
    c.get(p, 1, 3, 3)
    c.get(p, 0, 4, 4)
    assert c.computed == 3 and len(c._fields) == 2


def test_simulations_of_one_process_share_fields_per_grid_and_goal():
    pathfinding.clear_shared()
    p = np.ones((16, 16), dtype=bool)
    a = FlowFieldCache().get(p, 0, 3, 3)
    assert FlowFieldCache().get(p, 5, 3, 3) is a           # another simulation, the same grid: reused
    walled = p.copy()
    walled[:12, 8] = False
    b = FlowFieldCache().get(walled, 0, 3, 3)            # another grid, same goal and version: its own field
    assert b is not a and np.array_equal(b.dist, compute_flow_field(walled, 3, 3).dist)
    assert not np.array_equal(b.dist, a.dist)


def test_a_run_with_shared_fields_matches_a_cold_one(arena, h):
    rows = h.open_rows()
    for y in range(4, 28):
        rows[y] = rows[y][:16] + "#" + rows[y][17:]
    h.write_map(arena, rows)
    level = load_level(h.level_dict([h.team(0, [{"type": "light_bot", "x": 5, "y": 16, "count": 6}])]), base_dir=arena)

    def run() -> tuple[str, bytes]:
        sim = Simulation(level)
        sim.issue(0, {"kind": "move", "units": list(range(6)), "x": 27, "y": 16})
        sim.step(30 * 20)
        return sim.trace.hash(), sim.world.pos[:6].tobytes()

    pathfinding.clear_shared()
    cold = run()
    assert len(pathfinding._SHARED) >= 1
    assert run() == cold


def test_ground_unit_walks_around_cliff_and_never_enters_it(tmp_path, h):
    rows = h.open_rows()
    for y in range(4, 32):
        rows[y] = rows[y][:16] + "#" + rows[y][17:]
    h.write_map(tmp_path, rows)
    sim = Simulation(load_level(h.level_dict([h.team(0, [{"type": "light_bot", "x": 8, "y": 20}])]), base_dir=tmp_path))
    assert sim.issue(0, {"kind": "move", "units": [0], "x": 24, "y": 20}) == (True, None)
    w = sim.world
    for _ in range(30 * 40):
        sim.step()
        assert w.terrain.ground_ok[int(w.y[0]), int(w.x[0])]
    assert abs(w.x[0] - 24) < 1.5 and abs(w.y[0] - 20) < 1.5
    assert w.order[0] == 0  # arrived -> idle


def test_orders_reject_bad_destinations(tmp_path, h):
    rows = h.open_rows()
    rows[5] = "~" * 32
    h.write_map(tmp_path, rows)
    sim = Simulation(load_level(h.level_dict([h.team(0, [{"type": "light_bot", "x": 8, "y": 20},
                                                        {"type": "fighter", "x": 8, "y": 22},
                                                        {"type": "solar_collector", "x": 2.5, "y": 2.5}]),
                                              h.team(1, [{"type": "light_bot", "x": 28, "y": 28}])]), base_dir=tmp_path))
    assert sim.issue(0, {"kind": "move", "units": [0], "x": 8, "y": 5.5}) == (False, "impassable")
    assert sim.issue(0, {"kind": "move", "units": [1], "x": 8, "y": 5.5}) == (True, None)  # air over water
    assert sim.issue(0, {"kind": "move", "units": [0], "x": 99, "y": 5}) == (False, "off_map")
    assert sim.issue(0, {"kind": "move", "units": [3], "x": 9, "y": 9}) == (False, "not_owner")
    assert sim.issue(0, {"kind": "move", "units": [42], "x": 9, "y": 9}) == (False, "unknown_unit")
    assert sim.issue(0, {"kind": "move", "units": [2], "x": 9, "y": 9}) == (False, "not_mobile")
    assert sim.issue(0, {"kind": "dance", "units": [0]}) == (False, "unknown_order")
    assert sim.issue(0, {"kind": "move", "units": [0], "x": "a", "y": 1}) == (False, "bad_order")
    orders = [e for e in sim.trace.events if e["event"] == "order"]
    assert len(orders) == 8 and orders[0]["error"] == "impassable"


def test_units_sharing_a_spot_spread_out(arena, h):
    sim = Simulation(load_level(h.level_dict([h.team(0, [{"type": "light_bot", "x": 10, "y": 10, "count": 8, "spread": 0}])]),
                                base_dir=arena))
    sim.issue(0, {"kind": "move", "units": list(range(8)), "x": 20, "y": 20})
    sim.step(30 * 10)
    w = sim.world
    xy = np.stack([w.x[:8], w.y[:8]], axis=1)
    d = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, 9)
    assert d.min() > 0.2
    assert np.hypot(w.x[:8] - 20, w.y[:8] - 20).max() < 3.5


def test_patrol_turns_around(arena, h):
    sim = Simulation(load_level(h.level_dict([h.team(0, [{"type": "light_bot", "x": 5, "y": 10}])]), base_dir=arena))
    sim.issue(0, {"kind": "patrol", "units": [0], "x": 15, "y": 10})
    xs = []
    for _ in range(30 * 12):
        sim.step()
        xs.append(sim.world.x[0])
    assert max(xs) > 13 and xs[-1] < max(xs) - 2
    assert sim.world.order[0] == 4  # still patrolling


@pytest.mark.parametrize("kind", ["move", "fight", "move_force"])
def test_move_kinds_reach_destination(arena, h, kind):
    sim = Simulation(load_level(h.level_dict([h.team(0, [{"type": "light_bot", "x": 5, "y": 5}])]), base_dir=arena))
    sim.issue(0, {"kind": kind, "units": [0], "x": 20, "y": 25})
    sim.step(30 * 15)
    assert np.hypot(sim.world.x[0] - 20, sim.world.y[0] - 25) < 1.0


def test_unchecked_steps_move_units_as_checked_ones_would(tmp_path, monkeypatch):
    """Field steps the movement applies without clamping or a passability check (short steps onto
    open cells) leave every unit where the checked step would have put it."""
    from engine.bench import RULE, bench_level
    from engine.systems.movement import Movement

    (tmp_path / "counter.lua").write_text(RULE, encoding="utf-8")
    level = load_level(bench_level(20), base_dir=tmp_path)

    def run() -> tuple[str, bytes, int]:
        sim = Simulation(level, seed=0)
        checked = []
        move = sim.movement._move
        sim.movement._move = lambda *a, **k: (checked.append(1), move(*a, **k))[1]
        sim.step(30 * 25)
        return sim.trace.hash(), sim.world.pos[:sim.world.count].tobytes(), len(checked)

    fast = run()
    steer = Movement._steer_all
    monkeypatch.setattr(Movement, "_steer_all", lambda self, *a: (steer(self, *a)[0], False))
    slow = run()
    assert fast[:2] == slow[:2]
    assert fast[2] < slow[2] - 500          # most field steps took the unchecked path


def _separation_run(level, skip=None) -> tuple[str, list[bytes], int]:
    """Trace hash, the positions after every tick, and how many separation passes were skipped.
    `skip(movement, shift)`, when given, replaces the pass's own skip decision: True skips the pass,
    False forces it to run in full."""
    sim = Simulation(level, seed=0)
    m = sim.movement
    separate, cell_rep, counts = m._separate, m._cell_rep, {"passes": 0, "full": 0}

    def counted_separate(shift, p):
        counts["passes"] += 1
        if skip is None:
            return separate(shift, p)
        if skip(m, shift):
            return p
        m._settled.pop(shift, None)        # forget what this grid's last pass found
        m._settled_at.pop(shift, None)
        return separate(shift, p)

    def counted_cell_rep(cells):
        counts["full"] += 1
        return cell_rep(cells)

    m._separate, m._cell_rep = counted_separate, counted_cell_rep
    positions = []
    for tick in range(30 * 20):
        if tick == 30 * 2:     # standing apart, every pass found them settled: walk them to a point where they crowd
            sim.issue(0, {"kind": "move", "units": list(range(sim.world.count)), "x": 22, "y": 20})
        sim.step()
        positions.append(sim.world.pos[:sim.world.count].tobytes())
    return sim.trace.hash(), positions, counts["passes"] - counts["full"]


def test_skipped_separation_passes_leave_the_positions_a_forced_pass_gives(arena, h):
    """A separation pass the movement skips (its grid found settled with nothing moved since, or
    the same positions as a pass that pushed nobody) leaves every unit, every tick, exactly where
    running the pass in full puts it; a skip that ignores later movement does not."""
    units = ([{"type": "light_bot", "x": 4.5 + 3 * k, "y": 6.5} for k in range(6)]
             + [{"type": "light_tank", "x": 6.5 + 4 * k, "y": 26.5} for k in range(3)])
    level = load_level(h.level_dict([h.team(0, units)]), base_dir=arena)
    skipping = _separation_run(level)
    forced = _separation_run(level, skip=lambda m, shift: False)
    assert skipping[2] > 100                      # the passes were skipped, and often
    assert forced[2] == 0
    assert skipping[:2] == forced[:2]
    # a stale skip: once a grid was found settled it is never looked at again
    stale = _separation_run(level, skip=lambda m, shift: shift in m._settled)
    assert stale[1] != forced[1]
