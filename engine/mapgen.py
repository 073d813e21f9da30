"""Seeded procedural maps: `generate(MapGenParams) -> MapData`.

Steps (all randomness from one numpy Generator, so the same params give the same map):
1. Smooth value noise for cliffs and for water, made symmetric when asked; the top quantiles
   become cliff / water, which hits the requested densities almost exactly.
2. Clearings around the nine spawn anchors so bases have room.
3. Connectivity: every ground region of at least MIN_REGION tiles is joined to the main region
   by carving a corridor (through cliff -> ground, through water -> bridge); smaller pockets
   are filled. The result is mirrored again so symmetry survives the carving.
4. Deposits: clusters near the corner spawns, the rest spread out; mirrored in pairs.
"""
from __future__ import annotations

from collections import deque

import numpy as np

from engine.maps import ground_passable, label_regions
from engine.schema.level import MapGenParams
from engine.schema.mapdata import Deposit, MapData, SpawnPoint
from engine.snapshot import BRIDGE, CLIFF, GROUND, WATER

MIN_REGION = 16  # ground regions smaller than this are filled, larger ones are connected

# Spawn anchors as fractions of (width, height).
SPAWN_ANCHORS: dict[str, tuple[float, float]] = {
    "nw": (0.12, 0.12), "ne": (0.88, 0.12), "sw": (0.12, 0.88), "se": (0.88, 0.88),
    "center": (0.5, 0.5), "north": (0.5, 0.1), "south": (0.5, 0.9), "west": (0.1, 0.5), "east": (0.9, 0.5),
}
CORNERS = ("nw", "ne", "sw", "se")


def generate(params: MapGenParams) -> MapData:
    rng = np.random.default_rng(params.seed)
    w, h, sym = params.width, params.height, params.symmetry
    clear = _clearings(w, h)

    terrain = np.full((h, w), GROUND, dtype=np.uint8)
    free = ~clear
    cliff_field = _symmetrize_field(_value_noise(rng, w, h), sym)
    water_field = _symmetrize_field(_value_noise(rng, w, h), sym)
    _paint_top(terrain, cliff_field, free, int(round(params.cliff_density * h * w)), CLIFF)
    _paint_top(terrain, water_field, free & (terrain == GROUND), int(round(params.water_density * h * w)), WATER)

    _connect(terrain)
    terrain = _symmetrize_terrain(terrain, sym)
    fill_pockets(terrain)

    deposits = _place_deposits(rng, terrain, params.deposits, sym)
    spawns = _spawn_points(terrain)
    rows = _to_rows(terrain, deposits)
    return MapData(
        name=f"generated_{w}x{h}_s{params.seed}",
        description=(
            f"Procedural {w}x{h} map (seed {params.seed}, cliffs {params.cliff_density:.0%}, "
            f"water {params.water_density:.0%}, symmetry {sym})."
        ),
        width=w,
        height=h,
        rows=rows,
        deposits=[Deposit(x=x, y=y) for x, y in deposits],
        spawns=spawns,
    )


# --- noise ---------------------------------------------------------------------------------------
def _value_noise(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Sum of bilinearly upsampled random grids (blob scales ~ map/6, /12, /24), values ~[0, 1]."""
    base = max(4, min(w, h) // 6)
    total = np.zeros((h, w))
    for octave, weight in ((base, 1.0), (max(2, base // 2), 0.5), (max(2, base // 4), 0.25)):
        gh, gw = h // octave + 2, w // octave + 2
        grid = rng.random((gh, gw))
        ys = np.arange(h) / octave
        xs = np.arange(w) / octave
        y0, x0 = ys.astype(int), xs.astype(int)
        fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
        top = grid[y0][:, x0] * (1 - fx) + grid[y0][:, x0 + 1] * fx
        bottom = grid[y0 + 1][:, x0] * (1 - fx) + grid[y0 + 1][:, x0 + 1] * fx
        total += weight * (top * (1 - fy) + bottom * fy)
    return total


def _mirror(a: np.ndarray, symmetry: str) -> np.ndarray:
    if symmetry == "mirror_x":
        return a[:, ::-1]
    if symmetry == "mirror_y":
        return a[::-1, :]
    if symmetry == "rotational":
        return a[::-1, ::-1]
    return a


def _symmetrize_field(field: np.ndarray, symmetry: str) -> np.ndarray:
    return field if symmetry == "none" else (field + _mirror(field, symmetry)) / 2


def _paint_top(terrain: np.ndarray, field: np.ndarray, allowed: np.ndarray, count: int, code: int) -> None:
    """Paint the `count` highest-field allowed tiles with `code` (ties keep symmetric pairs)."""
    count = min(count, int(allowed.sum()))
    if count <= 0:
        return
    values = np.where(allowed, field, -np.inf).ravel()
    threshold = np.partition(values, values.size - count)[values.size - count]
    terrain[(field >= threshold) & allowed] = code


# --- structure -----------------------------------------------------------------------------------
def _clearings(w: int, h: int) -> np.ndarray:
    """Discs of guaranteed ground around the spawn anchors (symmetric by construction)."""
    radius = max(3.0, min(w, h) / 16)
    yy, xx = np.mgrid[0:h, 0:w]
    clear = np.zeros((h, w), dtype=bool)
    for fx, fy in SPAWN_ANCHORS.values():
        cx, cy = fx * (w - 1), fy * (h - 1)
        clear |= (xx - cx) ** 2 + (yy - cy) ** 2 <= radius**2
    return clear


def _connect(terrain: np.ndarray) -> None:
    """Join every ground region of >= MIN_REGION tiles to the largest one by carving corridors."""
    while True:
        labels, n = label_regions(ground_passable(terrain))
        if n <= 1:
            return
        sizes = np.bincount(labels.ravel())[1:]
        main = int(np.argmax(sizes)) + 1
        others = [i + 1 for i in np.argsort(-sizes, kind="stable") if i + 1 != main and sizes[i] >= MIN_REGION]
        if not others:
            return
        _carve_path(terrain, labels == others[0], labels == main)


def _carve_path(terrain: np.ndarray, source: np.ndarray, target: np.ndarray) -> None:
    """Shortest 4-connected path (ignoring terrain) from `source` to `target`, carved 2 tiles wide."""
    h, w = terrain.shape
    prev = np.full(h * w, -2, dtype=np.int64)
    starts = np.flatnonzero(source.ravel())
    prev[starts] = -1
    queue = deque(starts.tolist())
    tflat = target.ravel()
    end = -1
    while queue:
        i = queue.popleft()
        if tflat[i]:
            end = i
            break
        x = i % w
        for j, ok in ((i - w, i >= w), (i + w, i + w < h * w), (i - 1, x > 0), (i + 1, x < w - 1)):
            if ok and prev[j] == -2:
                prev[j] = i
                queue.append(j)
    i = end
    while i >= 0:
        y, x = divmod(i, w)
        for yy, xx in ((y, x), (y, min(x + 1, w - 1)), (min(y + 1, h - 1), x)):
            code = terrain[yy, xx]
            if code == CLIFF:
                terrain[yy, xx] = GROUND
            elif code == WATER:
                terrain[yy, xx] = BRIDGE
        i = int(prev[i])


def _symmetrize_terrain(terrain: np.ndarray, symmetry: str) -> np.ndarray:
    """Make the grid symmetric; where a tile and its mirror differ, passable wins."""
    if symmetry == "none":
        return terrain
    mirrored = _mirror(terrain, symmetry)
    rank = np.array([3, 1, 0, 2], dtype=np.uint8)  # preference: ground > bridge > water > cliff
    return np.where(rank[terrain] >= rank[mirrored], terrain, mirrored).astype(np.uint8)


def fill_pockets(terrain: np.ndarray) -> None:
    """Turn every ground region except the largest into cliff, so no unit can be trapped."""
    labels, n = label_regions(ground_passable(terrain))
    if n <= 1:
        return
    sizes = np.bincount(labels.ravel())[1:]
    main = int(np.argmax(sizes)) + 1
    terrain[(labels != main) & (labels != 0)] = CLIFF


# --- deposits and spawns -------------------------------------------------------------------------
def _mirror_point(x: int, y: int, w: int, h: int, symmetry: str) -> tuple[int, int]:
    if symmetry == "mirror_x":
        return w - 1 - x, y
    if symmetry == "mirror_y":
        return x, h - 1 - y
    if symmetry == "rotational":
        return w - 1 - x, h - 1 - y
    return x, y


def _in_first_half(x: int, y: int, w: int, h: int, symmetry: str) -> bool:
    if symmetry == "mirror_x":
        return x < w // 2
    if symmetry == "mirror_y":
        return y < h // 2
    if symmetry == "rotational":
        return y < h // 2
    return True


def _place_deposits(rng: np.random.Generator, terrain: np.ndarray, count: int, symmetry: str) -> list[tuple[int, int]]:
    """Deposit tiles on plain ground: small clusters by the corner spawns, the rest spread out
    at least `spacing` apart. With symmetry every deposit comes with its mirror image."""
    h, w = terrain.shape
    ground = terrain == GROUND
    spacing = max(3.0, min(w, h) / 12)
    chosen: list[tuple[int, int]] = []

    def free(x: int, y: int, min_dist: float) -> bool:
        return ground[y, x] and all((x - a) ** 2 + (y - b) ** 2 >= min_dist**2 for a, b in chosen)

    def add(x: int, y: int, min_dist: float) -> bool:
        mx, my = _mirror_point(x, y, w, h, symmetry)
        pair = [(x, y)] if (mx, my) == (x, y) else [(x, y), (mx, my)]
        if len(chosen) + len(pair) > count or not free(x, y, min_dist):
            return False
        if len(pair) == 2 and not (ground[my, mx] and (mx - x) ** 2 + (my - y) ** 2 >= min_dist**2):
            return False
        chosen.extend(pair)
        return True

    per_corner = min(3, count // 8)
    ring = max(3.0, min(w, h) / 20)
    for name in CORNERS:
        fx, fy = SPAWN_ANCHORS[name]
        cx, cy = fx * (w - 1), fy * (h - 1)
        if not _in_first_half(int(cx), int(cy), w, h, symmetry):
            continue
        angles = rng.random(per_corner * 6) * 2 * np.pi
        placed = 0
        for a in angles:
            if placed == per_corner:
                break
            x, y = int(round(cx + ring * np.cos(a))), int(round(cy + ring * np.sin(a)))
            if 0 <= x < w and 0 <= y < h and add(x, y, 2.0):
                placed += 1

    candidates = np.argwhere(ground)[:, ::-1]  # (x, y)
    order = rng.permutation(len(candidates))
    for min_dist in (spacing, spacing / 2, 1.5):
        for k in order.tolist():
            if len(chosen) >= count:
                return chosen
            x, y = candidates[k].tolist()
            if _in_first_half(x, y, w, h, symmetry):
                add(x, y, min_dist)
    return chosen


def _spawn_points(terrain: np.ndarray) -> list[SpawnPoint]:
    """Each anchor moved to the nearest passable tile (the grid is one connected region)."""
    h, w = terrain.shape
    ys, xs = np.nonzero(terrain == GROUND)
    spawns = []
    for name, (fx, fy) in SPAWN_ANCHORS.items():
        cx, cy = fx * (w - 1), fy * (h - 1)
        k = int(np.argmin((xs - cx) ** 2 + (ys - cy) ** 2))
        spawns.append(SpawnPoint(name=name, x=float(xs[k]) + 0.5, y=float(ys[k]) + 0.5))
    return spawns


def _to_rows(terrain: np.ndarray, deposits: list[tuple[int, int]]) -> list[str]:
    lut = np.frombuffer(b".~#=", dtype=np.uint8)
    chars = lut[terrain].copy()
    for x, y in deposits:
        chars[y, x] = ord("M")
    return [bytes(row).decode("ascii") for row in chars]
