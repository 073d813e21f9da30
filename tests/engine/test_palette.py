"""Team colours stay visible on every terrain colour the renderer draws, and apart from each other."""
from pathlib import Path

import numpy as np
import pytest

from engine import Simulation, load_level
from engine.palette import (ENVIRONMENT_COLOR, MIN_TEAM_CONTRAST, MIN_TERRAIN_CONTRAST, TEAM_PALETTE, TERRAIN_RGB,
                            assign_team_colors, color_distance, delta_e, hex_rgb, srgb_to_lab, terrain_colors_drawn,
                            terrain_contrast)
from engine.render import _terrain_colors, render_frame
from engine.snapshot import WATER

LEVEL = Path(__file__).resolve().parents[2] / "kb" / "levels" / "MFD" / "level.json"


def test_ciede2000_matches_published_pairs():
    # Sharma, Wu and Dalal's test data, pairs 1, 7 and 17 (L*a*b* in, ΔE00 out)
    pairs = [((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
             ((50, 0, 0), (50, -1, 2), 2.3669),
             ((50, 2.5, 0), (73, 25, -18), 27.1492)]
    for a, b, expected in pairs:
        assert delta_e(np.array(a), np.array(b)) == pytest.approx(expected, abs=1e-4)
    assert srgb_to_lab(np.array([255, 255, 255])) == pytest.approx([100, 0, 0], abs=0.01)


def test_every_team_colour_against_every_terrain_colour():
    terrain = srgb_to_lab(np.array(terrain_colors_drawn()))
    for color in (*TEAM_PALETTE, ENVIRONMENT_COLOR):
        distances = delta_e(srgb_to_lab(np.array(hex_rgb(color)))[None], terrain)
        worst = terrain_colors_drawn()[int(distances.argmin())]
        assert distances.min() >= MIN_TERRAIN_CONTRAST, f"{color} is {distances.min():.1f} from terrain {worst}"
    assert terrain_contrast("#3b82f6") < MIN_TERRAIN_CONTRAST     # the old player blue vanished near water


def test_terrain_colours_checked_are_the_ones_drawn():
    terrain = np.add.outer(np.arange(24), np.arange(24)) % 4      # every kind beside every other kind
    drawn = {tuple(c) for c in _terrain_colors(terrain.astype(np.uint8)).reshape(-1, 3).tolist()}
    assert len(drawn) > 20 and drawn <= set(terrain_colors_drawn())


def test_the_first_eight_teams_look_unlike_each_other_and_the_environment():
    first = [*TEAM_PALETTE[:8], ENVIRONMENT_COLOR]
    for i, a in enumerate(first):
        for b in first[i + 1:]:
            assert color_distance(a, b) >= MIN_TEAM_CONTRAST, (a, b)


def test_a_level_colour_that_blends_into_the_terrain_is_made_paler_keeping_its_hue():
    water_blue, own = "#3b82f6", "#ffffff"
    paler, kept, third = assign_team_colors([water_blue, own, None])
    r, g, b = hex_rgb(paler)
    assert b > r and b > g and paler != water_blue          # still a blue, lighter
    assert terrain_contrast(paler) >= MIN_TERRAIN_CONTRAST and kept == own and third in TEAM_PALETTE
    # red, blue and green asked by name stay red, blue and green
    red, blue, green = assign_team_colors(["#ff3030", "#3060ff", "#30c030"])
    assert red == "#ff3030" and max(hex_rgb(blue)) == hex_rgb(blue)[2] and max(hex_rgb(green)) == hex_rgb(green)[1]
    level = load_level(LEVEL)
    level.config.teams[0].color = water_blue
    colors = Simulation(level, seed=0, policies={}).snapshot().team_colors
    assert colors[0] == paler and all(terrain_contrast(c) >= MIN_TERRAIN_CONTRAST for c in colors.values())


def test_the_players_units_stand_out_from_the_water_in_a_frame():
    snap = Simulation(load_level(LEVEL), seed=0, policies={}).snapshot()
    img, (x0, y0, x1, y1) = render_frame(snap, width=640)
    pixels = np.asarray(img)[y0:y1, x0:x1].reshape(-1, 3)
    player = np.array(hex_rgb(snap.team_colors[0]))
    water = np.array(TERRAIN_RGB[WATER])
    assert (np.abs(pixels - player).max(axis=1) == 0).sum() > 50          # the player's glyphs are drawn
    assert float(delta_e(srgb_to_lab(player), srgb_to_lab(water))) >= MIN_TERRAIN_CONTRAST
