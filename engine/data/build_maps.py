"""Rebuild the built-in maps in engine/data/maps/*.json, deterministically.

    python -m engine.data.build_maps            # writes every map, then checks it
    python -m engine.data.build_maps --check    # only verifies that the files are up to date

Each map is drawn on a small canvas of terrain codes with shapes (discs, irregular blobs, thick
polylines, rings with gaps); decoration uses a numpy Generator with a fixed seed. Before writing,
enclosed ground pockets are filled and every map is checked: spawns on passable ground and
mutually reachable, deposits on plain ground.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine.mapgen import fill_pockets, generate
from engine.maps import MAPS_DIR, terrain_array, unreachable_spawns
from engine.schema.level import MapGenParams
from engine.schema.mapdata import Deposit, MapData, SpawnPoint
from engine.snapshot import BRIDGE, CLIFF, GROUND, WATER


class Canvas:
    """A terrain-code grid plus deposits and spawns, with the drawing operations maps need."""

    def __init__(self, width: int, height: int, fill: int = GROUND, seed: int = 0):
        self.w, self.h = width, height
        self.grid = np.full((height, width), fill, dtype=np.uint8)
        self.rng = np.random.default_rng(seed)
        self.deposits: list[tuple[int, int]] = []
        self.spawns: dict[str, tuple[float, float]] = {}
        self._yy, self._xx = np.mgrid[0:height, 0:width] + 0.5  # tile centres

    def _dist(self, cx: float, cy: float) -> np.ndarray:
        return np.hypot(self._xx - cx, self._yy - cy)

    def disc(self, cx: float, cy: float, r: float, code: int) -> None:
        self.grid[self._dist(cx, cy) <= r] = code

    def rect(self, x0: int, y0: int, x1: int, y1: int, code: int) -> None:
        self.grid[max(0, y0):y1, max(0, x0):x1] = code

    def blob(self, cx: float, cy: float, r: float, code: int, rough: float = 0.25) -> None:
        """Irregular disc: the radius wobbles with a few random harmonics of the angle."""
        angle = np.arctan2(self._yy - cy, self._xx - cx)
        wobble = np.zeros_like(angle)
        for k in (2, 3, 5):
            wobble += self.rng.uniform(-1, 1) * np.sin(k * angle + self.rng.uniform(0, 2 * np.pi))
        self.grid[self._dist(cx, cy) <= r * (1 + rough * wobble / 3)] = code

    def path(self, points: list[tuple[float, float]], width: float, code: int, only: int | None = None) -> None:
        """Thick polyline; with `only`, paints just the tiles that currently hold that code."""
        mask = np.zeros_like(self.grid, dtype=bool)
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            steps = max(1, int(math.hypot(x1 - x0, y1 - y0) * 2))
            for t in np.linspace(0, 1, steps + 1):
                mask |= self._dist(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t) <= width / 2
        if only is not None:
            mask &= self.grid == only
        self.grid[mask] = code

    def ring(self, cx: float, cy: float, r_in: float, r_out: float, code: int,
             gaps_deg: tuple[float, ...] = (), gap_width: float = 5) -> None:
        """Annulus with openings of `gap_width` tiles at the given angles (0 = east, 90 = south)."""
        d = self._dist(cx, cy)
        mask = (d >= r_in) & (d <= r_out)
        for a in gaps_deg:
            ux, uy = math.cos(math.radians(a)), math.sin(math.radians(a))
            along = (self._xx - cx) * ux + (self._yy - cy) * uy
            across = np.abs(-(self._xx - cx) * uy + (self._yy - cy) * ux)
            mask &= ~((along > 0) & (across <= gap_width / 2))
        self.grid[mask] = code

    def deposit(self, x: float, y: float) -> None:
        tx, ty = int(x), int(y)
        self.grid[ty, tx] = GROUND
        self.deposits.append((tx, ty))

    def spawn(self, name: str, x: float, y: float) -> None:
        self.spawns[name] = (x, y)

    def mirror_quadrant(self) -> None:
        """Copy the top-left quadrant (grid, deposits, spawns ending in 'nw') to all four."""
        hw, hh = self.w // 2, self.h // 2
        q = self.grid[:hh, :hw]
        self.grid[:hh, self.w - hw:] = q[:, ::-1]
        self.grid[self.h - hh:, :] = self.grid[:hh, :][::-1, :]
        self.deposits = [(x, y) for x, y in self.deposits if x < hw and y < hh]
        self.deposits += [(self.w - 1 - x, y) for x, y in self.deposits]
        self.deposits += [(x, self.h - 1 - y) for x, y in self.deposits]

    def to_map(self, name: str, description: str) -> MapData:
        fill_pockets(self.grid)
        chars = np.frombuffer(b".~#=", dtype=np.uint8)[self.grid].copy()
        unique = sorted(set(self.deposits), key=lambda t: (t[1], t[0]))
        for x, y in unique:
            chars[y, x] = ord("M")
        return MapData(
            name=name,
            description=description,
            width=self.w,
            height=self.h,
            rows=[bytes(r).decode("ascii") for r in chars],
            deposits=[Deposit(x=x, y=y) for x, y in unique],
            spawns=[SpawnPoint(name=n, x=x, y=y) for n, (x, y) in self.spawns.items()],
        )


# --- the maps ------------------------------------------------------------------------------------
def open_field() -> MapData:
    c = Canvas(48, 48, seed=1)
    for x, y in ((24, 11), (24, 37)):
        c.blob(x, y, 2.6, WATER)
    for x, y in ((12, 31), (36, 17)):
        c.blob(x, y, 2.2, CLIFF)
    anchors = {"center": (24, 24), "north": (24, 5), "south": (24, 43), "west": (5, 24), "east": (43, 24),
               "nw": (6, 6), "ne": (42, 6), "sw": (6, 42), "se": (42, 42)}
    for name, (x, y) in anchors.items():
        c.spawn(name, x + 0.5, y + 0.5)
    for x, y in ((3, 9), (9, 3), (38, 3), (44, 9), (3, 38), (9, 44), (44, 38), (38, 44), (21, 24), (27, 24)):
        c.deposit(x, y)
    return c.to_map("open_field", "Small open 48x48 field with two ponds and two rock outcrops; quick skirmishes.")


def two_front_corridor() -> MapData:
    c = Canvas(96, 64, fill=CLIFF, seed=2)
    c.blob(62, 32, 9, WATER, rough=0.3)                      # lake inside the ridge between fronts
    c.disc(22, 32, 14, GROUND)                               # the base
    c.rect(2, 16, 14, 48, GROUND)                            # rear yard
    north = [(30, 26), (44, 18), (60, 14), (76, 10), (88, 9)]
    south = [(30, 38), (44, 46), (60, 50), (76, 54), (88, 55)]
    c.path(north, 7, GROUND)
    c.path(south, 7, GROUND)
    c.disc(86, 10, 8, GROUND)                                # north-east staging area
    c.disc(86, 54, 8, GROUND)                                # south-east staging area
    for x, y, r in ((6, 20, 2.2), (70, 56, 1.6), (68, 8, 1.6)):
        c.blob(x, y, r, WATER)
    spawns = {"base": (22, 32), "west": (5, 32), "choke_1": (44, 18), "choke_2": (44, 46),
              "front_1": (86, 10), "front_2": (86, 54), "ne": (90, 7), "se": (90, 57),
              "north": (60, 14), "south": (60, 50)}
    for name, (x, y) in spawns.items():
        c.spawn(name, x + 0.5, y + 0.5)
    for x, y in ((15, 25), (29, 25), (15, 39), (29, 39), (22, 21), (22, 43), (8, 22), (8, 42),
                 (52, 16), (52, 48), (84, 15), (84, 49)):
        c.deposit(x, y)
    return c.to_map(
        "two_front_corridor",
        "96x64: a base in the middle-left; two corridors through a cliff ridge reach it from the "
        "north-east (front_1) and the south-east (front_2), with chokes at choke_1 / choke_2.",
    )


def crossroads() -> MapData:
    c = Canvas(96, 96, seed=3)
    for x, y in ((27, 27), (69, 27), (27, 69), (69, 69)):
        c.blob(x, y, 11, CLIFF, rough=0.35)
    for x, y in ((28, 5), (5, 28), (68, 5), (91, 28), (5, 68), (28, 91), (91, 68), (68, 91)):
        c.blob(x, y, 2.8, WATER)
    for x, y in ((41, 41), (55, 41), (41, 55), (55, 55)):
        c.disc(x, y, 1.8, CLIFF)
    anchors = {"center": (48, 48), "north": (48, 6), "south": (48, 90), "west": (6, 48), "east": (90, 48),
               "nw": (9, 9), "ne": (87, 9), "sw": (9, 87), "se": (87, 87)}
    for name, (x, y) in anchors.items():
        c.spawn(name, x + 0.5, y + 0.5)
    for bx, by in ((9, 9), (87, 9), (9, 87), (87, 87)):
        for dx, dy in ((-4, 2), (2, -4), (4, 4)):
            c.deposit(bx + dx if bx < 48 else bx - dx, by + dy if by < 48 else by - dy)
    for x, y in ((45, 48), (51, 48), (48, 45), (48, 51), (44, 8), (52, 8), (44, 88), (52, 88),
                 (8, 44), (8, 52), (88, 44), (88, 52)):
        c.deposit(x, y)
    return c.to_map("crossroads", "96x96: four cliff mesas leave a plus of roads meeting at a central plaza; bases in the corners.")


def river_bridges() -> MapData:
    size = 128
    c = Canvas(size, size, seed=4)

    def river_y(x: float) -> float:
        return 64 + 7 * math.sin(2 * math.pi * x / size * 1.5)

    c.path([(x, river_y(x)) for x in range(-4, size + 5, 4)], 9, WATER)
    bridges = (24, 64, 104)
    for i, bx in enumerate(bridges, start=1):
        ry = river_y(bx)
        c.path([(bx + 0.5, ry - 8), (bx + 0.5, ry + 8)], 3.2, BRIDGE, only=WATER)
        c.spawn(f"bridge_{i}", bx + 0.5, int(ry) + 0.5)
        c.spawn(f"bridge_{i}_north", bx + 0.5, int(ry - 8) + 0.5)
        c.spawn(f"bridge_{i}_south", bx + 0.5, int(ry + 8) + 0.5)
    for x, y, r in ((44, 30, 6), (86, 30, 6), (44, 98, 6), (86, 98, 6), (8, 44, 4), (120, 84, 4)):
        c.blob(x, y, r, CLIFF, rough=0.4)
    for x, y in ((64, 30), (64, 98)):
        c.blob(x, y, 3, WATER)
    anchors = {"north": (64, 14), "south": (64, 113), "nw": (14, 14), "ne": (113, 14),
               "sw": (14, 113), "se": (113, 113)}
    for name, (x, y) in anchors.items():
        c.spawn(name, x + 0.5, y + 0.5)
    c.spawn("center", *c.spawns["bridge_2"])
    for x, y in ((58, 10), (70, 10), (58, 18), (70, 18), (58, 109), (70, 109), (58, 117), (70, 117),
                 (10, 20), (20, 10), (107, 10), (117, 20), (10, 107), (20, 117), (117, 107), (107, 117),
                 (30, 46), (98, 46), (30, 82), (98, 82)):
        c.deposit(x, y)
    return c.to_map("river_bridges", "128x128: a winding river splits north from south; three bridges (bridge_1..3) are the only ground crossings.")


def plateau_fortress() -> MapData:
    c = Canvas(128, 128, seed=5)
    c.ring(64, 64, 22, 27, CLIFF, gaps_deg=(270, 0, 90, 180), gap_width=5)
    for x, y, r in ((24, 96, 7), (104, 32, 7)):
        c.blob(x, y, r, WATER, rough=0.3)
    for x, y, r in ((32, 32, 5), (96, 96, 5), (64, 112, 3), (64, 16, 3)):
        c.blob(x, y, r, CLIFF, rough=0.4)
    anchors = {"base": (64, 64), "fortress": (64, 64), "gate_n": (64, 33), "gate_e": (95, 64),
               "gate_s": (64, 95), "gate_w": (33, 64), "nw": (10, 10), "ne": (117, 10),
               "sw": (10, 117), "se": (117, 117), "north": (64, 6), "south": (64, 121),
               "west": (6, 64), "east": (121, 64)}
    for name, (x, y) in anchors.items():
        c.spawn(name, x + 0.5, y + 0.5)
    for x, y in ((58, 58), (70, 58), (58, 70), (70, 70), (64, 54), (64, 74),
                 (6, 16), (16, 6), (111, 6), (121, 16), (6, 111), (16, 121), (121, 111), (111, 121)):
        c.deposit(x, y)
    return c.to_map(
        "plateau_fortress",
        "128x128: a cliff-ringed plateau in the centre (base/fortress) reachable only through four "
        "ramps (gate_n/e/s/w); open ground, lakes and rocks outside.",
    )


def four_corner_arena() -> MapData:
    c = Canvas(192, 192, seed=6)
    # Drawn in the north-west quadrant, then mirrored to all four for a fair free-for-all.
    c.ring(24, 24, 30, 35, CLIFF, gaps_deg=(15, 75), gap_width=8)
    c.ring(96, 96, 19, 24, WATER, gaps_deg=(225,), gap_width=9)
    for x, y, r in ((60, 38, 5), (38, 60, 5)):
        c.blob(x, y, r, CLIFF, rough=0.4)
    for x, y, r in ((20, 72, 5), (72, 20, 5)):
        c.blob(x, y, r, WATER, rough=0.3)
    for x, y in ((16, 24), (24, 16), (31, 22), (22, 31), (30, 30), (60, 60), (90, 84), (84, 90)):
        c.deposit(x, y)
    c.mirror_quadrant()
    anchors = {"nw": (24, 24), "ne": (167, 24), "sw": (24, 167), "se": (167, 167), "center": (96, 96),
               "north": (96, 8), "south": (96, 183), "west": (8, 96), "east": (183, 96),
               "mid_nw": (55, 55), "mid_ne": (136, 55), "mid_sw": (55, 136), "mid_se": (136, 136)}
    for name, (x, y) in anchors.items():
        c.spawn(name, x + 0.5, y + 0.5)
    return c.to_map(
        "four_corner_arena",
        "192x192, four-fold symmetric: walled corner bases (nw/ne/sw/se) with two exits each, and a "
        "central arena ringed by water, entered from the diagonals.",
    )


def wilderness() -> MapData:
    generated = generate(MapGenParams(width=256, height=256, seed=7, cliff_density=0.14,
                                      water_density=0.10, deposits=56, symmetry="rotational"))
    return generated.model_copy(update={
        "name": "wilderness",
        "description": "256x256 procedural wilderness (rotationally symmetric): scattered cliffs, lakes "
                       "with bridges, deposits clustered at the corners.",
    })


BUILDERS: dict[str, Callable[[], MapData]] = {
    "open_field": open_field,
    "two_front_corridor": two_front_corridor,
    "crossroads": crossroads,
    "river_bridges": river_bridges,
    "plateau_fortress": plateau_fortress,
    "four_corner_arena": four_corner_arena,
    "wilderness": wilderness,
}


# --- checks and output ---------------------------------------------------------------------------
def check_map(m: MapData) -> list[str]:
    """Problems that would make the map unfit as a built-in (empty list = fine)."""
    problems = [f"{a} and {b} are not connected on ground" if a != b else f"spawn {a} is not on passable ground"
                for a, b in unreachable_spawns(m)]
    terrain = terrain_array(m)
    for d in m.deposits:
        if terrain[d.y, d.x] != GROUND:
            problems.append(f"deposit ({d.x}, {d.y}) is not on ground")
    if len({s.name for s in m.spawns}) != len(m.spawns):
        problems.append("duplicate spawn names")
    return problems


def serialise(m: MapData) -> str:
    return json.dumps(m.model_dump(mode="json"), indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify the files instead of writing them")
    parser.add_argument("--out", type=Path, default=MAPS_DIR)
    args = parser.parse_args(argv)
    failed = False
    for name, build in BUILDERS.items():
        m = build()
        problems = check_map(m)
        path = args.out / f"{name}.json"
        text = serialise(m)
        if args.check and (not path.exists() or path.read_text(encoding="utf-8") != text):
            problems.append(f"{path} is out of date; run python -m engine.data.build_maps")
        if not args.check and not problems:
            args.out.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        status = "ok" if not problems else "FAILED: " + "; ".join(problems)
        print(f"{name:20s} {m.width}x{m.height} spawns={len(m.spawns)} deposits={len(m.deposits)} {status}")
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
