"""Frames and GIFs from a Replay: which instants to show, with what caption, rendered by render_frame.

Frames (for people and for visual review) are taken at regular intervals plus at every key event
(wave arrival, contact, objective lost, end), at least MIN_FRAMES for any game that lasts that many
samples. The GIF adds frames every GIF_DENSE_S game seconds around each key event, so an attack
is seen arriving and being fought, and shrinks itself until it fits GIF_MAX_BYTES.
"""
from __future__ import annotations

import bisect

import io
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from engine.render import render_frame, save_gif
from engine.replay import Replay, ReplayCursor

MIN_FRAMES = 8
REGULAR_FRAMES = 10
GIF_DENSE_S = 4.0            # seconds between GIF frames around an event (at least one every 5 s)
GIF_SPARSE_S = 10.0          # elsewhere
GIF_BEFORE_S, GIF_AFTER_S = 4.0, 16.0
GIF_MAX_BYTES = 3_000_000
GIF_MAX_FRAMES = 240
GIF_WIDTH = 720              # captions and legend at >= 16 / 12 px, readable without zooming
GIF_MIN_WIDTH = 640          # a GIF over budget drops frames rather than shrink below this
FRAME_INDEX = "frames.json"


@dataclass
class FramePick:
    t: float
    caption: str
    kinds: list[str]


def duration(replay: Replay) -> float:
    return replay.end.duration or (replay.frames[-1].t if replay.frames else 0.0)


def _event_captions(replay: Replay) -> dict[float, list]:
    by_t: dict[float, list] = {}
    for e in replay.key_events():
        by_t.setdefault(e.t, []).append(e)
    return by_t


def frame_picks(replay: Replay, regular: int = REGULAR_FRAMES) -> list[FramePick]:
    """Regular instants over the game plus each key event; one pick per sample, captions merged."""
    cursor_times = [f.t for f in replay.frames]
    if not cursor_times:
        return []
    end = duration(replay)
    n = max(regular, MIN_FRAMES)
    wanted: dict[int, FramePick] = {}

    def pick(t: float, caption: str, kind: str) -> None:
        # an event's frame is the first sample at or after it: one before would not show it yet
        i = _nearest(cursor_times, t) if kind == "regular" else _at_or_after(cursor_times, t)
        p = wanted.setdefault(i, FramePick(t=cursor_times[i], caption="", kinds=[]))
        if caption and caption not in p.caption:
            p.caption = f"{p.caption}; {caption}" if p.caption else caption
        if kind not in p.kinds:
            p.kinds.append(kind)

    for k in range(n):
        pick(end * k / (n - 1), "", "regular")
    for t, events in _event_captions(replay).items():
        for e in events:
            pick(t, e.label, e.kind)
    return [wanted[i] for i in sorted(wanted)]


def _nearest(times: list[float], t: float) -> int:
    return min(range(len(times)), key=lambda i: (abs(times[i] - t), i))


def _at_or_after(times: list[float], t: float) -> int:
    return min(bisect.bisect_left(times, t - 1e-6), len(times) - 1)


def gif_times(replay: Replay) -> list[float]:
    """Every GIF_SPARSE_S seconds, every GIF_DENSE_S seconds from GIF_BEFORE_S before to GIF_AFTER_S
    after each key event, and the end."""
    end = duration(replay)
    times = {round(k * GIF_SPARSE_S, 2) for k in range(int(end // GIF_SPARSE_S) + 1)}
    for e in replay.key_events():
        t = max(0.0, e.t - GIF_BEFORE_S)
        while t <= min(end, e.t + GIF_AFTER_S):
            times.add(round(t, 2))
            t += GIF_DENSE_S
        times.add(round(e.t, 2))
    times.add(round(end, 2))
    return sorted(times)


def gif_caption(replay: Replay, t: float, window: float = GIF_AFTER_S) -> str:
    """The latest key event within `window` seconds before t (the event the viewer is watching)."""
    recent = [e for e in replay.key_events() if e.t <= t + 1e-6 and t - e.t <= window]
    return recent[-1].label if recent else ""


def write_frames(replay: Replay, directory: str | Path, width: int = 640) -> list[dict]:
    """Render the picks to `directory/frame_SSSS.png` (the last one `frame_SSSS_end.png`) and an
    index `frames.json` with each file's time, caption, event kinds and the map's pixel box."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    cursor = ReplayCursor(replay)
    picks = frame_picks(replay)
    index, used = [], set()
    for n, p in enumerate(picks):
        seconds = int(p.t)
        while seconds in used:     # two samples in one second keep distinct names
            seconds += 1
        used.add(seconds)
        img, box = render_frame(cursor.snapshot(cursor.index_at(p.t)), width=width, caption=p.caption)
        name = f"frame_{seconds:04d}{'_end' if n == len(picks) - 1 else ''}.png"
        buf = io.BytesIO()
        img.save(buf, format="PNG", compress_level=3)
        _write_atomic(out / name, buf.getvalue())
        index.append({"file": name, **asdict(p), "map_box": list(box)})
    _write_atomic(out / FRAME_INDEX, json.dumps(index, indent=1).encode("utf-8"))
    return index


def _write_atomic(path: Path, data: bytes) -> None:
    """A reader never sees a half-written file: write beside it, then rename over it."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def gif_bytes(replay: Replay, width: int = GIF_WIDTH, max_bytes: int = GIF_MAX_BYTES) -> bytes:
    """The replay GIF, dense around events; narrower (down to GIF_MIN_WIDTH), then every other frame
    of the quiet stretches and then of all, until it fits max_bytes."""
    cursor = ReplayCursor(replay)
    times = gif_times(replay)
    if len(times) > GIF_MAX_FRAMES:
        times = times[:: -(-len(times) // GIF_MAX_FRAMES)] + [times[-1]]
    dense = set()
    for e in replay.key_events():
        dense |= {t for t in times if e.t - GIF_BEFORE_S <= t <= e.t + GIF_AFTER_S}
    sparse = [t for i, t in enumerate(times) if t in dense or i % 2 == 0 or t == times[-1]]
    tries = [(w, times) for w in dict.fromkeys((width, min(width, GIF_MIN_WIDTH)))]
    tries += [(min(width, GIF_MIN_WIDTH), sparse), (min(width, GIF_MIN_WIDTH), sparse[::2] + sparse[-1:])]
    for w, picked in tries:
        frames = [render_frame(cursor.snapshot(cursor.index_at(t)), width=w, caption=gif_caption(replay, t))[0]
                  for t in picked]
        buf = io.BytesIO()
        save_gif(frames, buf, durations_ms=[350 if t in dense else 600 for t in picked])
        if buf.tell() <= max_bytes:
            break
    return buf.getvalue()


def write_gif(replay: Replay, path: str | Path, width: int = GIF_WIDTH, max_bytes: int = GIF_MAX_BYTES) -> Path:
    """`gif_bytes` written atomically to `path`."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    _write_atomic(out, gif_bytes(replay, width, max_bytes))
    return out
