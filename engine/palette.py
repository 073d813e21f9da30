"""The colours of every picture of a game: terrain, deposits and the team colours, with the colour
distance (CIEDE2000) that keeps a team's units visible on any terrain they stand on.

The team palette was picked so that every entry stays at least MIN_TERRAIN_CONTRAST from every
terrain colour the renderer draws (the base colours, their rims, the per-tile jitter and the fog
darkening); a level's own team colour that would blend into the terrain is replaced the same way.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from engine.snapshot import BRIDGE, CLIFF, GROUND, WATER

RGB = tuple[int, int, int]

TERRAIN_NAMES = {GROUND: "ground", WATER: "water", CLIFF: "cliff", BRIDGE: "bridge"}
TERRAIN_RGB: dict[int, RGB] = {GROUND: (92, 116, 64), WATER: (38, 76, 128), CLIFF: (96, 88, 80), BRIDGE: (150, 118, 78)}
RIM_RGB: dict[int, RGB] = {GROUND: (92, 116, 64), WATER: (62, 108, 158), CLIFF: (128, 118, 104), BRIDGE: (168, 136, 92)}
TERRAIN_JITTER = 6            # each tile is shifted by -6..+6 on every channel, a deterministic texture
FOG_DARKEN = 0.38             # brightness of tiles the viewer cannot see
OUTSIDE_RGB: RGB = (14, 16, 20)
DEPOSIT_FILL: RGB = (206, 210, 224)
DEPOSIT_EDGE: RGB = (36, 38, 48)

# Player first (cyan: light and green-shifted, so it never reads as water), then the usual enemy red.
TEAM_PALETTE = ("#00e5ff", "#ff3b3b", "#ffff00", "#b300ff", "#00d982", "#ff8cd1", "#80ff00", "#d91677",
                "#8cffe8", "#c68cff", "#ff19d1", "#ff6685", "#8cd1ff", "#d90041", "#a8d977", "#ffb3ff")
ENVIRONMENT_COLOR = "#f5f5f5"   # neutral units: white, unlike any team and any terrain

MIN_TERRAIN_CONTRAST = 28.0     # CIEDE2000; the old player blue was 10 from the water rim
MIN_TEAM_CONTRAST = 15.0        # between the first eight palette entries and the environment: teams never look alike


def hex_rgb(color: str) -> RGB:
    h = color.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def terrain_colors_drawn() -> list[RGB]:
    """Every terrain colour a picture can show: base and rim colours with each jitter shift, each
    also darkened by fog."""
    out = []
    for rgb in (*TERRAIN_RGB.values(), *RIM_RGB.values()):
        for j in range(-TERRAIN_JITTER, TERRAIN_JITTER + 1):
            lit = tuple(min(255, max(0, v + j)) for v in rgb)
            out += [lit, tuple(int(v * FOG_DARKEN) for v in lit)]
    return out


def srgb_to_lab(rgb: Sequence | np.ndarray) -> np.ndarray:
    """CIE L*a*b* (D65) of sRGB colours given as (..., 3) values in 0..255."""
    c = np.asarray(rgb, dtype=float) / 255.0
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                  [0.0193339, 0.1191920, 0.9503041]])
    xyz = c @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def delta_e(lab1: np.ndarray, lab2: np.ndarray) -> np.ndarray:
    """CIEDE2000 colour difference of L*a*b* colours (broadcasting over the leading axes)."""
    L1, a1, b1 = np.moveaxis(np.asarray(lab1, dtype=float), -1, 0)
    L2, a2, b2 = np.moveaxis(np.asarray(lab2, dtype=float), -1, 0)
    c_bar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_bar ** 7 / (c_bar ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p, h2p = np.degrees(np.arctan2(b1, a1p)) % 360, np.degrees(np.arctan2(b2, a2p)) % 360
    chroma0 = c1p * c2p == 0
    dh = h2p - h1p
    dh = np.where(chroma0, 0.0, np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh)))
    d_lp, d_cp = L2 - L1, c2p - c1p
    d_hp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    l_bar, cp_bar, h_sum = (L1 + L2) / 2, (c1p + c2p) / 2, h1p + h2p
    h_bar = np.where(chroma0, h_sum, np.where(np.abs(h1p - h2p) <= 180, h_sum / 2,
                                              np.where(h_sum < 360, (h_sum + 360) / 2, (h_sum - 360) / 2)))
    t = (1 - 0.17 * np.cos(np.radians(h_bar - 30)) + 0.24 * np.cos(np.radians(2 * h_bar))
         + 0.32 * np.cos(np.radians(3 * h_bar + 6)) - 0.20 * np.cos(np.radians(4 * h_bar - 63)))
    d_theta = 30 * np.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * np.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25.0 ** 7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / np.sqrt(20 + (l_bar - 50) ** 2)
    s_c, s_h = 1 + 0.045 * cp_bar, 1 + 0.015 * cp_bar * t
    r_t = -np.sin(np.radians(2 * d_theta)) * r_c
    return np.sqrt((d_lp / s_l) ** 2 + (d_cp / s_c) ** 2 + (d_hp / s_h) ** 2 + r_t * (d_cp / s_c) * (d_hp / s_h))


_TERRAIN_LAB = srgb_to_lab(np.array(terrain_colors_drawn()))


def terrain_contrast(color: str) -> float:
    """The smallest CIEDE2000 distance from `color` to any terrain colour drawn."""
    return float(delta_e(srgb_to_lab(np.array(hex_rgb(color)))[None], _TERRAIN_LAB).min())


def color_distance(a: str, b: str) -> float:
    return float(delta_e(srgb_to_lab(np.array(hex_rgb(a))), srgb_to_lab(np.array(hex_rgb(b)))))


def _lighter(color: str, share: float) -> str:
    """`color` mixed with white by `share` (0..1): the same hue, paler."""
    return "#" + "".join(f"{round(c + (255 - c) * share):02x}" for c in hex_rgb(color))


def assign_team_colors(requested: Iterable[str | None]) -> list[str]:
    """One colour per team in order: the level's own colour when it stands out from the terrain, else
    the first lighter shade of it that does (a blue team stays blue: a paler blue), else the first
    palette entry that stands out from the colours already given."""
    given: list[str] = []

    def apart(c: str) -> bool:
        return all(color_distance(c, g) >= MIN_TEAM_CONTRAST for g in given)

    for color in requested:
        if color is not None and terrain_contrast(color) < MIN_TERRAIN_CONTRAST:
            color = next((shade for shade in (_lighter(color, k / 10) for k in range(1, 8))
                          if terrain_contrast(shade) >= MIN_TERRAIN_CONTRAST and apart(shade)), None)
        if color is None:
            color = next((c for c in TEAM_PALETTE if apart(c)), TEAM_PALETTE[len(given) % len(TEAM_PALETTE)])
        given.append(color)
    return given
