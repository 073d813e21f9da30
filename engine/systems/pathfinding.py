"""Shared flow fields: one Dijkstra wave per destination cell, reused by every unit going there.

Per-unit A* in Python costs ~40 ms a path; a flow field over the whole 128x128 grid costs a few
milliseconds in NumPy and serves any number of units, so groups share one. The wave is a
label-correcting search with integer step costs (orthogonal 2, diagonal 3 ~ 1 : 1.5) over a padded
flat grid: each pass moves the whole front one step with a handful of NumPy operations, reading
each cell's neighbours from a table made once per grid. Diagonal steps may not cut a blocked corner.
"""
from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np

UNREACHED = np.iinfo(np.int32).max
ORTH, DIAG = 2, 3
MAX_RIM = 9        # how far (tiles) the rim of a blocked goal is searched
# (dy, dx, cost) for the 8 neighbours
_STEPS = [(-1, 0, ORTH), (1, 0, ORTH), (0, -1, ORTH), (0, 1, ORTH),
          (-1, -1, DIAG), (-1, 1, DIAG), (1, -1, DIAG), (1, 1, DIAG)]


_COUNTER = np.arange(1 << 16, dtype=np.int64)
_COSTS = np.array([c for _, _, c in _STEPS], dtype=np.int32)
# a closed padding cell: a step a cell may not take leads there, and its distance (-1 during the
# search) is never lowered
_SINK = 0
# per step direction: none, then the 8 steps in `_STEPS` order (float32, as units read them)
_DIR_X = np.array([0.0] + [dx * (1.0 if c == ORTH else 0.70710678) for _, dx, c in _STEPS]).astype(np.float32)
_DIR_Y = np.array([0.0] + [dy * (1.0 if c == ORTH else 0.70710678) for dy, _, c in _STEPS]).astype(np.float32)


class FlowField:
    """Distance to the goal and a unit step direction for every cell (0, 0 where unreachable)."""

    __slots__ = ("goal", "dist", "dir_x", "dir_y")

    def __init__(self, goal: tuple[int, int], dist: np.ndarray, dir_x: np.ndarray, dir_y: np.ndarray):
        self.goal = goal
        self.dist = dist
        self.dir_x = dir_x
        self.dir_y = dir_y


def _padded(passable: np.ndarray) -> np.ndarray:
    h, w = passable.shape
    open_ = np.zeros((h + 2, w + 2), dtype=bool)
    open_[1:-1, 1:-1] = passable
    return open_


_TABLES: OrderedDict[bytes, np.ndarray] = OrderedDict()     # padded grid -> its neighbour table


def _neighbours_of(open_: np.ndarray) -> np.ndarray:
    """`_neighbours(open_)`, kept for the last few grids: the fields of one map share it."""
    key = hashlib.blake2b(open_.tobytes(), digest_size=16, person=repr(open_.shape).encode()[:16]).digest()
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = _neighbours(open_)
        if len(_TABLES) > 4:
            _TABLES.popitem(last=False)
    else:
        _TABLES.move_to_end(key)
    return table


def _neighbours(open_: np.ndarray) -> np.ndarray:
    """(cells, 8) flat index of each padded cell's neighbour along each step of `_STEPS`, `_SINK`
    where the step may not be taken: onto a blocked cell, or diagonally past a blocked corner."""
    hp, pw = open_.shape
    h, w = hp - 2, pw - 2
    ok = np.zeros((hp, pw, len(_STEPS)), dtype=bool)
    for k, (dy, dx, cost) in enumerate(_STEPS):
        step = open_[1 + dy:h + 1 + dy, 1 + dx:w + 1 + dx]
        if cost == DIAG:
            step = step & open_[1 + dy:h + 1 + dy, 1:w + 1] & open_[1:h + 1, 1 + dx:w + 1 + dx]
        ok[1:-1, 1:-1, k] = step
    table = np.arange(hp * pw, dtype=np.int64)[:, None] + np.array([dy * pw + dx for dy, dx, _ in _STEPS])
    table *= ok.reshape(-1, len(_STEPS))      # _SINK is 0
    return table


def compute_flow_field(passable: np.ndarray, gx: int, gy: int) -> FlowField:
    """Flow field toward cell (gx, gy) over `passable` (H, W bool). The goal is seeded even when blocked."""
    h, w = passable.shape
    open_ = _padded(passable)
    hp, pw = open_.shape
    nbr = _neighbours_of(open_)
    dist = np.full(hp * pw, UNREACHED, dtype=np.int32)
    dist[_SINK] = -1
    slot = np.zeros(hp * pw, dtype=np.int64)  # scratch for de-duplication

    def unique_cells(cells: np.ndarray) -> np.ndarray:
        ids = _COUNTER[:cells.size] if cells.size <= _COUNTER.size else np.arange(cells.size)
        slot[cells] = ids
        return cells[slot[cells] == ids]

    goal = (gy + 1) * pw + (gx + 1)
    dist[goal] = 0
    front = np.array([goal], dtype=np.int64)
    if not open_[gy + 1, gx + 1]:
        front = np.concatenate([front, _seed_rim(open_, gx, gy, dist)])

    # Label-correcting waves: each pass expands every cell lowered by the one before, so a pass moves
    # the front one step, diagonal or not, and a cell lowered again later is expanded again. The
    # distances settle where no step lowers any: the shortest path distances, whatever the order
    # (on open ground the fewest steps are also the cheapest, so little is expanded twice).
    while front.size:
        cells = unique_cells(front)
        nb = nbr.take(cells, axis=0)
        reach = dist[cells][:, None] + _COSTS
        lower = reach < dist[nb]
        front = nb[lower]
        # a cell reached from several expanded cells keeps the cheapest
        np.minimum.at(dist, front, reach[lower])

    grid = dist.reshape(hp, pw)
    grid[0, 0] = UNREACHED
    # each cell steps to the first of its neighbours (in `_STEPS` order) with the least distance,
    # when that is less than its own
    best = grid[1:-1, 1:-1].copy()
    pick = np.zeros((h, w), dtype=np.intp)
    for j, (dy, dx, cost) in enumerate(_STEPS):
        nbd = grid[1 + dy:h + 1 + dy, 1 + dx:w + 1 + dx]
        better = nbd < best
        if cost == DIAG:      # past no blocked corner (the cell it steps to may be a blocked goal)
            better &= open_[1 + dy:h + 1 + dy, 1:w + 1] & open_[1:h + 1, 1 + dx:w + 1 + dx]
        np.copyto(best, nbd, where=better)
        pick[better] = j + 1
    pick[~open_[1:-1, 1:-1]] = 0
    return FlowField((gx, gy), grid[1:-1, 1:-1].copy(), _DIR_X[pick], _DIR_Y[pick])


def _seed_rim(open_: np.ndarray, gx: int, gy: int, dist: np.ndarray) -> np.ndarray:
    """A blocked goal (e.g. a building several tiles wide) is reached from its rim: the open cells of
    the nearest ring around it that has any are seeded with their octile distance to the goal
    (returned, their distances set). Without this, a goal whose neighbours are all blocked too
    would be unreachable from everywhere."""
    hp, pw = open_.shape
    for r in range(1, MAX_RIM):
        y0, y1 = max(gy + 1 - r, 1), min(gy + 1 + r, hp - 2)
        x0, x1 = max(gx + 1 - r, 1), min(gx + 1 + r, pw - 2)
        ys, xs = np.mgrid[y0:y1 + 1, x0:x1 + 1]
        ring = (np.maximum(abs(ys - gy - 1), abs(xs - gx - 1)) == r) & open_[y0:y1 + 1, x0:x1 + 1]
        if ring.any():
            ady, adx = abs(ys[ring] - gy - 1), abs(xs[ring] - gx - 1)
            cost = (ORTH * np.maximum(ady, adx) + (DIAG - ORTH) * np.minimum(ady, adx)).astype(np.int32)
            cells = (ys[ring] * pw + xs[ring]).astype(np.int64)
            dist[cells] = cost
            return cells
    return np.zeros(0, dtype=np.int64)


# Fields are a pure function of the passability grid and the goal, so a process keeps the last few
# across simulations: the validation games of one level (seeds, agents, the determinism replay)
# head for the same goals over the same grid. Read-only once made.
SHARED_CAPACITY = 64
_SHARED: OrderedDict[tuple, FlowField] = OrderedDict()


def shared_flow_field(passable: np.ndarray, digest: bytes, gx: int, gy: int) -> FlowField:
    """`compute_flow_field(passable, gx, gy)`, reused when this process made it before; `digest`
    names the grid (see `grid_digest`)."""
    key = (digest, passable.shape, gx, gy)
    field = _SHARED.get(key)
    if field is None:
        field = _SHARED[key] = compute_flow_field(passable, gx, gy)
        if len(_SHARED) > SHARED_CAPACITY:
            _SHARED.popitem(last=False)
    else:
        _SHARED.move_to_end(key)
    return field


def clear_shared() -> None:
    """Forget the process's shared fields and neighbour tables (a benchmark measures each run from a
    cold start)."""
    _SHARED.clear()
    _TABLES.clear()


def grid_digest(passable: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(passable).tobytes(), digest_size=16).digest()


class FlowFieldCache:
    """LRU cache of flow fields keyed by (goal cell, passability version).

    The direction grids of the cached fields are also kept in one stacked array (slot, y, x, axis), a
    slot per field, so a tick gathers the step of every unit, whatever its destination, with one
    fancy index; `has` says where a field has a direction at all (`flat` / `has_flat` are the same
    arrays with slot, y and x as one index, which a flat gather reads several times faster).
    """

    def __init__(self, capacity: int = 64):
        self.capacity = capacity
        self._fields: OrderedDict[tuple, FlowField] = OrderedDict()
        self._slot_of: dict[tuple, int] = {}
        self._free: list[int] = []
        self.stack = np.zeros((0, 0, 0, 2), dtype=np.float32)
        self.has = np.zeros((0, 0, 0), dtype=bool)
        self.flat = self.stack.reshape(-1, 2)
        self.has_flat = self.has.reshape(-1)
        self.computed = 0                 # fields added so far (computed or shared)
        self._digest: tuple[int, bytes] | None = None   # (passability version, its grid digest)

    def get(self, passable: np.ndarray, version: int, gx: int, gy: int) -> FlowField:
        key = self._touch(passable, version, gx, gy)
        return self._fields[key]

    def cached(self, gx: int, gy: int, version: int) -> bool:
        """True when the field toward (gx, gy) over this passability version is at hand."""
        return (gx, gy, version) in self._fields

    def slot(self, passable: np.ndarray, version: int, gx: int, gy: int) -> int:
        """The slot of the field toward (gx, gy) in `stack`, computing it if needed. A slot
        stays valid until `capacity` other fields have been asked for."""
        key = self._touch(passable, version, gx, gy)
        return self._slot_of[key]

    def _touch(self, passable: np.ndarray, version: int, gx: int, gy: int) -> tuple:
        key = (gx, gy, version)
        if key in self._fields:
            self._fields.move_to_end(key)
            return key
        if self.stack.shape[1:3] != passable.shape:  # a new map: start over
            self.clear()
            self._resize(0, passable.shape)
        if self._digest is None or self._digest[0] != version:
            self._digest = (version, grid_digest(passable))
        field = shared_flow_field(passable, self._digest[1], gx, gy)
        self.computed += 1
        self._fields[key] = field
        if len(self._fields) > self.capacity:
            old, _ = self._fields.popitem(last=False)
            self._free.append(self._slot_of.pop(old))
        self._store(key, field)
        return key

    def _store(self, key: tuple, field: FlowField) -> None:
        shape = field.dir_x.shape
        if not self._free:  # grow by doubling: small games never pay for the full capacity
            n = self.stack.shape[0]
            grown = min(max(8, 2 * n), self.capacity)
            self._resize(grown, shape)
            self._free = list(range(grown - 1, n - 1, -1))
        slot = self._free.pop()
        self.stack[slot, :, :, 0] = field.dir_x
        self.stack[slot, :, :, 1] = field.dir_y
        np.not_equal(field.dir_x, 0, out=self.has[slot])
        self.has[slot] |= field.dir_y != 0
        self._slot_of[key] = slot

    def _resize(self, slots: int, shape: tuple[int, int]) -> None:
        """`slots` slots of `shape`, keeping the fields of the slots that stay."""
        n = min(slots, self.stack.shape[0]) if self.stack.shape[1:3] == shape else 0
        stack = np.zeros((slots, *shape, 2), dtype=np.float32)
        has = np.zeros((slots, *shape), dtype=bool)
        if n:
            stack[:n], has[:n] = self.stack[:n], self.has[:n]
        self.stack, self.has = stack, has
        self.flat, self.has_flat = stack.reshape(-1, 2), has.reshape(-1)

    def clear(self) -> None:
        self._fields.clear()
        self._slot_of.clear()
        self._free = list(range(self.stack.shape[0] - 1, -1, -1))
