"""Rendering: right sizes, units in team colours where they stand, fog, markers, frames and GIFs."""
import numpy as np
from PIL import Image

from engine.render import (
    bench_screenshot,
    render_camera,
    render_minimap,
    save_frames,
    save_gif,
    synthetic_snapshot,
)
from engine.snapshot import CATEGORIES, GROUND, WATER, Marker, Snapshot

BLUE, RED = (40, 90, 250), (250, 40, 40)


def scene(**overrides):
    terrain = np.full((32, 32), GROUND, dtype=np.uint8)
    terrain[:, 28:] = WATER
    # unit 0: team 0 bot at (8, 8); unit 1: team 1 vehicle at (20, 24); unit 2: team 1 factory at (24, 8)
    fields = dict(
        time=125.0, terrain=terrain, deposits=np.array([[4.5, 27.5]]),
        ids=np.array([1, 2, 3]), x=np.array([8.0, 20.0, 24.0]), y=np.array([8.0, 24.0, 8.0]),
        team=np.array([0, 1, 1]),
        category=np.array([CATEGORIES.index("bot"), CATEGORIES.index("vehicle"), CATEGORIES.index("factory")]),
        hp_frac=np.array([1.0, 0.5, 1.0]), size=np.array([0.45, 0.6, 2.0]),
        under_construction=np.array([False, False, False]),
        team_colors={0: "#285afa", 1: "#fa2828"}, title="test",
    )
    fields.update(overrides)
    return Snapshot(**fields)


def px(img, x_tile, y_tile, size=512, tiles=32):
    s = size / tiles
    return img.getpixel((int(x_tile * s), int(y_tile * s)))


def test_minimap_size_and_team_colours():
    img = render_minimap(scene())
    assert img.size == (512, 512) and img.mode == "RGB"
    assert px(img, 8, 8) == BLUE
    assert px(img, 20, 24) == RED
    # the factory glyph has a dark core and team-coloured rim
    assert px(img, 24, 8)[0] < 60 and px(img, 24 + 1.2, 8) == RED
    assert render_minimap(scene(), size=256).size == (256, 256)


def test_terrain_and_deposits_drawn():
    img = render_minimap(scene())
    ground, water = px(img, 14, 16), px(img, 30, 16)
    assert ground[1] > ground[2] and water[2] > water[0] + 40
    assert max(px(img, 4.5, 27.5)) < 60 and min(px(img, 4.5 + 0.38, 27.5)) > 180  # a deposit: light ring, dark core


def test_non_square_map_is_letterboxed():
    snap = scene(terrain=np.zeros((16, 32), dtype=np.uint8), y=np.array([8.0, 12.0, 8.0]))
    img = render_minimap(snap)
    assert img.size == (512, 512)
    assert img.getpixel((8 * 16, 128 + 8 * 16)) == BLUE
    assert max(img.getpixel((300, 500))) < 40


def test_fog_darkens_hidden_tiles_and_hides_enemies():
    visible = np.zeros((32, 32), dtype=bool)
    visible[:, :16] = True  # team 0 sees the left half
    snap = scene(visible={0: visible})
    clear, fogged = render_minimap(snap), render_minimap(snap, viewer=0)
    assert fogged.getpixel((100, 300)) == clear.getpixel((100, 300))  # visible ground unchanged
    dark, bright = fogged.getpixel((14 * 16 + 4 * 16, 300)), clear.getpixel((14 * 16 + 4 * 16, 300))
    assert sum(dark) < 0.5 * sum(bright)
    assert px(fogged, 8, 8) == BLUE           # own unit still drawn
    assert px(fogged, 20, 24) != RED          # enemy in the dark is hidden
    visible[24, 20] = True
    assert px(render_minimap(scene(visible={0: visible}), viewer=0), 20, 24) == RED


def test_markers_drawn_with_colour():
    marker = Marker(16.0, 16.0, "hold here", "#00ff00")
    img = np.asarray(render_minimap(scene(markers=(marker,))))
    ring = img[16 * 16 - 14:16 * 16 + 14, 16 * 16 - 14:16 * 16 + 14]
    assert ((ring[..., 1] == 255) & (ring[..., 0] == 0)).sum() > 20
    label = img[16 * 16 - 12:16 * 16 + 12, 16 * 16 + 12:16 * 16 + 90]
    greenish = (label[..., 1] > 150) & (label[..., 0] < 100) & (label[..., 2] < 100)
    assert greenish.sum() > 10  # label text in the marker colour (anti-aliased)


def test_clock_panel_changes_with_time():
    a = np.asarray(render_minimap(scene(time=5.0)))[:30, :120]
    b = np.asarray(render_minimap(scene(time=65.0)))[:30, :120]
    assert (a != b).any()


def test_camera_view_zooms_on_units():
    img = render_camera(scene(), 8.0, 8.0, tiles=16, size=384)
    assert img.size == (384, 384)
    assert img.getpixel((192, 192)) == BLUE
    # the bot's glyph is larger in the camera than on the minimap
    row = np.asarray(img)[192]
    assert (np.all(row == BLUE, axis=1)).sum() > 10
    # looking past the map edge draws the outside dark
    edge = render_camera(scene(), 0.0, 0.0, tiles=16, size=384)
    assert max(edge.getpixel((20, 380))) < 40 and edge.size == (384, 384)


def test_save_frames_and_gif(tmp_path):
    snaps = [scene(time=float(t), x=np.array([4.0 + 3 * t, 20.0, 24.0])) for t in range(5)]
    images = [render_minimap(s, size=128) for s in snaps]
    paths = save_frames(images, tmp_path / "frames")
    assert [p.name for p in paths] == [f"frame_{i:04d}.png" for i in range(5)]
    assert Image.open(paths[2]).size == (128, 128)
    assert len(save_frames(snaps[:2], tmp_path / "direct", prefix="shot")) == 2
    gif = save_gif(images, tmp_path / "replay.gif", fps=5)
    with Image.open(gif) as g:
        assert g.n_frames == 5
        assert g.info["duration"] == 200


def test_synthetic_bench_runs():
    snap = synthetic_snapshot(units=200, fog_for=0)
    assert len(snap.ids) == 200 and 0 in snap.visible
    assert render_minimap(snap, viewer=0).size == (512, 512)
    assert bench_screenshot(repeats=2) > 0
