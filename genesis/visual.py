"""Visual review of the reference run's frames.

`review_frames` picks the frames to judge (regular instants and every key event, each with its
caption, from frames/frames.json) and `review_context` says what a VLM needs besides the pictures:
how the game ended, its duration, the caption of each frame and the legend of the glyphs.
Offline, `review` judges what the frames can honestly show from their pixels, inside each frame's
map area only (the caption and legend bands would otherwise always show the team colours and a
changing clock). With a VLM configured the analyst sends the same frames and context to the model
instead (agents/analyst.py); the report says which of the two judged.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from engine.render import LEGEND
from engine.replay import Replay
from engine.replay_media import FRAME_INDEX, MIN_FRAMES
from genesis.quantities import clock

JUDGE = "offline pixel checker"
MAX_REVIEW_FRAMES = 16
GLYPH_LEGEND = "; ".join(f"{e.shape} = {e.meaning}" for e in LEGEND) + "; the legend band also shows the terrain kinds"


@dataclass
class ReviewFrame:
    path: str
    t: float
    caption: str
    kinds: list[str]
    map_box: tuple[int, int, int, int] | None = None


def review_frames(frames_dir: str | Path, limit: int = MAX_REVIEW_FRAMES) -> list[ReviewFrame]:
    """The frames to review, in time order: every event frame and evenly spread regular ones up to
    `limit` (the first and the last always). Without an index, every PNG with no caption."""
    folder = Path(frames_dir)
    try:
        index = json.loads((folder / FRAME_INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        index = None
    if not isinstance(index, list):
        return [ReviewFrame(str(p), 0.0, "", []) for p in sorted(folder.glob("*.png"))]
    frames = [ReviewFrame(str(folder / e["file"]), float(e["t"]), str(e.get("caption", "")), list(e.get("kinds", [])),
                          tuple(e["map_box"]) if e.get("map_box") else None) for e in index if (folder / e["file"]).exists()]
    if len(frames) <= limit:
        return frames
    last = len(frames) - 1
    events = [i for i, f in enumerate(frames) if set(f.kinds) - {"regular"} and 0 < i < last]
    room = limit - 2
    if len(events) > room:      # more events than room: spread over the game, never only its opening
        events = sorted({events[round(k * (len(events) - 1) / max(1, room - 1))] for k in range(room)})
    keep = {0, last, *events}
    rest = [i for i in range(len(frames)) if i not in keep]
    spare = limit - len(keep)
    if spare > 0 and rest:
        keep |= {rest[round(k * (len(rest) - 1) / max(1, spare - 1))] for k in range(spare)}
    return [frames[i] for i in sorted(keep)]


def review_context(frames: list[ReviewFrame], replay: Replay | None) -> dict:
    """What the VLM prompt states besides the pictures."""
    ctx = {"frames": [{"n": i + 1, "time": clock(f.t), "caption": f.caption or "regular interval"}
                      for i, f in enumerate(frames)], "legend": GLYPH_LEGEND, "min_frames": MIN_FRAMES}
    if replay is not None:
        if frames and frames[0].map_box:
            ctx["map"] = {"width": replay.width, "height": replay.height, "box": list(frames[0].map_box)}
        ctx.update(end_reason=replay.end.reason or replay.end.ended_by, ended_by=replay.end.ended_by,
                   duration=clock(replay.end.duration), winners=replay.end.winners, losers=replay.end.losers,
                   teams=[{"id": t.id, "name": t.name, "color": t.color, "role": "player" if t.player else "other"}
                          for t in replay.teams])
    return ctx


def _rgb(hex_color: str) -> np.ndarray:
    h = hex_color.lstrip("#")
    return np.array([int(h[i:i + 2], 16) for i in (0, 2, 4)], dtype=np.int16)


def _mask(img: np.ndarray, color: str, tol: int = 24) -> np.ndarray:
    """Pixels within `tol` of `color` on every channel (compared as bounds: no widened copy of the image)."""
    rgb = _rgb(color)
    mask = np.ones(img.shape[:2], dtype=bool)
    for c in range(3):
        channel = img[..., c]
        mask &= (channel >= max(0, int(rgb[c]) - tol)) & (channel <= min(255, int(rgb[c]) + tol))
    return mask


def _map_area(frame: ReviewFrame) -> np.ndarray:
    img = np.asarray(Image.open(frame.path).convert("RGB"))
    if frame.map_box:
        x0, y0, x1, y1 = frame.map_box
        img = img[y0:y1, x0:x1]
    return img


def review(frames: list[ReviewFrame], team_colors: dict[int, str], player: int = 0, fronts: int | None = None):
    from genesis.models import VisualVerdict

    obs, problems = [], []
    frames = [f for f in frames if Path(f.path).exists()]
    if len(frames) < 2:
        return VisualVerdict(playable=False, aligned=False, observations=[], problems=["fewer than 2 frames rendered"],
                             judged_by=JUDGE)
    imgs = [_map_area(f) for f in frames]
    blank = [i for i, im in enumerate(imgs) if im.std() < 5]
    if blank:
        problems.append(f"{len(blank)} frame(s) are blank")
    diffs = [float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean()) for a, b in zip(imgs, imgs[1:])]
    if max(diffs, default=0) < 0.05:
        problems.append("nothing changes between frames: no unit moves")
    else:
        obs.append(f"frames change over time (max mean pixel change {max(diffs):.2f})")
    masks = {team: [_mask(im, color) for im in imgs] for team, color in team_colors.items()}
    present = {team: [int(m.sum()) for m in team_masks] for team, team_masks in masks.items()}
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
    quiet_waves = [f for i, f in enumerate(frames) if "wave" in f.kinds and enemies
                   and not any(present[t][i] for t in enemies)]
    if quiet_waves:
        aligned = False
        problems.append("no enemy unit visible in the frame of " + ", ".join(
            f"{clock(f.t)} ({f.caption})" for f in quiet_waves[:3]))
    if fronts and fronts > 1 and enemies:
        h, w = imgs[0].shape[:2]
        sectors = set()
        for i in range(len(imgs)):
            for t in enemies:
                ys, xs = np.nonzero(masks[t][i])
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
