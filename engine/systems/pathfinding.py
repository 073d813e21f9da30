"""Shared flow fields: one Dijkstra wave per destination cell, reused by every unit going there.

Per-unit A* in Python costs ~40 ms a path; a flow field over the whole 128x128 grid costs a few
milliseconds in NumPy and serves any number of units, so groups share one. The wave is a bucketed
Dijkstra with integer step costs (orthogonal 2, diagonal 3 ~ 1 : 1.5) processed two distances
at a time over a padded flat grid, so each pass is a handful of whole-array NumPy operations.
Diagonal steps may not cut a blocked corner.
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


class FlowField:
    """Distance to the goal and a unit step direction for every cell (0, 0 where unreachable)."""

    __slots__ = ("goal", "dist", "dir_x", "dir_y")

    def __init__(self, goal: tuple[int, int], dist: np.ndarray, dir_x: np.ndarray, dir_y: np.ndarray):
        self.goal = goal
        self.dist = dist
        self.dir_x = dir_x
        self.dir_y = dir_y


def compute_flow_field(passable: np.ndarray, gx: int, gy: int) -> FlowField:
    """Flow field toward cell (gx, gy) over `passable` (H, W bool). The goal is seeded even when blocked."""
    h, w = passable.shape
    pw = w + 2
    open_ = np.zeros((h + 2, pw), dtype=bool)
    open_[1:-1, 1:-1] = passable
    flat_open = open_.ravel()
    dist = np.full(flat_open.size, UNREACHED, dtype=np.int32)
    offs = np.array([dy * pw + dx for dy, dx, _ in _STEPS], dtype=np.int64)
    # which of the 8 steps each cell may take, worked out once for the whole grid: onto an open
    # cell, and a diagonal step only where both orthogonal cells it passes are open
    step_ok = np.zeros((h + 2, pw, len(_STEPS)), dtype=bool)
    for k, (dy, dx, cost) in enumerate(_STEPS):
        ok = open_[1 + dy:h + 1 + dy, 1 + dx:w + 1 + dx]
        if cost == DIAG:
            ok = ok & open_[1 + dy:h + 1 + dy, 1:w + 1] & open_[1:h + 1, 1 + dx:w + 1 + dx]
        step_ok[1:-1, 1:-1, k] = ok
    step_ok = step_ok.reshape(-1, len(_STEPS))
    slot = np.zeros(flat_open.size, dtype=np.int64)  # scratch for de-duplication

    def unique_cells(cells: np.ndarray) -> np.ndarray:
        ids = _COUNTER[:cells.size] if cells.size <= _COUNTER.size else np.arange(cells.size)
        slot[cells] = ids
        return cells[slot[cells] == ids]

    goal = (gy + 1) * pw + (gx + 1)
    dist[goal] = 0
    pool = np.array([goal], dtype=np.int64)
    if not flat_open[goal]:
        pool = np.concatenate([pool, _seed_rim(open_, gx, gy, dist)])
    costs = np.array([c for _, _, c in _STEPS], dtype=np.int32)

    # Every step costs at least ORTH = 2, so cells at d + 1 cannot be reached from cells at d:
    # both distances are final together and are expanded in one pass. `pool` holds the cells whose
    # distance was lowered and that wait to be expanded (a cell lowered twice is there twice).
    d = 0
    while pool.size:
        due = dist[pool] - d <= 1      # nothing in the pool is nearer than d: that was expanded
        cells = pool[due]
        pool = pool[~due]
        if cells.size:
            cells = unique_cells(cells)
            ok = step_ok[cells]
            nb = (cells[:, None] + offs)[ok]
            reach = (dist[cells][:, None] + costs)[ok]
            lower = reach < dist[nb]
            if np.count_nonzero(lower):
                nb = nb[lower]
                # a cell reached from several expanded cells keeps the cheapest
                np.minimum.at(dist, nb, reach[lower])
                pool = np.concatenate([pool, nb])
        d += 2

    grid = dist.reshape(h + 2, pw)
    best = grid[1:-1, 1:-1].astype(np.int64)
    dir_x = np.zeros((h, w), dtype=np.float32)
    dir_y = np.zeros((h, w), dtype=np.float32)
    inner_open = open_[1:-1, 1:-1]
    for dy, dx, cost in _STEPS:
        nbd = grid[1 + dy:h + 1 + dy, 1 + dx:w + 1 + dx].astype(np.int64)
        if cost == DIAG:
            ok = open_[1 + dy:h + 1 + dy, 1:w + 1] & open_[1:h + 1, 1 + dx:w + 1 + dx]
            nbd = np.where(ok, nbd, UNREACHED)
        better = nbd < best
        best = np.where(better, nbd, best)
        norm = 1.0 if cost == ORTH else 0.70710678
        dir_x = np.where(better, np.float32(dx * norm), dir_x)
        dir_y = np.where(better, np.float32(dy * norm), dir_y)
    dir_x[~inner_open] = 0.0
    dir_y[~inner_open] = 0.0
    return FlowField((gx, gy), grid[1:-1, 1:-1].copy(), dir_x, dir_y)


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
    """Forget the process's shared fields (a benchmark measures each run from a cold start)."""
    _SHARED.clear()


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
