"""Offline visual review: what the rendered frames can honestly show, read from their pixels.

With a VLM configured the analyst sends the same frames to the model instead (agents/analyst.py);
the report says which of the two judged.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from PIL import Image

JUDGE = "offline pixel checker"


def _rgb(hex_color: str) -> np.ndarray:
    h = hex_color.lstrip("#")
    return np.array([int(h[i:i + 2], 16) for i in (0, 2, 4)], dtype=np.int16)


def _mask(img: np.ndarray, color: str, tol: int = 24) -> np.ndarray:
    return (np.abs(img[..., :3].astype(np.int16) - _rgb(color)).max(axis=-1) <= tol)


def review(frames: list[str], team_colors: dict[int, str], player: int = 0, fronts: int | None = None):
    from genesis.models import VisualVerdict

    obs, problems = [], []
    if len(frames) < 2:
        return VisualVerdict(playable=False, aligned=False, observations=[], problems=["fewer than 2 frames rendered"],
                             judged_by=JUDGE)
    imgs = [np.asarray(Image.open(f).convert("RGB")) for f in frames if Path(f).exists()]
    blank = [i for i, im in enumerate(imgs) if im.std() < 5]
    if blank:
        problems.append(f"{len(blank)} frame(s) are blank")
    diffs = [float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean()) for a, b in zip(imgs, imgs[1:])]
    if max(diffs, default=0) < 0.05:
        problems.append("nothing changes between frames: no unit moves")
    else:
        obs.append(f"frames change over time (max mean pixel change {max(diffs):.2f})")
    present = {}
    for team, color in team_colors.items():
        counts = [int(_mask(im, color).sum()) for im in imgs]
        present[team] = counts
    if sum(present.get(player, [0])[:1]) == 0:
        problems.append("the player's units are not visible in the first frame")
    else:
        obs.append(f"player units visible at the start ({present[player][0]} px)")
    enemies = [t for t in present if t != player]
    if enemies and not any(max(present[t]) > 0 for t in enemies):
        problems.append("no enemy unit is ever visible")
    elif enemies:
        obs.append("enemy units appear in " + str(sum(any(present[t][i] > 0 for t in enemies) for i in range(len(imgs))))
                   + f" of {len(imgs)} frames")
    aligned = True
    if fronts and fronts > 1 and enemies:
        h, w = imgs[0].shape[:2]
        sectors = set()
        for im in imgs:
            for t in enemies:
                ys, xs = np.nonzero(_mask(im, team_colors[t]))
                for x, y in zip(xs[::25], ys[::25]):
                    ang = math.atan2(y - h / 2, x - w / 2)
                    sectors.add(int(round(ang / (math.pi / 4))) % 8)
        obs.append(f"enemy colour seen in {len(sectors)} compass sector(s) of the map")
        if len(sectors) < min(fronts, 2):
            aligned = False
            problems.append(f"enemies seen in {len(sectors)} sector(s), the request asks for {fronts} fronts")
    playable = not blank and not any("not visible" in p or "nothing changes" in p for p in problems)
    return VisualVerdict(playable=playable, aligned=aligned and playable, observations=obs, problems=problems,
                         judged_by=JUDGE)
