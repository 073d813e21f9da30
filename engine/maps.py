"""Map loading (built-in name, JSON file, or generator) and terrain grid queries.

Built-in maps live in engine/data/maps/<name>.json (rebuilt by engine/data/build_maps.py).
Parsed built-ins are cached and shared: treat the returned MapData as read-only.
Grid conventions: arrays are indexed [y, x]; tile (x, y) covers [x, x+1) x [y, y+1), so its
centre is (x + 0.5, y + 0.5) in the float coordinates units use.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from engine.errors import LevelError, format_validation_error
from engine.jsonfile import read_json
from engine.schema.level import MapRef
from engine.schema.mapdata import MapData
from engine.snapshot import BRIDGE, CLIFF, GROUND, WATER

MAPS_DIR = Path(__file__).parent / "data" / "maps"
MAX_MAP_BYTES = 2 << 20         # a 512x512 map is about 270 KiB

# Terrain character -> terrain code (a deposit `M` is ground).
_CHAR_TO_CODE = np.full(256, 255, dtype=np.uint8)
for _ch, _code in {".": GROUND, "M": GROUND, "~": WATER, "#": CLIFF, "=": BRIDGE}.items():
    _CHAR_TO_CODE[ord(_ch)] = _code


# --- loading -------------------------------------------------------------------------------------
def list_maps() -> list[str]:
    """Names of the built-in maps, sorted."""
    return sorted(p.stem for p in MAPS_DIR.glob("*.json"))


def load_map(ref: MapRef, base_dir: Path | None = None) -> MapData:
    """Resolve a level's map reference: built-in name, file (relative to base_dir) or generator."""
    if ref.name is not None:
        return load_builtin(ref.name)
    if ref.file is not None:
        path = Path(ref.file)
        if not path.is_absolute():
            path = (base_dir or Path.cwd()) / path
        return parse_map_file(path)
    # The generator uses the grid helpers below, hence the import here rather than at the top.
    from engine.mapgen import generate

    return generate(ref.generate)


def load_builtin(name: str) -> MapData:
    """A built-in map by name; LevelError listing the known names when there is none."""
    known = list_maps()
    if name not in known:
        raise LevelError(f"map.name: unknown built-in map {name!r}; known maps: {', '.join(known)}")
    return _load_builtin_cached(name)


@lru_cache(maxsize=None)
def _load_builtin_cached(name: str) -> MapData:
    return parse_map_file(MAPS_DIR / f"{name}.json")


def parse_map_file(path: Path) -> MapData:
    """Read and validate one map JSON file; errors name the file and the offending path."""
    data = read_json(path, "map file", MAX_MAP_BYTES)
    try:
        return MapData.model_validate(data)
    except ValidationError as err:
        raise LevelError(format_validation_error(err, str(path))) from err


# --- arrays --------------------------------------------------------------------------------------
def terrain_array(map_data: MapData) -> np.ndarray:
    """(H, W) uint8 terrain codes (GROUND, WATER, CLIFF, BRIDGE from engine.snapshot)."""
    raw = np.frombuffer("".join(map_data.rows).encode("ascii"), dtype=np.uint8)
    return _CHAR_TO_CODE[raw].reshape(map_data.height, map_data.width)


def deposits_array(map_data: MapData) -> np.ndarray:
    """(D, 2) float tile centres (x, y) of all metal deposits: `M` tiles plus the deposits list,
    without duplicates, sorted by (y, x)."""
    raw = np.frombuffer("".join(map_data.rows).encode("ascii"), dtype=np.uint8)
    ys, xs = np.divmod(np.flatnonzero(raw == ord("M")), map_data.width)
    tiles = set(zip(xs.tolist(), ys.tolist()))
    tiles.update((d.x, d.y) for d in map_data.deposits)
    ordered = sorted(tiles, key=lambda t: (t[1], t[0]))
    return np.array(ordered, dtype=float).reshape(-1, 2) + 0.5


def ground_passable(terrain: np.ndarray) -> np.ndarray:
    """(H, W) bool: tiles ground units may stand on (ground, deposits, bridges)."""
    return (terrain == GROUND) | (terrain == BRIDGE)


# --- connectivity --------------------------------------------------------------------------------
def label_regions(passable: np.ndarray) -> tuple[np.ndarray, int]:
    """4-connected components of `passable`: (labels (H, W) int32 with 0 = blocked and 1..n in
    scan order of each region's first tile; n).

    Works on horizontal runs (union-find over vertically touching runs) so a 512x512 grid takes
    milliseconds instead of a per-tile Python flood fill.
    """
    passable = np.asarray(passable, dtype=bool)
    h, w = passable.shape
    left = np.zeros_like(passable)
    left[:, 1:] = passable[:, :-1]
    starts = passable & ~left
    run_id = np.cumsum(starts.ravel()).reshape(h, w).astype(np.int32) * passable
    n_runs = int(starts.sum())
    parent = list(range(n_runs + 1))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    touching = passable[:-1] & passable[1:]
    pairs = np.unique(np.stack([run_id[:-1][touching], run_id[1:][touching]], axis=1), axis=0)
    for a, b in pairs.tolist():
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)  # smallest run id is the root: scan-order labels
    roots = np.array([find(i) for i in range(n_runs + 1)], dtype=np.int32)
    unique_roots, dense = np.unique(roots[1:], return_inverse=True)
    relabel = np.concatenate([[0], dense.astype(np.int32) + 1])
    return relabel[run_id].astype(np.int32), int(unique_roots.size)


def reachable_mask(passable: np.ndarray, x: float, y: float) -> np.ndarray:
    """(H, W) bool: tiles reachable on foot from the tile containing (x, y); empty if blocked."""
    h, w = passable.shape
    tx, ty = int(x), int(y)
    if not (0 <= tx < w and 0 <= ty < h) or not passable[ty, tx]:
        return np.zeros_like(passable, dtype=bool)
    labels, _ = label_regions(passable)
    return labels == labels[ty, tx]


def unreachable_spawns(map_data: MapData) -> list[tuple[str, str]]:
    """Pairs of spawn names NOT mutually reachable on ground (empty list = all connected).
    A spawn on impassable ground is reported paired with itself."""
    labels, _ = label_regions(ground_passable(terrain_array(map_data)))
    problems: list[tuple[str, str]] = []
    region: dict[str, int] = {}
    for s in map_data.spawns:
        tx, ty = int(s.x), int(s.y)
        inside = 0 <= tx < map_data.width and 0 <= ty < map_data.height
        lab = int(labels[ty, tx]) if inside else 0
        if lab == 0:
            problems.append((s.name, s.name))
        region[s.name] = lab
    names = [n for n, lab in region.items() if lab]
    problems += [(names[0], n) for n in names[1:] if region[n] != region[names[0]]]
    return problems
