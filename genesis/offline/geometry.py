"""Map geometry for placing bases, fronts and objectives from a map's named spawn points."""
from __future__ import annotations

import math

import numpy as np

from engine.maps import label_regions, load_map, terrain_array
from engine.schema.level import MapRef
from engine.schema.mapdata import MapData
from engine.snapshot import BRIDGE, GROUND


def load(map_ref: dict) -> MapData:
    return load_map(MapRef.model_validate(map_ref), None)


def spawns(m: MapData) -> dict[str, tuple[float, float]]:
    return {s.name: (s.x, s.y) for s in m.spawns}


def base_point(m: MapData) -> tuple[str, tuple[float, float]]:
    sp = spawns(m)
    for name in ("base", "center", "centre"):
        if name in sp:
            return name, sp[name]
    return "center", (m.width / 2, m.height / 2)


def sector(dx: float, dy: float) -> int:
    return int(round(math.atan2(dy, dx) / (math.pi / 4))) % 8


def bridgehead(m: MapData) -> tuple[tuple[float, float], list[str]] | None:
    """For a map whose bridges have named ends (`bridge_k_north` / `bridge_k_south`): the near end
    of the bridge closest to the map centre, and the spawn names across the river from it."""
    sp = spawns(m)
    bridges = [n for n in sp if n.startswith("bridge_") and f"{n}_south" in sp and f"{n}_north" in sp]
    if not bridges:
        return None
    centre = (m.width / 2, m.height / 2)
    main = min(bridges, key=lambda n: (math.dist(sp[n], centre), n))
    hold, across = sp[f"{main}_south"], sp[f"{main}_north"]
    far_side = [n for n, xy in sp.items() if not n.startswith("bridge_") and xy[1] < across[1] - 4]
    return hold, far_side


def pick_fronts(m: MapData, origin: tuple[float, float], n: int, names: list[str] | None = None,
                min_dist: float = 0.0) -> list[str]:
    """n spawn names far from origin (among `names` if given), spread over as many compass directions
    as possible; at least `min_dist` away when the map has n such spawns."""
    sp = {k: v for k, v in spawns(m).items() if names is None or k in names}
    ox, oy = origin
    far = max(min(m.width, m.height) * 0.25, min_dist)
    if sum(math.dist(xy, origin) >= far for xy in sp.values()) < n:
        far = min(m.width, m.height) * 0.25
    cands = [(name, xy) for name, xy in sp.items() if math.dist(xy, origin) >= far]
    cands.sort(key=lambda kv: (-math.dist(kv[1], origin), kv[0]))
    chosen: list[tuple[str, tuple[float, float]]] = []
    while cands and len(chosen) < n:
        def spread(item):
            ang = math.atan2(item[1][1] - oy, item[1][0] - ox)
            if not chosen:
                return (math.dist(item[1], origin), item[0])
            gap = min(abs((ang - math.atan2(c[1][1] - oy, c[1][0] - ox) + math.pi) % (2 * math.pi) - math.pi)
                      for c in chosen)
            return (gap, math.dist(item[1], origin))
        best = max(cands, key=spread)
        chosen.append(best)
        cands.remove(best)
    return [name for name, _ in chosen]


def walkable(m: MapData, main_region_only: bool = False) -> np.ndarray:
    """Ground and bridge tiles; with `main_region_only`, only those of the largest connected region."""
    terrain = terrain_array(m)
    ok = (terrain == GROUND) | (terrain == BRIDGE)
    if main_region_only:
        labels, n = label_regions(ok)
        if n:
            ok = labels == int(np.argmax(np.bincount(labels.ravel())[1:]) + 1)
    return ok


def passable_near(m: MapData, x: float, y: float, taken: list[tuple[float, float]], clearance: float = 2.5,
                  main_region_only: bool = False) -> tuple[float, float]:
    """The nearest ground tile centre to (x, y) that keeps `clearance` from every taken point;
    with `main_region_only`, only tiles of the largest connected ground region qualify."""
    return _nearest(walkable(m, main_region_only), x, y, taken, clearance)[0]


def _nearest(ok: np.ndarray, x: float, y: float, taken: list[tuple[float, float]],
             clearance: float) -> tuple[tuple[float, float], bool]:
    """The centre of the tile of `ok` nearest (x, y) that keeps `clearance` from every taken point, and whether
    one does (else the first tile of `ok`)."""
    ys, xs = np.nonzero(ok)
    cx, cy = xs + 0.5, ys + 0.5
    d = (cx - x) ** 2 + (cy - y) ** 2
    for tx, ty in taken:
        d = np.where((cx - tx) ** 2 + (cy - ty) ** 2 < clearance ** 2, np.inf, d)
    i = int(np.argmin(d))
    return (float(cx[i]), float(cy[i])), bool(np.isfinite(d[i]))


def open_ground_near(m: MapData, x: float, y: float, radius: float, taken: list[tuple[float, float]],
                     clearance: float) -> tuple[float, float]:
    """The nearest tile centre to (x, y) with ground all round it out to `radius` tiles (a start group's ring
    fits without a unit pushed onto another's tile) and `clearance` from every taken point; else passable_near."""
    ok = walkable(m, True)
    for _ in range(int(np.ceil(radius))):
        shrunk = ok.copy()
        shrunk[1:, :] &= ok[:-1, :]
        shrunk[:-1, :] &= ok[1:, :]
        shrunk[:, 1:] &= ok[:, :-1]
        shrunk[:, :-1] &= ok[:, 1:]
        shrunk[[0, -1], :] = False
        shrunk[:, [0, -1]] = False
        ok = shrunk
    if not ok.any():
        return passable_near(m, x, y, taken, clearance)
    point, clear = _nearest(ok, x, y, taken, clearance)
    return point if clear else passable_near(m, x, y, taken, clearance)


def lerp(a: tuple[float, float], b: tuple[float, float], t: float) -> tuple[float, float]:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


SIDE_NAMES = {"n": "north", "ne": "north-east", "e": "east", "se": "south-east", "s": "south", "sw": "south-west",
              "w": "west", "nw": "north-west"}
COMPASS_VECTORS = {"n": (0.0, -1.0), "ne": (1.0, -1.0), "e": (1.0, 0.0), "se": (1.0, 1.0), "s": (0.0, 1.0),
                   "sw": (-1.0, 1.0), "w": (-1.0, 0.0), "nw": (-1.0, -1.0)}
# the map spawn names that mean a compass side
COMPASS_SPAWN_NAMES = {"n": ("north", "n"), "e": ("east", "e"), "s": ("south", "s"), "w": ("west", "w"),
                       "ne": ("ne", "northeast", "north_east"), "se": ("se", "southeast", "south_east"),
                       "sw": ("sw", "southwest", "south_west"), "nw": ("nw", "northwest", "north_west")}


def side_point(m: MapData, side: str, share: float) -> tuple[float, float]:
    """The open ground nearest the point `share` of the way from the map centre to its edge on compass `side`."""
    vx, vy = COMPASS_VECTORS[side]
    cx, cy = m.width / 2, m.height / 2
    x, y = cx + vx * share * (m.width / 2), cy + vy * share * (m.height / 2)
    return passable_near(m, x, y, [], 0.0, main_region_only=True)


def compass_of(origin: tuple[float, float], point: tuple[float, float]) -> str | None:
    """The 8-way compass sector (n, ne, ...) of `point` seen from `origin`; y grows down the map."""
    dx, dy = point[0] - origin[0], origin[1] - point[1]
    if math.hypot(dx, dy) < 1e-6:
        return None
    return ("e", "ne", "n", "nw", "w", "sw", "s", "se")[int(((math.degrees(math.atan2(dy, dx)) + 22.5) % 360) // 45)]


def flank_compass(side: str, facing: str) -> str:
    """The compass side of the left or right flank for a player facing `facing` (a compass side)."""
    order = ["n", "ne", "e", "se", "s", "sw", "w", "nw"]     # clockwise on the map
    return order[(order.index(facing) + (-2 if side == "left" else 2)) % 8]


def facing(m: MapData, player: tuple[float, float], enemy: list[tuple[float, float]] | None = None) -> str:
    """The compass side a player at `player` faces the enemy: towards the enemy's start units, else the
    map centre when the player stands away from it (more than 10 tiles), else up the map (north). The
    player's left and right flanks are taken facing that way (the corpus checker's convention)."""
    if enemy:
        target = (sum(x for x, _ in enemy) / len(enemy), sum(y for _, y in enemy) / len(enemy))
    elif math.dist(player, (m.width / 2, m.height / 2)) > 10:
        target = (m.width / 2, m.height / 2)
    else:
        return "n"
    return compass_of(player, target) or "n"


def resolve_directions(m: MapData, base: tuple[float, float], directions: list[str],
                       facing: str = "n") -> list[tuple[str, str | list[float]]]:
    """Each named direction as (compass side, where its attacks spawn): the map's spawn with that name
    when it lies in that sector of `base`, else the farthest spawn in that sector, else a passable
    point out along that direction. left/right are the flanks of a player at `base` facing `facing`."""
    sp = spawns(m)
    reach = min(m.width, m.height) * 0.25
    out: list[tuple[str, str | list[float]]] = []
    for d in directions:
        side = flank_compass(d, facing) if d in ("left", "right") else d
        named = next((n for n in COMPASS_SPAWN_NAMES[side] if n in sp and compass_of(base, sp[n]) == side), None)
        if named is None:
            inside = [(math.dist(xy, base), n) for n, xy in sp.items()
                      if compass_of(base, xy) == side and math.dist(xy, base) >= reach]
            named = max(inside)[1] if inside else None
        if named is not None:
            out.append((side, named))
            continue
        vx, vy = COMPASS_VECTORS[side]
        norm = math.hypot(vx, vy)
        dist = min(m.width, m.height) * 0.4
        x, y = passable_near(m, base[0] + vx / norm * dist, base[1] + vy / norm * dist, [], 0.0, True)
        out.append((side, [round(x, 1), round(y, 1)]))
    return out


def ring_starts(m: MapData, n: int) -> list[str]:
    """n start spawns spread evenly round the map's eight compass spawns (the procedural maps have all)."""
    ring = [name for name in ("nw", "north", "ne", "east", "se", "south", "sw", "west") if name in spawns(m)]
    if n > len(ring):
        raise ValueError(f"the map has {len(ring)} compass spawns, {n} starts asked")
    if n <= 4 and all(c in ring for c in ("nw", "ne", "se", "sw")):
        return ["nw", "ne", "se", "sw"][:n]
    return [ring[int(k * len(ring) / n)] for k in range(n)]
