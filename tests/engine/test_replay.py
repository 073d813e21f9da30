"""The replay recording and what is made from it: key events, decoded states, frames and the GIF."""
from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from engine import Simulation, load_level
from engine.agent.policies import make_policy
from engine.render import place_label, render_frame
from engine.replay import QUANT, Replay, ReplayCursor, ReplayRecorder, terrain_codes
from engine.replay_media import (FRAME_INDEX, GIF_AFTER_S, GIF_BEFORE_S, GIF_MAX_BYTES, GIF_MIN_WIDTH, GIF_WIDTH,
                                 MIN_FRAMES, frame_picks, gif_bytes, gif_caption, gif_times, write_frames, write_gif)

LEVEL = Path(__file__).resolve().parents[2] / "kb" / "levels" / "MFD" / "level.json"   # three waves, three storages


def record(policy: str, until: float | None = None) -> tuple[Replay, Simulation, list]:
    sim = Simulation(load_level(LEVEL), seed=0, policies={0: make_policy(policy, team=0, seed=0)} if policy != "idle" else {})
    rec = ReplayRecorder(sim)
    snaps = []
    while not sim.done and (until is None or sim.time < until):
        if sim.time + 1e-9 >= rec.next_t:
            snaps.append(sim.snapshot())
        rec.observe(sim)
        sim.step(15)
    return rec.finish(sim, sim.run() if until is None else None), sim, snaps


@pytest.fixture(scope="module")
def defended() -> Replay:
    return record("reference")[0]


@pytest.fixture(scope="module")
def lost() -> Replay:
    return record("idle")[0]


def test_key_events_of_a_defended_game(defended):
    kinds = [e.kind for e in defended.key_events()]
    assert kinds.count("wave") == 3 and "objective_lost" not in kinds and kinds[-1] == "end"
    waves = [e for e in defended.events if e.kind == "wave"]
    times = [e.t for e in waves]
    assert times == sorted(times) and len(set(round(t) for t in times)) == 3      # staggered
    assert sorted(e.label.rsplit(" ", 1)[-1] for e in waves) == ["east", "north", "south"]   # the three fronts
    contacts = [e for e in defended.events if e.kind == "contact"]
    assert contacts[0].label == "first contact" and all(w.t < c.t < w.t + 20 for w, c in zip(waves, contacts))
    assert defended.end.winners == [0] and defended.end.duration == 200.0


def test_an_objective_loss_is_an_event(lost):
    lost_events = [e for e in lost.events if e.kind == "objective_lost"]
    assert len(lost_events) == 1 and "metal_storage" in lost_events[0].label
    assert any(e.kind == "death" and e.t == lost_events[0].t for e in lost.events)


def test_decoded_states_match_the_simulation():
    replay, _, snaps = record("reference", until=40)
    cursor = ReplayCursor(replay)
    assert len(cursor.states) == len(replay.frames) >= len(snaps)
    for i in (0, 10, 25, len(snaps) - 1):
        snap, back = snaps[i], cursor.snapshot(i)
        assert back.time == pytest.approx(snap.time, abs=0.01)
        assert back.ids.tolist() == snap.ids.tolist()
        assert np.abs(back.x - snap.x).max() <= 0.5 / QUANT + 1e-9
        assert np.abs(back.hp_frac - snap.hp_frac).max() <= 0.005 + 1e-9
    assert (terrain_codes(replay) == snaps[0].terrain).all()


def test_the_recording_is_compact(defended):
    text = defended.model_dump_json(exclude_none=True)
    assert len(text) < 60_000                        # 200 s, 26 units, a sample a second
    moved_only = sum(len(f.u) for f in defended.frames) / 5
    assert moved_only < 0.6 * len(defended.frames) * len(defended.units)   # static units are not repeated
    assert Replay.model_validate_json(text) == defended


def test_frames_at_regular_times_and_at_every_key_event(defended, tmp_path):
    index = write_frames(defended, tmp_path)
    assert len(index) >= MIN_FRAMES
    times = [f["t"] for f in index]
    for e in defended.key_events():
        assert any(abs(t - e.t) <= 1.0 and e.label in f["caption"] for t, f in zip(times, index)), e.label
    assert index[-1]["file"].endswith("_end.png") and "end" in index[-1]["kinds"]
    assert json.loads((tmp_path / FRAME_INDEX).read_text()) == index
    img = Image.open(tmp_path / index[0]["file"])
    x0, y0, x1, y1 = index[0]["map_box"]
    assert (x0, x1) == (0, img.width) and y0 > 0 and y1 < img.height     # the map spans the frame: no letterbox
    assert (x1 - x0) / (y1 - y0) == pytest.approx(defended.width / defended.height, rel=0.02)


def test_a_short_game_still_gets_eight_frames(lost):
    assert lost.end.duration < 60 and len(frame_picks(lost)) >= MIN_FRAMES


def test_gif_is_dense_around_events_small_and_captioned(defended, tmp_path):
    times = gif_times(defended)
    for e in defended.key_events():
        near = [t for t in times if e.t - GIF_BEFORE_S <= t <= e.t + GIF_AFTER_S]
        assert len(near) >= 2 and max(np.diff(near)) <= 5.0, e.label     # a frame at least every 5 game seconds
    waves = [e for e in defended.events if e.kind == "wave"]
    later_contact = next(e for e in defended.events if e.kind == "contact" and e.t > waves[1].t)
    assert gif_caption(defended, later_contact.t + 1).startswith("contact")
    assert gif_caption(defended, waves[0].t + 1).startswith("T1 arrival 1")
    path = write_gif(defended, tmp_path / "replay.gif")
    assert path.stat().st_size <= GIF_MAX_BYTES
    with Image.open(path) as gif:
        assert gif.n_frames >= len(times) * 0.9      # the encoder may merge identical frames
        assert gif.width >= GIF_WIDTH and gif.height >= GIF_WIDTH * 0.75
        gif.seek(gif.n_frames // 2)
        top = np.asarray(gif.convert("RGB"))[:60].astype(int)
    # the caption band (dark, above the map) holds light text at least 12 px tall
    band_h = int(np.argmax(np.median(top, axis=1).max(axis=1) > 40))
    text_rows = np.nonzero((top[:band_h].max(axis=2) > 180).any(axis=1))[0]
    assert band_h >= 26 and text_rows.max() - text_rows.min() + 1 >= 12


def test_a_gif_over_budget_drops_frames_but_stays_readable(defended):
    with Image.open(io.BytesIO(gif_bytes(defended, max_bytes=1))) as gif:     # every smaller try is drawn
        assert gif.width == GIF_MIN_WIDTH and gif.n_frames < len(gif_times(defended)) / 2


def test_frame_caption_and_legend_bands(defended):
    cursor = ReplayCursor(defended)
    i = cursor.index_at(20.0)
    plain, box = render_frame(cursor.snapshot(i), width=512)
    captioned, _ = render_frame(cursor.snapshot(i), width=512, caption="wave 1: 6 T1 units from the north")
    a, b = np.asarray(plain), np.asarray(captioned)
    assert (a[:box[1]] != b[:box[1]]).any()                       # the caption is in the top band
    assert (a[box[1]:] == b[box[1]:]).all()                        # and nowhere else
    legend = a[box[3]:]
    assert legend.shape[0] > 20 and (legend > 150).any()          # glyph legend and team swatches


def test_labels_stay_inside_and_apart():
    bounds = (0.0, 0.0, 200.0, 100.0)
    taken: list[tuple] = []
    for _ in range(6):                                              # six labels on one point at the right edge
        box = place_label(60, 12, 195, 50, 5, bounds, taken)
        assert bounds[0] <= box[0] and box[2] <= bounds[2] and bounds[1] <= box[1] and box[3] <= bounds[3]
        assert not any(box[0] < t[2] and t[0] < box[2] and box[1] < t[3] and t[1] < box[3] for t in taken)
        taken.append(box)


def test_labels_avoid_units_when_they_can():
    units = np.array([[105.0, 40.0, 145.0, 60.0], [50.0, 40.0, 70.0, 60.0]])   # glyphs right and left of the point
    box = place_label(30, 12, 100, 50, 5, (0.0, 0.0, 200.0, 100.0), [], units)
    assert not ((units[:, 0] < box[2]) & (box[0] < units[:, 2]) & (units[:, 1] < box[3]) & (box[1] < units[:, 3])).any()
    assert box[0] in (100 + 5 + 4, 100 - 5 - 4 - 30) and box[1] != 44   # beside the point, a row up or down
    crowded = np.array([[0.0, 0.0, 200.0, 100.0]])     # no free spot: the label is still placed, inside
    assert place_label(30, 12, 100, 50, 5, (0.0, 0.0, 200.0, 100.0), [], crowded) == (109, 44, 139, 56)


def test_long_games_are_sampled_less_often():
    level = load_level(LEVEL)
    level.config.switches.time_limit = 1800.0
    assert ReplayRecorder(Simulation(level, seed=0, policies={})).every == 2.0
    assert ReplayRecorder(Simulation(load_level(LEVEL), seed=0, policies={})).every == 1.0
