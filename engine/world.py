"""World state as struct-of-arrays: one slot per unit ever spawned, id == slot index.

Ids are never reused (a dead unit's slot stays dead), so an id held by a rule script or an agent
can never silently point at a different unit. Arrays grow by doubling. Per-type constants live in
`TypeTable`; the few a hot loop reads every tick (speed, weapon, size) are copied per unit.
Positions and destinations are (n, 2) arrays (`pos`, `dest`) with `x` / `y` and `dest_x` / `dest_y`
as column views: movement updates both coordinates with one NumPy call instead of two.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from engine.schema import Catalog, MapData
from engine.snapshot import BRIDGE, CATEGORIES, CLIFF, ENVIRONMENT, GROUND, WATER

TERRAIN_CODES = {".": GROUND, "M": GROUND, "~": WATER, "#": CLIFF, "=": BRIDGE}

# order codes (per unit)
NONE, MOVE, MOVE_FORCE, FIGHT, PATROL, BUILD = range(6)
ORDER_NAMES = {"stop": NONE, "move": MOVE, "move_force": MOVE_FORCE, "fight": FIGHT, "patrol": PATROL, "build": BUILD}
ORDER_LABELS = {v: k for k, v in ORDER_NAMES.items()}
ORDER_LABELS[NONE] = "idle"

SIDES = ENVIRONMENT + 1     # rows of per-team arrays (the hostility matrix, damage statistics)


_DOT_ROWS = 128   # up to this many cells an integer dot product is cheapest; beyond, NumPy's int matmul is not


@lru_cache(maxsize=16)
def _row_major(width: int) -> np.ndarray:
    return np.array([1, width], dtype=np.int64)


def flat_index(cells: np.ndarray, width: int) -> np.ndarray:
    """Row-major index y * width + x of each (x, y) row of the int64 array `cells`."""
    if cells.shape[0] <= _DOT_ROWS:
        return cells.dot(_row_major(width))
    return cells[:, 1] * width + cells[:, 0]


def footprint_radius(size: float) -> int:
    """Buildings block a (2r+1)^2 tile square: radius < 1 -> 1 tile, 1 -> 3x3, 2 -> 5x5."""
    return max(0, int(round(size - 0.4)))


class TypeTable:
    """Catalog constants as arrays indexed by type index, plus name <-> index maps."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.names = list(catalog.units)
        self.index = {n: i for i, n in enumerate(self.names)}
        units = [catalog.units[n] for n in self.names]

        def arr(fn, dtype=np.float64):
            return np.array([fn(u) for u in units], dtype=dtype)

        self.category = arr(lambda u: CATEGORIES.index(u.category), np.int8)
        self.hp = arr(lambda u: u.hp)
        self.speed = arr(lambda u: u.speed)
        self.sight = arr(lambda u: u.sight)
        self.size = arr(lambda u: u.size)
        self.armor = arr(lambda u: u.armor)
        self.is_air = arr(lambda u: u.is_air, bool)
        self.is_building = arr(lambda u: u.is_building, bool)
        self.armed = arr(lambda u: u.weapon is not None, bool)
        self.w_range = arr(lambda u: u.weapon.range if u.weapon else 0.0)
        self.w_min_range = arr(lambda u: u.weapon.min_range if u.weapon else 0.0)
        self.w_damage = arr(lambda u: u.weapon.damage if u.weapon else 0.0)
        self.w_reload = arr(lambda u: u.weapon.reload if u.weapon else 1.0)
        self.w_splash = arr(lambda u: u.weapon.splash if u.weapon else 0.0)
        self.w_hits_ground = arr(lambda u: bool(u.weapon and u.weapon.hits_ground), bool)
        self.w_hits_air = arr(lambda u: bool(u.weapon and u.weapon.hits_air), bool)
        self.build_power = arr(lambda u: u.build_power)
        self.metal_income = arr(lambda u: u.metal_income)
        self.energy_income = arr(lambda u: u.energy_income)
        self.storage_metal = arr(lambda u: u.storage_metal)
        self.storage_energy = arr(lambda u: u.storage_energy)
        self.cost_metal = arr(lambda u: u.cost_metal)
        self.cost_energy = arr(lambda u: u.cost_energy)
        self.build_time = arr(lambda u: u.build_time)
        self.needs_deposit = arr(lambda u: u.needs_deposit, bool)
        self.builds = [set(u.builds) for u in units]


@dataclass
class TeamState:
    id: int
    name: str
    color: str
    allies: frozenset[int]            # includes the team itself
    metal: float = 0.0
    energy: float = 0.0
    stats: dict = field(default_factory=lambda: {
        "damage_dealt": 0.0, "damage_received": 0.0, "units_lost": 0, "units_killed": 0,
        "metal_gathered": 0.0, "energy_gathered": 0.0, "metal_spent": 0.0, "energy_spent": 0.0,
    })


class Terrain:
    """Terrain codes plus the ground-passability grid (terrain and standing buildings)."""

    def __init__(self, mapdata: MapData):
        self.width, self.height = mapdata.width, mapdata.height
        lut = np.zeros(128, dtype=np.uint8)
        for ch, code in TERRAIN_CODES.items():
            lut[ord(ch)] = code
        raw = np.frombuffer("".join(mapdata.rows).encode("ascii"), dtype=np.uint8)
        self.codes = lut[raw].reshape(self.height, self.width)
        self.ground_ok = (self.codes == GROUND) | (self.codes == BRIDGE)
        self.building_count = np.zeros((self.height, self.width), dtype=np.int16)
        self.passable = self.ground_ok.copy()      # ground passability incl. buildings
        self.version = 0                           # bumps whenever `passable` changes
        deposits = {(d.x, d.y): d.richness for d in mapdata.deposits}
        for y, row in enumerate(mapdata.rows):
            for x, ch in enumerate(row):
                if ch == "M" and (x, y) not in deposits:
                    deposits[(x, y)] = 1.0
        self.deposits = deposits                   # (x, y) -> richness
        self.deposit_xy = np.array(sorted(deposits), dtype=np.float64).reshape(-1, 2) + 0.5

    def on_map(self, x: float, y: float) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def footprint(self, x: float, y: float, size: float) -> tuple[np.ndarray, np.ndarray]:
        """Cells (ys, xs) a building of radius `size` centred at (x, y) blocks."""
        r = footprint_radius(size)
        cx, cy = int(x), int(y)
        ys, xs = np.mgrid[cy - r:cy + r + 1, cx - r:cx + r + 1]
        ys, xs = ys.ravel(), xs.ravel()
        ok = (xs >= 0) & (xs < self.width) & (ys >= 0) & (ys < self.height)
        return ys[ok], xs[ok]

    def add_building(self, x: float, y: float, size: float, delta: int) -> None:
        ys, xs = self.footprint(x, y, size)
        np.add.at(self.building_count, (ys, xs), delta)
        self.passable = self.ground_ok & (self.building_count == 0)
        self.version += 1


class World:
    """All unit state. Systems read and write these arrays directly."""

    FIELDS_F = ("hp", "max_hp", "progress", "cooldown", "home_x", "home_y",
                "speed", "size", "sight", "armor", "w_range", "w_min_range", "w_damage", "w_reload",
                "w_splash", "income_mult", "detect")
    FIELDS_I = ("type", "team", "target", "build_target", "build_type", "last_hit_team")
    FIELDS_B = ("alive", "is_air", "is_building", "armed", "hits_ground", "hits_air", "hold", "no_fire", "cloaked")
    FIELDS_XY = ("pos", "dest")         # (n, 2) float64: x and y side by side

    def __init__(self, types: TypeTable, terrain: Terrain, capacity: int = 256):
        self.types = types
        self.terrain = terrain
        self.capacity = 0
        self.count = 0                      # slots used (== next id)
        self.tags: list[str | None] = []
        self.order = np.zeros(0, dtype=np.int8)
        self.category = np.zeros(0, dtype=np.int8)
        for name in self.FIELDS_F:
            setattr(self, name, np.zeros(0, dtype=np.float64))
        for name in self.FIELDS_I:
            setattr(self, name, np.zeros(0, dtype=np.int64))
        for name in self.FIELDS_B:
            setattr(self, name, np.zeros(0, dtype=bool))
        for name in self.FIELDS_XY:
            setattr(self, name, np.zeros((0, 2), dtype=np.float64))
        self._grow(capacity)
        self._alive_idx: np.ndarray | None = None
        self.version = 0                    # bumps on every spawn / death
        self.fire_banned = 0                # units a rule has ever forbidden to fire (0: combat skips the check)
        self.cloak_used = False             # a rule has cloaked a unit (False: nothing is hidden, no check runs)

    def _grow(self, capacity: int) -> None:
        def grown(a: np.ndarray, fill=0) -> np.ndarray:
            out = np.full(capacity, fill, dtype=a.dtype)
            out[: a.size] = a
            return out

        for name in ("order", "category", *self.FIELDS_F, *self.FIELDS_I, *self.FIELDS_B):
            fill = -1 if name in ("target", "build_target", "build_type", "last_hit_team") else 0
            setattr(self, name, grown(getattr(self, name), fill))
        for name in self.FIELDS_XY:
            old = getattr(self, name)
            new = np.zeros((capacity, 2), dtype=np.float64)
            new[: old.shape[0]] = old
            setattr(self, name, new)
        self.x, self.y = self.pos[:, 0], self.pos[:, 1]
        self.dest_x, self.dest_y = self.dest[:, 0], self.dest[:, 1]
        self.capacity = capacity

    # --- unit lifecycle ---------------------------------------------------------------------------
    def spawn(self, type_name: str, team: int, x: float, y: float, *, tag: str | None = None,
              complete: bool = True) -> int:
        t = self.types
        ti = t.index[type_name]
        if self.count + 1 >= self.capacity:   # the last slot stays empty: index -1 (no target) reads a dead unit
            self._grow(self.capacity * 2)
        i = self.count
        self.count += 1
        self.tags.append(tag)
        self.alive[i] = True
        self.type[i] = ti
        self.team[i] = team
        self.category[i] = t.category[ti]
        self.x[i], self.y[i] = x, y
        self.dest_x[i], self.dest_y[i] = x, y
        self.home_x[i], self.home_y[i] = x, y
        self.max_hp[i] = t.hp[ti]
        self.progress[i] = 1.0 if complete else 0.0
        self.hp[i] = t.hp[ti] if complete else max(1.0, 0.1 * t.hp[ti])
        for name in ("speed", "size", "sight", "armor", "w_range", "w_min_range", "w_damage", "w_reload", "w_splash"):
            getattr(self, name)[i] = getattr(t, name)[ti]
        self.is_air[i] = t.is_air[ti]
        self.is_building[i] = t.is_building[ti]
        self.armed[i] = t.armed[ti]
        self.hits_ground[i] = t.w_hits_ground[ti]
        self.hits_air[i] = t.w_hits_air[ti]
        self.cooldown[i] = 0.0
        self.target[i] = -1
        self.build_target[i] = -1
        self.build_type[i] = -1
        self.order[i] = NONE
        self.hold[i] = False
        self.no_fire[i] = False
        self.cloaked[i] = False
        self.detect[i] = 0.0
        mult = 1.0
        if t.needs_deposit[ti]:
            mult = self.terrain.deposits.get((int(x), int(y)), 0.0)
        self.income_mult[i] = mult
        if t.is_building[ti]:
            self.terrain.add_building(x, y, t.size[ti], +1)
        self._alive_idx = None
        self.version += 1
        return i

    def kill(self, i: int) -> None:
        if not self.alive[i]:
            return
        self.alive[i] = False
        self.hp[i] = 0.0
        if self.is_building[i]:
            self.terrain.add_building(self.x[i], self.y[i], self.size[i], -1)
        self._alive_idx = None
        self.version += 1

    # --- queries ---------------------------------------------------------------------------------
    @property
    def alive_idx(self) -> np.ndarray:
        """Ids of living units, ascending (cached until the next spawn or death)."""
        if self._alive_idx is None:
            self._alive_idx = self.alive[: self.count].nonzero()[0]
        return self._alive_idx

    def is_alive(self, i: int) -> bool:
        return 0 <= i < self.count and bool(self.alive[i])

    def type_name(self, i: int) -> str:
        return self.types.names[int(self.type[i])]

    def unit_dict(self, i: int) -> dict:
        """The public view of one unit (rule scripts, agents)."""
        return {
            "id": int(i), "type": self.types.names[int(self.type[i])], "team": int(self.team[i]),
            "x": round(float(self.x[i]), 3), "y": round(float(self.y[i]), 3), "hp": round(float(self.hp[i]), 3),
            "max_hp": round(float(self.max_hp[i]), 3), "tag": self.tags[i], "category": CATEGORIES[int(self.category[i])],
            "sight": round(float(self.sight[i]), 3),
        }

    def unit_dicts(self, ids: np.ndarray) -> list[dict]:
        """`unit_dict` of each id in `ids`, read from the arrays in one pass (whole armies)."""
        names, tags = self.types.names, self.tags
        cols = zip(ids.tolist(), self.type[ids].tolist(), self.team[ids].tolist(), self.x[ids].tolist(),
                   self.y[ids].tolist(), self.hp[ids].tolist(), self.max_hp[ids].tolist(), self.category[ids].tolist(),
                   self.sight[ids].tolist())
        return [{"id": i, "type": names[ti], "team": team, "x": round(x, 3), "y": round(y, 3), "hp": round(hp, 3),
                 "max_hp": round(mhp, 3), "tag": tags[i], "category": CATEGORIES[c], "sight": round(sight, 3)}
                for i, ti, team, x, y, hp, mhp, c, sight in cols]

    def complete(self) -> np.ndarray:
        """Mask over all slots: alive and finished building."""
        n = self.count
        return self.alive[:n] & (self.progress[:n] >= 1.0)

    def select(self, team: int | None = None, tag: str | None = None, type_name: str | None = None,
               category: str | None = None) -> np.ndarray:
        """Ids of living units matching every given field."""
        idx = self.alive_idx
        if team is not None:
            idx = idx[self.team[idx] == team]
        if type_name is not None:
            ti = self.types.index.get(type_name, -1)
            idx = idx[self.type[idx] == ti]
        if category is not None:
            ci = CATEGORIES.index(category) if category in CATEGORIES else -1
            idx = idx[self.category[idx] == ci]
        if tag is not None:
            idx = np.array([i for i in idx if self.tags[i] == tag], dtype=np.int64)
        return idx
