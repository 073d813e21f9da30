"""Pillow rendering of Snapshots: minimap screenshots, zoomed camera views, PNG frames, GIF replays.

Only reads `engine.snapshot.Snapshot`, never simulation internals. The terrain (with its shading
and the deposits) is drawn once per terrain array and output size and cached, so a screenshot
only pays for units, fog and overlays. Terrain arrays are assumed static (the cache checks the
array object first, then a digest of its bytes).

Glyphs, one per category: commander = star, bot = circle, vehicle = square, air = triangle,
defense = diamond, economy = small square with a light core, factory = big square with a dark
core. Units under construction are drawn hollow.

`render_minimap` is the square observation agents see; `render_frame` is the picture for people
and for visual review: the map fills the frame, a caption band above it and a glyph legend below,
marker labels placed inside the map without covering each other.
"""
from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

import numpy as np
from PIL import Image, ImageColor, ImageDraw, ImageFont

from engine.palette import (DEPOSIT_EDGE, DEPOSIT_FILL, FOG_DARKEN, OUTSIDE_RGB, RIM_RGB, TEAM_PALETTE, TERRAIN_JITTER,
                            TERRAIN_NAMES, TERRAIN_RGB)
from engine.snapshot import BRIDGE, CATEGORIES, CLIFF, ENVIRONMENT, GROUND, WATER, Marker, Shape, Snapshot

# Minimum glyph radius in pixels on a 512 px minimap, per category (scaled with the image).
_MIN_RADIUS = {"commander": 7.0, "bot": 3.0, "vehicle": 3.5, "air": 4.0, "defense": 4.0, "economy": 4.5, "factory": 6.0}


# --- caches --------------------------------------------------------------------------------------
class _LRU(OrderedDict):
    def __init__(self, capacity: int):
        super().__init__()
        self.capacity = capacity

    def put(self, key, value):
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.capacity:
            self.popitem(last=False)
        return value


_digests: _LRU = _LRU(16)   # id(array) -> (array, digest); holding the array keeps its id unique
_colors: _LRU = _LRU(16)    # terrain digest -> (H, W, 3) uint8 shaded colours
_bases: _LRU = _LRU(32)     # (terrain digest, deposits digest, size) -> (base image, fogged base)


def _digest(arr: np.ndarray) -> str:
    hit = _digests.get(id(arr))
    if hit is not None and hit[0] is arr:
        return hit[1]
    digest = hashlib.blake2b(np.ascontiguousarray(arr).tobytes(), digest_size=12).hexdigest() + str(arr.shape)
    _digests.put(id(arr), (arr, digest))
    return digest


def _terrain_colors(terrain: np.ndarray) -> np.ndarray:
    """(H, W, 3) colours with a per-tile jitter and lighter rims where terrain kinds meet."""
    key = _digest(terrain)
    if key in _colors:
        return _colors[key]
    h, w = terrain.shape
    palette = np.array([TERRAIN_RGB[c] for c in (GROUND, WATER, CLIFF, BRIDGE)], dtype=np.int16)
    rims = np.array([RIM_RGB[c] for c in (GROUND, WATER, CLIFF, BRIDGE)], dtype=np.int16)
    codes = np.minimum(terrain, 3)
    padded = np.pad(codes, 1, mode="edge")
    edge = np.zeros((h, w), dtype=bool)
    for dy, dx in ((0, 1), (2, 1), (1, 0), (1, 2)):
        edge |= padded[dy:dy + h, dx:dx + w] != codes
    rgb = np.where(edge[..., None], rims[codes], palette[codes])
    yy, xx = np.mgrid[0:h, 0:w]
    jitter = ((xx * 73856093) ^ (yy * 19349663)) % (2 * TERRAIN_JITTER + 1) - TERRAIN_JITTER  # per-tile texture
    rgb = np.clip(rgb + jitter[..., None], 0, 255).astype(np.uint8)
    return _colors.put(key, rgb)


def _fit(snap: Snapshot, size: int) -> tuple[float, float, float]:
    """(pixels per tile, x offset, y offset) that centre the whole map in a size x size image."""
    scale = size / max(snap.width, snap.height)
    return scale, (size - snap.width * scale) / 2, (size - snap.height * scale) / 2


def _minimap_base(snap: Snapshot, size: int) -> tuple[Image.Image, Image.Image]:
    key = (_digest(snap.terrain), _digest(snap.deposits), size)
    if key in _bases:
        return _bases[key]
    scale, ox, oy = _fit(snap, size)
    terrain = Image.fromarray(_terrain_colors(snap.terrain), "RGB")
    terrain = terrain.resize((max(1, round(snap.width * scale)), max(1, round(snap.height * scale))), Image.NEAREST)
    base = Image.new("RGB", (size, size), OUTSIDE_RGB)
    base.paste(terrain, (round(ox), round(oy)))
    _draw_deposits(ImageDraw.Draw(base), snap.deposits, scale, ox, oy, radius=max(2.2, 0.5 * scale))
    fogged = Image.eval(base, lambda v: int(v * FOG_DARKEN))
    return _bases.put(key, (base, fogged))


def _draw_deposits(draw: ImageDraw.ImageDraw, deposits: np.ndarray, scale: float, ox: float, oy: float, radius: float) -> None:
    for x, y in np.asarray(deposits, dtype=float).reshape(-1, 2).tolist():
        _draw_deposit(draw, ox + x * scale, oy + y * scale, radius)


def _draw_deposit(draw: ImageDraw.ImageDraw, px: float, py: float, radius: float) -> None:
    """A silver ring with a dark core: unlike a unit glyph (filled, in a team colour) at any size."""
    draw.ellipse((px - radius, py - radius, px + radius, py + radius), fill=DEPOSIT_FILL, outline=DEPOSIT_EDGE)
    if radius >= 3:
        c = radius * 0.42
        draw.ellipse((px - c, py - c, px + c, py + c), fill=DEPOSIT_EDGE)


# --- glyphs --------------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(8, size))


@lru_cache(maxsize=None)
def _rgb(color: str) -> tuple[int, int, int]:
    return ImageColor.getrgb(color)[:3]


def team_color(snap: Snapshot, team: int) -> tuple[int, int, int]:
    """The team's colour from the snapshot, or the default palette entry for its id."""
    color = snap.team_colors.get(team) or TEAM_PALETTE[team % len(TEAM_PALETTE)]
    return _rgb(color)


@lru_cache(maxsize=4096)
def _shape(category: str, r: float) -> tuple[str, tuple]:
    """('ellipse'|'polygon', points relative to the centre) for one category and radius."""
    if category == "bot":
        return "ellipse", (-r, -r, r, r)
    if category == "commander":
        pts = []
        for k in range(10):
            rr = r if k % 2 == 0 else r * 0.45
            a = -math.pi / 2 + k * math.pi / 5
            pts.append((rr * math.cos(a), rr * math.sin(a)))
        return "polygon", tuple(pts)
    if category == "air":
        return "polygon", ((0, -r), (r * 0.95, r * 0.8), (-r * 0.95, r * 0.8))
    if category == "defense":
        return "polygon", ((0, -r), (r, 0), (0, r), (-r, 0))
    s = r * (0.8 if category in ("vehicle", "economy") else 1.0)
    return "polygon", ((-s, -s), (s, -s), (s, s), (-s, s))


def _hp_color(frac: float) -> tuple[int, int, int]:
    if frac > 0.6:
        return (74, 222, 128)
    if frac > 0.3:
        return (250, 204, 21)
    return (239, 68, 68)


def _draw_units(draw: ImageDraw.ImageDraw, snap: Snapshot, keep: np.ndarray, scale: float, ox: float, oy: float,
                min_scale: float, always_hp: bool) -> None:
    """Glyphs and health bars for the units where `keep` is True (buildings first, air last)."""
    order = np.argsort(_layer(snap.category), kind="stable")
    idx = order[keep[order]]
    xs = (ox + snap.x[idx] * scale).tolist()
    ys = (oy + snap.y[idx] * scale).tolist()
    radii = (snap.size[idx] * scale).tolist()
    cats, teams = snap.category[idx].tolist(), snap.team[idx].tolist()
    hps, building = snap.hp_frac[idx].tolist(), snap.under_construction[idx].tolist()
    bar_h = max(2, round(2 * min_scale))
    width = max(1, round(min_scale))
    for px, py, rad, cat, team, hp, constructing in zip(xs, ys, radii, cats, teams, hps, building):
        category = CATEGORIES[cat]
        r = round(max(rad, _MIN_RADIUS[category] * min_scale) * 2) / 2
        _draw_glyph(draw, px, py, category, r, team_color(snap, team), constructing, width)
        if always_hp or hp < 0.999:
            _draw_health(draw, px, py, r, hp, bar_h)


_EDGE = (16, 18, 22)


def _draw_glyph(draw: ImageDraw.ImageDraw, px: float, py: float, category: str, r: float,
                color: tuple[int, int, int], constructing: bool, width: int) -> None:
    """One unit's glyph: its category's shape in its team colour, hollow while under construction."""
    kind, pts = _shape(category, r)
    fill, outline = (None, color) if constructing else (color, _EDGE)
    if constructing:
        width += 1
    if kind == "ellipse":
        draw.ellipse((px + pts[0], py + pts[1], px + pts[2], py + pts[3]), fill=fill, outline=outline, width=width)
    else:
        draw.polygon([(px + dx, py + dy) for dx, dy in pts], fill=fill, outline=outline, width=width)
    if constructing:
        return
    if category == "commander":
        draw.polygon([(px + dx, py + dy) for dx, dy in pts], outline=(255, 255, 255), width=1)
    elif category == "factory" and r >= 5:
        c = r * 0.35
        draw.rectangle((px - c, py - c, px + c, py + c), fill=_EDGE)
    elif category == "economy":
        c = max(1.0, r * 0.25)
        draw.rectangle((px - c, py - c, px + c, py + c), fill=(235, 235, 220))


def _draw_health(draw: ImageDraw.ImageDraw, px: float, py: float, r: float, hp: float, bar_h: int) -> None:
    half = max(3.0, r)
    top = py - r - bar_h - 2
    draw.rectangle((px - half, top, px + half, top + bar_h), fill=(20, 20, 20))
    draw.rectangle((px - half, top, px - half + 2 * half * max(0.0, min(1.0, hp)), top + bar_h), fill=_hp_color(hp))


_LAYER_BY_CODE = np.array([3, 2, 2, 4, 1, 0, 0])  # economy/factory below, defense, ground units, commander, air on top


def _layer(category: np.ndarray) -> np.ndarray:
    return _LAYER_BY_CODE[np.asarray(category, dtype=int)]


def _visible_units(snap: Snapshot, viewer: int | None) -> np.ndarray:
    """Mask of units to draw: for `viewer`, cloaked enemies it has not detected are left out, and with fog
    enemy units on tiles it does not see."""
    keep = np.ones(len(snap.ids), dtype=bool)
    if viewer is not None and viewer in snap.hidden:
        keep &= ~snap.hidden[viewer]
    if viewer is None or viewer not in snap.visible or len(snap.ids) == 0:
        return keep
    vis = snap.visible[viewer]
    tx = np.clip(snap.x.astype(int), 0, snap.width - 1)
    ty = np.clip(snap.y.astype(int), 0, snap.height - 1)
    return keep & ((snap.team == viewer) | vis[ty, tx])


# --- overlays ------------------------------------------------------------------------------------
def _panel(img: Image.Image, box: tuple[int, int, int, int], alpha: int = 150) -> None:
    """Darken a rectangle so text on it stays readable over any terrain."""
    x0, y0, x1, y1 = (max(0, v) for v in box)
    x1, y1 = min(img.width, x1), min(img.height, y1)
    if x1 > x0 and y1 > y0:
        img.paste((8, 10, 14), (x0, y0, x1, y1), Image.new("L", (x1 - x0, y1 - y0), alpha))


def _label(img: Image.Image, draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str,
           font, color=(240, 240, 240)) -> None:
    left, top, right, bottom = draw.textbbox(xy, text, font=font)
    _panel(img, (int(left) - 3, int(top) - 2, int(right) + 3, int(bottom) + 2))
    draw.text(xy, text, font=font, fill=color)


def _side(team: int) -> str:
    return "env" if team == ENVIRONMENT else f"T{team}"


def _shape_box(s: Shape, scale: float, ox: float, oy: float) -> tuple[float, float, float, float]:
    return (ox + (s.x - s.half_w) * scale, oy + (s.y - s.half_h) * scale,
            ox + (s.x + s.half_w) * scale, oy + (s.y + s.half_h) * scale)


def _draw_outline(draw: ImageDraw.ImageDraw, kind: str, box: tuple, color: tuple[int, int, int], k: float) -> None:
    width = max(2, round(2 * k))
    if kind == "circle":
        draw.ellipse(box, outline=color, width=width)
    else:
        draw.rectangle(box, outline=color, width=width)


def _draw_shapes(img: Image.Image, draw: ImageDraw.ImageDraw, shapes: Iterable[Shape], scale: float,
                 ox: float, oy: float, k: float, labels: bool = True) -> None:
    """Rules' areas as outlines under the units, each labelled at its top-left corner when `labels`."""
    font = _font(round(11 * k))
    for s in shapes:
        color = _rgb(s.color)
        box = _shape_box(s, scale, ox, oy)
        _draw_outline(draw, s.kind, box, color, k)
        if s.label and labels:
            _label(img, draw, (max(box[0], 2.0), max(box[1] - 14 * k, 2.0)), s.label, font, color)


def _draw_markers(img: Image.Image, draw: ImageDraw.ImageDraw, markers: Iterable[Marker], scale: float,
                  ox: float, oy: float, k: float, labels: bool) -> None:
    """Rings go under the units (so units stay visible); labels are drawn on top afterwards."""
    font = _font(round(12 * k))
    r = max(4.0, 6 * k)
    for m in markers:
        color = _rgb(m.color)
        px, py = ox + m.x * scale, oy + m.y * scale
        if labels:
            if m.label:
                _label(img, draw, (px + r + 4, py - 7 * k), m.label, font, color)
            continue
        _draw_ring(draw, px, py, r, color, k)


def _draw_ring(draw: ImageDraw.ImageDraw, px: float, py: float, r: float, color: tuple[int, int, int],
               k: float) -> None:
    draw.ellipse((px - r - 1, py - r - 1, px + r + 1, py + r + 1), outline=(0, 0, 0), width=max(1, round(k)))
    draw.ellipse((px - r, py - r, px + r, py + r), outline=color, width=max(2, round(2 * k)))
    draw.line((px - r / 2, py, px + r / 2, py), fill=color, width=1)
    draw.line((px, py - r / 2, px, py + r / 2), fill=color, width=1)


def _clock(seconds: float) -> str:
    total = max(0, int(seconds))
    return f"{total // 60:02d}:{total % 60:02d}"


def _draw_header(img: Image.Image, draw: ImageDraw.ImageDraw, snap: Snapshot, k: float, suffix: str = "") -> None:
    font = _font(round(15 * k))
    text = _clock(snap.time) + (f"  {snap.title}" if snap.title else "") + suffix
    _label(img, draw, (6 * k, 5 * k), text, font)


def _draw_legend(img: Image.Image, draw: ImageDraw.ImageDraw, snap: Snapshot, keep: np.ndarray, k: float) -> None:
    """Bottom-left: one swatch per team with its count of drawn units."""
    teams = sorted(set(snap.team_colors) | set(snap.team.tolist()))
    if not teams:
        return
    font = _font(round(12 * k))
    counts = np.bincount(snap.team[keep].astype(int), minlength=max(teams) + 1) if keep.any() else None
    x, y = 6 * k, img.height - 20 * k
    for team in teams:
        n = int(counts[team]) if counts is not None else 0
        text = f"{_side(team)}: {n}"
        sw = 9 * k
        right = x + sw + 4 + draw.textlength(text, font=font)
        _panel(img, (int(x - 3), int(y - 3), int(right + 4), int(y + 14 * k)))
        draw.rectangle((x, y + 1, x + sw, y + 1 + sw), fill=team_color(snap, team), outline=(0, 0, 0))
        draw.text((x + sw + 4, y - 1), text, font=font, fill=(235, 235, 235))
        x = right + 10 * k


# --- public API ----------------------------------------------------------------------------------
def render_minimap(snap: Snapshot, size: int = 512, viewer: int | None = None) -> Image.Image:
    """The whole map as a size x size RGB image: terrain, deposits, units in team colours with a
    glyph per category, health bars on damaged units, markers, clock + title, team legend.
    With `viewer`, tiles that team cannot see are darkened and enemy units there are hidden."""
    base, fogged = _minimap_base(snap, size)
    scale, ox, oy = _fit(snap, size)
    if viewer is not None and viewer in snap.visible:
        hidden = Image.fromarray(np.where(snap.visible[viewer], 0, 255).astype(np.uint8), "L")
        hidden = hidden.resize((max(1, round(snap.width * scale)), max(1, round(snap.height * scale))), Image.NEAREST)
        mask = Image.new("L", (size, size), 0)
        mask.paste(hidden, (round(ox), round(oy)))
        img = Image.composite(fogged, base, mask)
    else:
        img = base.copy()
    draw = ImageDraw.Draw(img)
    k = size / 512
    keep = _visible_units(snap, viewer)
    _draw_shapes(img, draw, snap.shapes, scale, ox, oy, k)
    _draw_markers(img, draw, snap.markers, scale, ox, oy, k, labels=False)
    _draw_units(draw, snap, keep, scale, ox, oy, min_scale=k, always_hp=False)
    _draw_markers(img, draw, snap.markers, scale, ox, oy, k, labels=True)
    _draw_header(img, draw, snap, k, suffix=f"  [team {viewer} view]" if viewer is not None else "")
    _draw_legend(img, draw, snap, keep, k)
    return img


def render_camera(snap: Snapshot, cx: float, cy: float, tiles: int = 24, size: int = 384,
                  viewer: int | None = None) -> Image.Image:
    """A size x size close-up of `tiles` x `tiles` tiles centred on (cx, cy): bigger glyphs and a
    health bar on every unit. Outside the map is drawn dark."""
    scale = size / tiles
    x0, y0 = cx - tiles / 2, cy - tiles / 2
    ix0, iy0 = math.floor(x0), math.floor(y0)
    n = tiles + 2
    colors = np.zeros((n, n, 3), dtype=np.uint8)
    colors[:] = OUTSIDE_RGB
    sx0, sy0 = max(ix0, 0), max(iy0, 0)
    sx1, sy1 = min(ix0 + n, snap.width), min(iy0 + n, snap.height)
    if sx1 > sx0 and sy1 > sy0:
        window = _terrain_colors(snap.terrain)[sy0:sy1, sx0:sx1].copy()
        if viewer is not None and viewer in snap.visible:
            hidden = ~snap.visible[viewer][sy0:sy1, sx0:sx1]
            window[hidden] = (window[hidden] * FOG_DARKEN).astype(np.uint8)
        colors[sy0 - iy0:sy1 - iy0, sx0 - ix0:sx1 - ix0] = window
    px = round(n * scale)
    big = Image.fromarray(colors, "RGB").resize((px, px), Image.NEAREST)
    offx, offy = (x0 - ix0) * scale, (y0 - iy0) * scale
    img = big.crop((round(offx), round(offy), round(offx) + size, round(offy) + size))
    draw = ImageDraw.Draw(img)
    ox, oy = -x0 * scale, -y0 * scale
    _draw_deposits(draw, snap.deposits, scale, ox, oy, radius=0.38 * scale)
    k = size / 384
    keep = _visible_units(snap, viewer)
    inside = (snap.x > x0 - 2) & (snap.x < x0 + tiles + 2) & (snap.y > y0 - 2) & (snap.y < y0 + tiles + 2)
    _draw_shapes(img, draw, snap.shapes, scale, ox, oy, k)
    _draw_markers(img, draw, snap.markers, scale, ox, oy, k, labels=False)
    _draw_units(draw, snap, keep & inside, scale, ox, oy, min_scale=2.0 * k, always_hp=True)
    _draw_markers(img, draw, snap.markers, scale, ox, oy, k, labels=True)
    _draw_header(img, draw, snap, k, suffix=f"  @ ({cx:.0f}, {cy:.0f})")
    return img


# --- frames for people and visual review -------------------------------------------------------
@dataclass(frozen=True)
class LegendEntry:
    key: str        # a unit category, or constructing / health / deposit / marker / area
    shape: str      # how the glyph looks, in words (for a model that is shown the frames)
    meaning: str    # what it stands for, as the frame's legend says it


LEGEND = (
    LegendEntry("commander", "white-edged star", "commander"),
    LegendEntry("bot", "circle (a ground unit)", "bot"),
    LegendEntry("vehicle", "square (a ground unit)", "vehicle"),
    LegendEntry("air", "triangle", "air"),
    LegendEntry("defense", "diamond", "defense"),
    LegendEntry("economy", "small square with a light core", "economy"),
    LegendEntry("factory", "big square with a dark core", "factory"),
    LegendEntry("constructing", "hollow glyph", "under construction"),
    LegendEntry("health", "bar above a unit (green, yellow, red)", "health"),
    LegendEntry("deposit", "silver ring with a dark core", "metal deposit"),
    LegendEntry("marker", "coloured ring with a cross and a label", "marker"),
    LegendEntry("area", "coloured outline with a label", "rule area"),
)
FRAME_GLYPH_SCALE = 1.4   # frames are looked at whole, so glyphs are drawn larger than on the minimap
LABEL_PAD = 3
MIN_CAPTION_PX, MIN_TEXT_PX = 16, 12   # readable at any frame width


def _boxes_overlap(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _hits(boxes: np.ndarray, b: tuple) -> bool:
    return bool(len(boxes)) and bool(((boxes[:, 0] < b[2]) & (b[0] < boxes[:, 2])
                                      & (boxes[:, 1] < b[3]) & (b[1] < boxes[:, 3])).any())


def place_label(box_w: float, box_h: float, px: float, py: float, r: float, bounds: tuple[float, float, float, float],
                taken: list[tuple], obstacles: np.ndarray | None = None,
                prefer: Sequence[tuple[float, float]] = ()) -> tuple[float, float, float, float] | None:
    """A label box inside `bounds` that overlaps no box in `taken` and, where possible, no (N, 4)
    obstacle box (the units). Tried in order: the `prefer` top-left corners, beside the point (right,
    left, then stepping up and down), then every spot of the area nearest first. Candidates are moved
    inside `bounds` when they fit. None when no spot is free of `taken` boxes."""
    right, left = px + r + 4, px - r - 4 - box_w
    steps = [0.0]
    for n in range(1, 7):
        steps += [n * (box_h + 2), -n * (box_h + 2)]
    near = [*prefer, *((x, py - box_h / 2 + dy) for dy in steps for x in (right, left))]

    def clamp(x: float, y: float) -> tuple[float, float, float, float]:
        x = min(max(x, bounds[0]), max(bounds[0], bounds[2] - box_w))
        y = min(max(y, bounds[1]), max(bounds[1], bounds[3] - box_h))
        return (x, y, x + box_w, y + box_h)

    labels = np.array(taken, dtype=float).reshape(-1, 4)
    units = obstacles if obstacles is not None else np.zeros((0, 4))
    first_free = None
    for b in (clamp(x, y) for x, y in near):
        if _hits(labels, b):
            continue
        if not _hits(units, b):
            return b
        first_free = first_free or b
    if first_free is not None:
        return first_free
    # everywhere else, nearest first: a crowded corner pushes a label further out, never onto another
    xs = np.arange(bounds[0], max(bounds[0], bounds[2] - box_w) + 1, max(4.0, box_w / 4))
    ys = np.arange(bounds[1], max(bounds[1], bounds[3] - box_h) + 1, max(4.0, box_h / 2))
    gx, gy = (g.ravel() for g in np.meshgrid(xs, ys))
    for i in np.argsort((gx + box_w / 2 - px) ** 2 + (gy + box_h / 2 - py) ** 2, kind="stable").tolist():
        b = (float(gx[i]), float(gy[i]), float(gx[i]) + box_w, float(gy[i]) + box_h)
        if not _hits(labels, b):
            return b
    return None


@dataclass(frozen=True)
class PlacedLabel:
    text: str
    color: tuple[int, int, int]
    anchor: tuple[float, float]       # the point it names (a marker, an area's corner)
    box: tuple[float, float, float, float]


@dataclass(frozen=True)
class FrameLayout:
    scale: float                      # pixels per tile
    map_w: int
    map_h: int
    k: float                          # text and glyph scale (1 for a 512 px map)
    labels: tuple[PlacedLabel, ...]   # in map pixels; no two overlap
    unplaced: int                     # labels with no free spot left (said in the legend)


def _frame_size(snap: Snapshot, width: int) -> tuple[float, int, int]:
    """(pixels per tile, map width px, map height px): the map fills `width`, or `width` is its
    height when the map is taller than wide."""
    scale = width / max(snap.width, snap.height)
    return scale, max(1, round(snap.width * scale)), max(1, round(snap.height * scale))


def _label_font(k: float):
    return _font(max(MIN_TEXT_PX, round(12 * k)))


def frame_layout(snap: Snapshot, width: int = 640, viewer: int | None = None) -> FrameLayout:
    """Where render_frame puts the labels of the rules' areas and of the markers: inside the map,
    never over each other or a marker ring, off the units where there is room."""
    scale, mw, mh = _frame_size(snap, width)
    k = max(mw, mh) / 512
    font = _label_font(k)
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    r = max(4.0, 6 * k)
    taken = [(m.x * scale - r, m.y * scale - r, m.x * scale + r, m.y * scale + r) for m in snap.markers]
    rings = len(taken)
    keep = _visible_units(snap, viewer)
    ux, uy = snap.x[keep] * scale, snap.y[keep] * scale
    ur = np.maximum(snap.size[keep] * scale, 4.0 * FRAME_GLYPH_SCALE * k) + 3   # glyph plus its health bar
    units = np.column_stack([ux - ur, uy - ur, ux + ur, uy + ur])
    bounds = (0.0, 0.0, float(mw), float(mh))
    wanted = [(s.label, s.color, _shape_box(s, scale, 0, 0)[:2], 0.0, True) for s in snap.shapes if s.label]
    wanted += [(m.label, m.color, (m.x * scale, m.y * scale), r, False) for m in snap.markers if m.label]
    placed, unplaced = [], 0
    for text, color, (px, py), radius, corner in wanted:
        left, top, right, bottom = measure.textbbox((0, 0), text, font=font)
        w, h = right - left + 2 * LABEL_PAD, bottom - top + 2 * LABEL_PAD
        box = place_label(w, h, px, py, radius, bounds, taken, units, prefer=[(px, py - h - 2)] if corner else ())
        if box is None:
            unplaced += 1
            continue
        taken.append(box)
        placed.append(PlacedLabel(text, _rgb(color), (px, py), box))
    del taken[:rings]
    return FrameLayout(scale, mw, mh, k, tuple(placed), unplaced)


def _map_layer(snap: Snapshot, scale: float, mw: int, mh: int, k: float) -> Image.Image:
    key = ("frame", _digest(snap.terrain), _digest(snap.deposits), mw, mh)
    if key not in _bases:
        img = Image.fromarray(_terrain_colors(snap.terrain), "RGB").resize((mw, mh), Image.NEAREST)
        _draw_deposits(ImageDraw.Draw(img), snap.deposits, scale, 0, 0, radius=max(3.5 * k, 0.45 * scale))
        _bases.put(key, img)
    return _bases[key].copy()


def _draw_placed_labels(img: Image.Image, labels: Sequence[PlacedLabel], k: float) -> None:
    draw = ImageDraw.Draw(img, "RGBA")
    font = _label_font(k)
    r = max(4.0, 6 * k)
    for lab in labels:
        (px, py), box = lab.anchor, lab.box
        nx, ny = min(max(px, box[0]), box[2]), min(max(py, box[1]), box[3])
        if abs(nx - px) + abs(ny - py) > r + 6:   # a leader line ties a displaced label to its point
            draw.line((px, py, nx, ny), fill=lab.color, width=1)
    for lab in labels:
        left, top, _, _ = draw.textbbox((0, 0), lab.text, font=font)
        draw.rectangle(lab.box, fill=(8, 10, 14, 200))
        draw.text((lab.box[0] + LABEL_PAD - left, lab.box[1] + LABEL_PAD - top), lab.text, font=font, fill=lab.color)


_LEGEND_GREY = (160, 162, 168)   # mid grey: the light and dark cores of buildings both show


def _legend_symbol(draw: ImageDraw.ImageDraw, key: str, cx: float, cy: float, r: float, k: float) -> None:
    """The glyph of one legend entry, drawn by the same code as on the map (neutral grey for units,
    so a class never reads as a team)."""
    if key in CATEGORIES:
        _draw_glyph(draw, cx, cy, key, r, _LEGEND_GREY, False, 1)
    elif key == "constructing":
        _draw_glyph(draw, cx, cy, "factory", r, _LEGEND_GREY, True, 1)
    elif key == "health":
        bar = max(2, round(2 * k))
        for n, hp in enumerate((1.0, 0.5, 0.25)):      # one bar per colour band
            top = cy - (3 * bar + 4) / 2 + n * (bar + 2)
            _draw_health(draw, cx, top + r + bar + 2, r, hp, bar)
    elif key == "deposit":
        _draw_deposit(draw, cx, cy, r * 0.8)
    elif key == "marker":
        _draw_ring(draw, cx, cy, r * 0.8, _rgb(Marker.color), k)
    elif key == "area":
        _draw_outline(draw, "rect", (cx - r, cy - r * 0.7, cx + r, cy + r * 0.7), _rgb(Marker.color), k / 2)
    elif key.startswith("terrain:"):
        draw.rectangle((cx - r, cy - r, cx + r, cy + r), fill=TERRAIN_RGB[int(key[8:])], outline=RIM_RGB[int(key[8:])])
    else:
        draw.rectangle((cx - r, cy - r, cx + r, cy + r), fill=_rgb(key), outline=(0, 0, 0))


@lru_cache(maxsize=64)
def _legend_band(width: int, k: float, teams: tuple[tuple[int, str, int], ...], terrain: tuple[int, ...],
                 unplaced: int) -> Image.Image:
    """Rows of (symbol, text): the unit glyphs by class, then the other map symbols and the terrain
    kinds on the map, then each team's colour with its unit count; a row wraps when the frame is
    narrow. Cached: teams' counts change only when units are created or destroyed."""
    font = _font(max(MIN_TEXT_PX, round(12 * k)))
    row, r, gap = round(max(MIN_TEXT_PX + 6, 18 * k)), max(5.0, 6 * k), 14 * k
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    groups = [[(e.key, e.meaning) for e in LEGEND if e.key in CATEGORIES],
              [(e.key, e.meaning) for e in LEGEND if e.key not in CATEGORIES]
              + [(f"terrain:{t}", TERRAIN_NAMES[t]) for t in terrain],
              [(color, f"{_side(team)}: {n} units") for team, color, n in teams]]
    if unplaced:
        groups[-1].append(("marker", f"{unplaced} label(s) left out: no room"))
    placed, y = [], 4 * k - row
    for items in groups:
        x, y = 6 * k, y + row
        for key, text in items:
            w = 2 * r + 5 + measure.textlength(text, font=font)
            if x + w > width - 4 and x > 6 * k:
                x, y = 6 * k, y + row
            placed.append((key, text, x, y))
            x += w + gap
    band = Image.new("RGB", (width, round(y + row + 4 * k)), (22, 24, 30))
    draw = ImageDraw.Draw(band)
    for key, text, x, y in placed:
        _legend_symbol(draw, key, x + r, y + row / 2 - 1, r, k)
        draw.text((x + 2 * r + 5, y + row / 2 - 1), text, font=font, fill=(225, 225, 225), anchor="lm")
    return band


def render_frame(snap: Snapshot, width: int = 640, caption: str = "",
                 viewer: int | None = None) -> tuple[Image.Image, tuple[int, int, int, int]]:
    """A picture of the whole map for people and for visual review, and the map's pixel box in it.

    Top band: the clock and `caption` (e.g. the event the frame shows), else the title. Middle: the map at the
    map's own aspect ratio (no letterbox), glyphs by class in team colours, health bars on damaged
    units, marker rings and area outlines with labels placed by frame_layout. Bottom band: a legend
    of every symbol the map can show, the terrain kinds on it and the team colours with their unit counts."""
    layout = frame_layout(snap, width, viewer)
    scale, mw, mh, k = layout.scale, layout.map_w, layout.map_h, layout.k
    img = _map_layer(snap, scale, mw, mh, k)
    if viewer is not None and viewer in snap.visible:
        hidden = Image.fromarray(np.where(snap.visible[viewer], 0, 255).astype(np.uint8), "L").resize((mw, mh), Image.NEAREST)
        img = Image.composite(Image.eval(img, lambda v: int(v * FOG_DARKEN)), img, hidden)
    draw = ImageDraw.Draw(img)
    keep = _visible_units(snap, viewer)
    _draw_shapes(img, draw, snap.shapes, scale, 0, 0, k, labels=False)
    _draw_markers(img, draw, snap.markers, scale, 0, 0, k, labels=False)
    _draw_units(draw, snap, keep, scale, 0, 0, min_scale=FRAME_GLYPH_SCALE * k, always_hp=False)
    _draw_placed_labels(img, layout.labels, k)
    font = _font(max(MIN_CAPTION_PX, round(14 * k)))
    head_h = round(max(MIN_CAPTION_PX + 10, 24 * k))
    counts = {int(t): int(n) for t, n in zip(*np.unique(snap.team[keep].astype(int), return_counts=True))}
    teams = tuple((t, "#%02x%02x%02x" % team_color(snap, t), counts.get(t, 0))
                  for t in sorted(set(snap.team_colors) | set(counts)))
    legend = _legend_band(mw, k, teams, _terrain_kinds(snap.terrain), layout.unplaced)
    out = Image.new("RGB", (mw, head_h + mh + legend.height), (22, 24, 30))
    out.paste(img, (0, head_h))
    out.paste(legend, (0, head_h + mh))
    head = ImageDraw.Draw(out)
    clock = _clock(snap.time) + "  "
    x0, mid = 6 * k, head_h / 2
    head.text((x0, mid), clock, font=font, fill=(240, 240, 240), anchor="lm")
    text = caption or snap.title
    x = x0 + head.textlength(clock, font=font)
    while len(text) > 4 and x + head.textlength(text, font=font) > mw - 6:
        text = text[:-2] + "…"
    head.text((x, mid), text, font=font, fill=(255, 214, 90) if caption else (200, 200, 200), anchor="lm")
    return out, (0, head_h, mw, head_h + mh)


def _terrain_kinds(terrain: np.ndarray) -> tuple[int, ...]:
    key = ("kinds", _digest(terrain))
    if key not in _bases:
        _bases.put(key, tuple(int(t) for t in np.unique(np.minimum(terrain, BRIDGE)) if int(t) in TERRAIN_NAMES))
    return _bases[key]


def save_frames(images: Sequence[Image.Image | Snapshot], directory: str | Path, prefix: str = "frame") -> list[Path]:
    """Write `prefix_0000.png`, ... into `directory` (created if needed). Snapshots are rendered
    with render_minimap first. Returns the paths in order."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, item in enumerate(images):
        img = render_minimap(item) if isinstance(item, Snapshot) else item
        path = out / f"{prefix}_{i:04d}.png"
        img.save(path, format="PNG", optimize=False)
        paths.append(path)
    return paths


def save_gif(images: Sequence[Image.Image], path: str | Path | BinaryIO, fps: float = 4,
             durations_ms: Sequence[int] | None = None) -> Path | BinaryIO:
    """Animated GIF replay (loops forever). One adaptive palette, built from up to 8 frames
    spread over the replay, is shared by all frames so colours do not flicker. `durations_ms`
    (one per image) overrides `fps`. `path` may be an open binary file.
    Note: GIF encoders merge consecutive identical frames."""
    frames = [img.convert("RGB") for img in images]
    if not frames:
        raise ValueError("save_gif needs at least one image")
    w, h = frames[0].size
    picks = frames[:: max(1, len(frames) // 8)][:8]
    montage = Image.new("RGB", (w, h * len(picks)))
    for i, f in enumerate(picks):
        montage.paste(f.resize((w, h)) if f.size != (w, h) else f, (0, i * h))
    palette = montage.quantize(colors=255, method=Image.Quantize.MEDIANCUT)
    paletted = [
        (f if f.size == (w, h) else f.resize((w, h))).quantize(palette=palette, dither=Image.Dither.NONE)
        for f in frames
    ]
    out = path if hasattr(path, "write") else Path(path)
    if isinstance(out, Path):
        out.parent.mkdir(parents=True, exist_ok=True)
    duration = [max(20, int(d)) for d in durations_ms] if durations_ms else max(20, round(1000 / fps))
    paletted[0].save(out, format="GIF", save_all=True, append_images=paletted[1:], duration=duration, loop=0,
                     optimize=True)
    return out


# --- synthetic scenes (benchmark, tests, docs) -----------------------------------------------------
def synthetic_snapshot(width: int = 128, height: int = 128, units: int = 200, teams: int = 4,
                       seed: int = 0, fog_for: int | None = None) -> Snapshot:
    """A plausible scene on a generated map: each team's units clustered around its corner,
    random categories and health, a few markers. With `fog_for`, that team sees only the tiles
    within 12 tiles of its own units."""
    from engine.maps import deposits_array, terrain_array
    from engine.mapgen import generate
    from engine.schema.level import MapGenParams

    rng = np.random.default_rng(seed)
    m = generate(MapGenParams(width=width, height=height, seed=seed, deposits=24, cliff_density=0.1, water_density=0.08))
    terrain = terrain_array(m)
    corners = [(0.2, 0.2), (0.8, 0.8), (0.8, 0.2), (0.2, 0.8)]
    team = np.arange(units) % teams
    centre = np.array([corners[t % 4] for t in team]) * [width, height]
    pos = centre + rng.normal(0, min(width, height) * 0.08, (units, 2))
    pos = np.clip(pos, 1, [width - 1, height - 1])
    category = rng.choice(len(CATEGORIES), size=units, p=[0.02, 0.35, 0.25, 0.1, 0.1, 0.1, 0.08])
    sizes = np.array([0.7, 0.45, 0.6, 0.5, 0.8, 0.9, 2.0])[category]
    visible = {}
    if fog_for is not None:
        yy, xx = np.mgrid[0:height, 0:width] + 0.5
        own = pos[team == fog_for]
        seen = np.zeros((height, width), dtype=bool)
        for x, y in own:
            seen |= (xx - x) ** 2 + (yy - y) ** 2 <= 144
        visible[fog_for] = seen
    return Snapshot(
        time=754.0,
        terrain=terrain,
        deposits=deposits_array(m),
        ids=np.arange(units),
        x=pos[:, 0],
        y=pos[:, 1],
        team=team,
        category=category,
        hp_frac=np.where(rng.random(units) < 0.4, rng.random(units), 1.0),
        size=sizes,
        under_construction=rng.random(units) < 0.05,
        team_colors={t: TEAM_PALETTE[t] for t in range(teams)},
        markers=(Marker(width / 2, height / 2, "objective"), Marker(width * 0.2, height * 0.8, "wave 3", "#ff5555")),
        visible=visible,
        title="synthetic benchmark",
    )


def bench_screenshot(repeats: int = 30) -> float:
    """Median milliseconds of render_minimap (512 px, no fog) for a 128x128 map with 200 units,
    after one warm-up render that fills the terrain cache."""
    snap = synthetic_snapshot()
    render_minimap(snap)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        render_minimap(snap)
        times.append((time.perf_counter() - t0) * 1000)
    return float(np.median(times))
