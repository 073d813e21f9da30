"""Frames for people: labels never cover each other, and the legend explains every symbol drawn."""
import dataclasses
from pathlib import Path

import numpy as np

from engine import Simulation, load_level
from engine.palette import TERRAIN_RGB, hex_rgb
from engine.render import LEGEND, frame_layout, render_frame, synthetic_snapshot
from engine.snapshot import CATEGORIES, Marker, Shape

LEVEL = Path(__file__).resolve().parents[2] / "kb" / "levels" / "MFD" / "level.json"


def crowded():
    """The MFD level at the start with 40 labelled markers packed around one point and six
    labelled areas on top of each other, as a busy rule script could leave it."""
    snap = Simulation(load_level(LEVEL), seed=0, policies={}).snapshot()
    rng = np.random.default_rng(1)
    cx, cy = snap.width * 0.3, snap.height * 0.4
    markers = tuple(Marker(float(cx + dx), float(cy + dy), f"checkpoint {n}: hold until wave {n % 3 + 1}")
                    for n, (dx, dy) in enumerate(rng.normal(0, 3, (40, 2))))
    shapes = tuple(Shape(id=n, kind="rect" if n % 2 else "circle", x=cx + n, y=cy - n, half_w=8, half_h=6,
                         label=f"zone {n}", color="#ff9f1c") for n in range(6))
    return dataclasses.replace(snap, markers=markers, shapes=shapes)


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_no_two_labels_of_a_crowded_level_intersect():
    snap = crowded()
    layout = frame_layout(snap, width=640)
    boxes = [lab.box for lab in layout.labels]
    assert len(boxes) + layout.unplaced == 46 and len(boxes) >= 30
    for i, a in enumerate(boxes):
        assert 0 <= a[0] and 0 <= a[1] and a[2] <= layout.map_w and a[3] <= layout.map_h
        assert not any(_overlap(a, b) for b in boxes[i + 1:]), a
    r = max(4.0, 6 * layout.k)
    rings = [(m.x * layout.scale - r, m.y * layout.scale - r, m.x * layout.scale + r, m.y * layout.scale + r)
             for m in snap.markers]
    assert not any(_overlap(a, ring) for a in boxes for ring in rings)
    img, (x0, y0, _, _) = render_frame(snap, width=640)
    pixels = np.asarray(img).astype(int)
    for b in boxes:    # each label's dark panel is on the picture, not painted over by anything else
        corner = pixels[y0 + int(b[1]) + 1, x0 + int(b[0]) + 1]
        assert corner.max() < 70, (b, corner)


def test_the_legend_names_every_glyph_the_renderer_draws():
    keys = {e.key for e in LEGEND}
    assert set(CATEGORIES) | {"constructing", "health", "deposit", "marker", "area"} <= keys
    assert len({e.shape for e in LEGEND}) == len(LEGEND) and all(e.meaning for e in LEGEND)


def test_the_legend_band_shows_the_terrain_on_the_map_and_every_team():
    snap = synthetic_snapshot(width=96, height=80, units=120, teams=3)
    img, (_, _, _, bottom) = render_frame(snap, width=640)
    legend = {tuple(c) for c in np.asarray(img)[bottom:].reshape(-1, 3).tolist()}
    present = set(np.unique(snap.terrain).tolist())
    for kind, rgb in TERRAIN_RGB.items():
        assert (rgb in legend) == (kind in present), (kind, rgb)
    for color in snap.team_colors.values():
        assert hex_rgb(color) in legend
