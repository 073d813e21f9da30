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
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

import numpy as np
from PIL import Image, ImageColor, ImageDraw, ImageFont

from engine.snapshot import BRIDGE, CATEGORIES, CLIFF, ENVIRONMENT, GROUND, WATER, Marker, Shape, Snapshot

TERRAIN_RGB = {GROUND: (92, 116, 64), WATER: (38, 76, 128), CLIFF: (96, 88, 80), BRIDGE: (150, 118, 78)}
RIM_RGB = {GROUND: (92, 116, 64), WATER: (62, 108, 158), CLIFF: (128, 118, 104), BRIDGE: (168, 136, 92)}
OUTSIDE_RGB = (14, 16, 20)
DEPOSIT_FILL, DEPOSIT_EDGE = (206, 210, 224), (36, 38, 48)
DEFAULT_TEAM_COLORS = ("#3b82f6", "#ef4444", "#22c55e", "#eab308", "#a855f7", "#06b6d4", "#f97316", "#ec4899")
FOG_DARKEN = 0.38  # brightness of tiles the viewer cannot see

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
    jitter = ((xx * 73856093) ^ (yy * 19349663)) % 13 - 6  # deterministic per-tile texture
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
        px, py = ox + x * scale, oy + y * scale
        draw.ellipse((px - radius, py - radius, px + radius, py + radius), fill=DEPOSIT_FILL, outline=DEPOSIT_EDGE)


# --- glyphs --------------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(8, size))


@lru_cache(maxsize=None)
def _rgb(color: str) -> tuple[int, int, int]:
    return ImageColor.getrgb(color)[:3]


def team_color(snap: Snapshot, team: int) -> tuple[int, int, int]:
    """The team's colour from the snapshot, or the default palette entry for its id."""
    color = snap.team_colors.get(team) or DEFAULT_TEAM_COLORS[team % len(DEFAULT_TEAM_COLORS)]
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
    edge = (16, 18, 22)
    bar_h = max(2, round(2 * min_scale))
    for px, py, rad, cat, team, hp, constructing in zip(xs, ys, radii, cats, teams, hps, building):
        category = CATEGORIES[cat]
        r = round(max(rad, _MIN_RADIUS[category] * min_scale) * 2) / 2
        color = team_color(snap, team)
        kind, pts = _shape(category, r)
        width = max(1, round(min_scale))
        fill, outline = (None, color) if constructing else (color, edge)
        if constructing:
            width += 1
        if kind == "ellipse":
            draw.ellipse((px + pts[0], py + pts[1], px + pts[2], py + pts[3]), fill=fill, outline=outline, width=width)
        else:
            draw.polygon([(px + dx, py + dy) for dx, dy in pts], fill=fill, outline=outline, width=width)
        if category == "commander" and not constructing:
            draw.polygon([(px + dx, py + dy) for dx, dy in pts], outline=(255, 255, 255), width=1)
        elif category == "factory" and not constructing and r >= 5:
            c = r * 0.35
            draw.rectangle((px - c, py - c, px + c, py + c), fill=edge)
        elif category == "economy" and not constructing:
            c = max(1.0, r * 0.25)
            draw.rectangle((px - c, py - c, px + c, py + c), fill=(235, 235, 220))
        if always_hp or hp < 0.999:
            half = max(3.0, r)
            top = py - r - bar_h - 2
            draw.rectangle((px - half, top, px + half, top + bar_h), fill=(20, 20, 20))
            draw.rectangle((px - half, top, px - half + 2 * half * max(0.0, min(1.0, hp)), top + bar_h), fill=_hp_color(hp))


_LAYER_BY_CODE = np.array([3, 2, 2, 4, 1, 0, 0])  # economy/factory below, defense, ground units, commander, air on top


def _layer(category: np.ndarray) -> np.ndarray:
    return _LAYER_BY_CODE[np.asarray(category, dtype=int)]


def _visible_units(snap: Snapshot, viewer: int | None) -> np.ndarray:
    """Mask of units to draw: with fog for `viewer`, enemy units on hidden tiles are left out."""
    keep = np.ones(len(snap.ids), dtype=bool)
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


def _draw_shapes(img: Image.Image, draw: ImageDraw.ImageDraw, shapes: Iterable[Shape], scale: float,
                 ox: float, oy: float, k: float) -> None:
    """Rules' areas as outlines under the units, each labelled at its top-left corner."""
    font = _font(round(11 * k))
    for s in shapes:
        color = _rgb(s.color)
        box = (ox + (s.x - s.half_w) * scale, oy + (s.y - s.half_h) * scale,
               ox + (s.x + s.half_w) * scale, oy + (s.y + s.half_h) * scale)
        width = max(2, round(2 * k))
        if s.kind == "circle":
            draw.ellipse(box, outline=color, width=width)
        else:
            draw.rectangle(box, outline=color, width=width)
        if s.label:
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
LEGEND_GLYPHS = (("commander", "commander"), ("bot", "bot (ground)"), ("vehicle", "vehicle (ground)"),
                 ("air", "air"), ("defense", "defense"), ("factory", "building"))
FRAME_GLYPH_SCALE = 1.4   # frames are looked at whole, so glyphs are drawn larger than on the minimap
LABEL_PAD = 3


def _boxes_overlap(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_label(box_w: float, box_h: float, px: float, py: float, r: float, bounds: tuple[float, float, float, float],
                taken: list[tuple], obstacles: np.ndarray | None = None) -> tuple[float, float, float, float]:
    """The first label box beside the point (right, left, then stepping up and down) that lies inside
    `bounds`, overlaps no box in `taken` and, where possible, no (N, 4) obstacle box (the units);
    when none is free, the first candidate. Candidates are moved inside `bounds` when they fit."""
    right, left = px + r + 4, px - r - 4 - box_w
    steps = [0.0]
    for n in range(1, 7):
        steps += [n * (box_h + 2), -n * (box_h + 2)]
    candidates = [(x, py - box_h / 2 + dy) for dy in steps for x in (right, left)]

    def clamp(x: float, y: float) -> tuple[float, float, float, float]:
        x = min(max(x, bounds[0]), max(bounds[0], bounds[2] - box_w))
        y = min(max(y, bounds[1]), max(bounds[1], bounds[3] - box_h))
        return (x, y, x + box_w, y + box_h)

    boxes = [clamp(x, y) for x, y in candidates]
    o = obstacles if obstacles is not None and len(obstacles) else None
    first_free = None
    for b in boxes:
        if any(_boxes_overlap(b, t) for t in taken):
            continue
        if o is None or not ((o[:, 0] < b[2]) & (b[0] < o[:, 2]) & (o[:, 1] < b[3]) & (b[1] < o[:, 3])).any():
            return b
        first_free = first_free or b
    return first_free or boxes[0]


def _frame_size(snap: Snapshot, width: int) -> tuple[float, int, int]:
    """(pixels per tile, map width px, map height px): the map fills `width`, or `width` is its
    height when the map is taller than wide."""
    scale = width / max(snap.width, snap.height)
    return scale, max(1, round(snap.width * scale)), max(1, round(snap.height * scale))


def _map_layer(snap: Snapshot, scale: float, mw: int, mh: int) -> Image.Image:
    key = ("frame", _digest(snap.terrain), _digest(snap.deposits), mw, mh)
    if key not in _bases:
        img = Image.fromarray(_terrain_colors(snap.terrain), "RGB").resize((mw, mh), Image.NEAREST)
        _draw_deposits(ImageDraw.Draw(img), snap.deposits, scale, 0, 0, radius=max(2.2, 0.4 * scale))
        _bases.put(key, img)
    return _bases[key].copy()


def _draw_placed_labels(img: Image.Image, markers: Sequence[Marker], scale: float, k: float, taken: list[tuple],
                        obstacles: np.ndarray) -> None:
    draw = ImageDraw.Draw(img, "RGBA")
    font = _font(round(12 * k))
    r = max(4.0, 6 * k)
    bounds = (0.0, 0.0, float(img.width), float(img.height))
    for m in markers:
        if not m.label:
            continue
        px, py = m.x * scale, m.y * scale
        left, top, right, bottom = draw.textbbox((0, 0), m.label, font=font)
        box = place_label(right - left + 2 * LABEL_PAD, bottom - top + 2 * LABEL_PAD, px, py, r, bounds, taken, obstacles)
        taken.append(box)
        color = _rgb(m.color)
        nx, ny = min(max(px, box[0]), box[2]), min(max(py, box[1]), box[3])
        if abs(nx - px) + abs(ny - py) > r + 6:   # a leader line ties a displaced label to its ring
            draw.line((px, py, nx, ny), fill=color, width=1)
        draw.rectangle(box, fill=(8, 10, 14, 190))
        draw.text((box[0] + LABEL_PAD - left, box[1] + LABEL_PAD - top), m.label, font=font, fill=color)


@lru_cache(maxsize=64)
def _legend_band(width: int, k: float, teams: tuple[tuple[int, tuple[int, int, int], int], ...]) -> Image.Image:
    """Glyphs by class (neutral grey, so they never read as a team), then the team swatches
    (team, colour, unit count); items wrap onto further rows when the frame is narrow. Cached:
    the counts change only when units are created or destroyed."""
    font = _font(round(12 * k))
    row, r, gap = round(18 * k), 6 * k, 14 * k
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    colors = {team: color for team, color, _ in teams}
    items = [("glyph", category, text) for category, text in LEGEND_GLYPHS]
    items += [("team", team, f"{_side(team)}: {n} units") for team, _, n in teams]
    placed, x, y = [], 6 * k, 4 * k
    for kind, key, text in items:
        w = 2 * r + 5 + measure.textlength(text, font=font)
        if x + w > width - 4 and x > 6 * k:
            x, y = 6 * k, y + row
        placed.append((kind, key, text, x, y))
        x += w + gap
    band = Image.new("RGB", (width, round(y + row + 4 * k)), (22, 24, 30))
    draw = ImageDraw.Draw(band)
    for kind, key, text, x, y in placed:
        cx, cy = x + r, y + row / 2 - 1
        if kind == "glyph":
            shape, pts = _shape(key, r)
            if shape == "ellipse":
                draw.ellipse((cx + pts[0], cy + pts[1], cx + pts[2], cy + pts[3]), fill=(205, 205, 205), outline=(0, 0, 0))
            else:
                draw.polygon([(cx + dx, cy + dy) for dx, dy in pts], fill=(205, 205, 205), outline=(0, 0, 0))
        else:
            draw.rectangle((cx - r, cy - r, cx + r, cy + r), fill=colors[key], outline=(0, 0, 0))
        draw.text((x + 2 * r + 5, y + 2 * k), text, font=font, fill=(225, 225, 225))
    return band


def render_frame(snap: Snapshot, width: int = 640, caption: str = "",
                 viewer: int | None = None) -> tuple[Image.Image, tuple[int, int, int, int]]:
    """A picture of the whole map for people and for visual review, and the map's pixel box in it.

    Top band: the clock and `caption` (e.g. the event the frame shows), else the title. Middle: the map at the
    map's own aspect ratio (no letterbox), glyphs by class in team colours, health bars on damaged
    units, marker rings with labels placed inside the map without overlap. Bottom band: the glyph
    legend and the team colours with their unit counts."""
    scale, mw, mh = _frame_size(snap, width)
    k = max(mw, mh) / 512
    img = _map_layer(snap, scale, mw, mh)
    if viewer is not None and viewer in snap.visible:
        hidden = Image.fromarray(np.where(snap.visible[viewer], 0, 255).astype(np.uint8), "L").resize((mw, mh), Image.NEAREST)
        img = Image.composite(Image.eval(img, lambda v: int(v * FOG_DARKEN)), img, hidden)
    draw = ImageDraw.Draw(img)
    keep = _visible_units(snap, viewer)
    _draw_shapes(img, draw, snap.shapes, scale, 0, 0, k)
    _draw_markers(img, draw, snap.markers, scale, 0, 0, k, labels=False)
    _draw_units(draw, snap, keep, scale, 0, 0, min_scale=FRAME_GLYPH_SCALE * k, always_hp=False)
    r = max(4.0, 6 * k)
    taken = [(m.x * scale - r, m.y * scale - r, m.x * scale + r, m.y * scale + r) for m in snap.markers]
    ux, uy = snap.x[keep] * scale, snap.y[keep] * scale
    ur = np.maximum(snap.size[keep] * scale, 4.0 * FRAME_GLYPH_SCALE * k) + 3   # glyph plus its health bar
    _draw_placed_labels(img, snap.markers, scale, k, taken, np.column_stack([ux - ur, uy - ur, ux + ur, uy + ur]))
    font = _font(round(14 * k))
    head_h = round(24 * k)
    counts = {int(t): int(n) for t, n in zip(*np.unique(snap.team[keep].astype(int), return_counts=True))}
    legend = _legend_band(mw, k, tuple((t, team_color(snap, t), counts.get(t, 0))
                                        for t in sorted(set(snap.team_colors) | set(counts))))
    out = Image.new("RGB", (mw, head_h + mh + legend.height), (22, 24, 30))
    out.paste(img, (0, head_h))
    out.paste(legend, (0, head_h + mh))
    head = ImageDraw.Draw(out)
    clock = _clock(snap.time) + "  "
    head.text((6 * k, 4 * k), clock, font=font, fill=(240, 240, 240))
    text = caption or snap.title
    x = 6 * k + head.textlength(clock, font=font)
    while len(text) > 4 and x + head.textlength(text, font=font) > mw - 6:
        text = text[:-2] + "…"
    head.text((x, 4 * k), text, font=font, fill=(255, 214, 90) if caption else (200, 200, 200))
    return out, (0, head_h, mw, head_h + mh)


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
        team_colors={t: DEFAULT_TEAM_COLORS[t] for t in range(teams)},
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
