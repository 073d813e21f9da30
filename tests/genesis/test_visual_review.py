"""The visual review: which frames are judged, what the VLM prompt states beside them, and the
offline pixel checker, which must pass a real run and fail frames that show nothing."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine import Simulation, load_level
from engine.agent.policies import make_policy
from engine.palette import TEAM_PALETTE
from engine.render import render_frame
from engine.replay import Replay, ReplayCursor, ReplayRecorder
from engine.replay_media import MIN_FRAMES, write_frames
from genesis.agents.analyst import Analyst
from genesis.checks.context import CheckContext
from genesis.checks.level_checks import visual
from genesis.models import VisualVerdict
from genesis.visual import GLYPH_LEGEND, ReviewFrame, review, review_context, review_frames

LEVEL = Path(__file__).resolve().parents[2] / "kb" / "levels" / "MFD" / "level.json"   # waves from north, east, south
COLORS = dict(enumerate(TEAM_PALETTE[:2]))      # the level sets no colours: the default palette


@pytest.fixture(scope="module")
def replay() -> Replay:
    sim = Simulation(load_level(LEVEL), seed=0, policies={0: make_policy("reference", team=0, seed=0)})
    rec = ReplayRecorder(sim)
    while not sim.done:
        rec.observe(sim)
        sim.step(15)
    return rec.finish(sim, sim.run())


@pytest.fixture(scope="module")
def frames_dir(replay, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("frames")
    write_frames(replay, folder)
    return folder


def test_review_frames_keep_every_event_and_the_ends(frames_dir, replay):
    frames = review_frames(frames_dir)
    assert len(frames) >= MIN_FRAMES and all(f.map_box for f in frames)
    assert [f.t for f in frames] == sorted(f.t for f in frames)
    waves = [f for f in frames if "wave" in f.kinds]
    assert len(waves) == 3 and all("arrival" in f.caption for f in waves)
    few = review_frames(frames_dir, limit=9)
    assert len(few) == 9 and few[0].t == 0 and "end" in few[-1].kinds
    assert {f.t for f in frames if set(f.kinds) - {"regular"}} <= {f.t for f in few}
    # more events than room: the events kept spread over the whole game and the end is always there
    tight = review_frames(frames_dir, limit=4)
    events = [f for f in frames if set(f.kinds) - {"regular", "end"} and f.t > 0]
    assert len(tight) == 4 and tight[0].t == 0 and "end" in tight[-1].kinds
    assert tight[2].t == max(f.t for f in events if f.t < tight[-1].t)


def test_vlm_prompt_states_end_duration_legend_and_captions(frames_dir, replay):
    frames = review_frames(frames_dir)
    seen = {}

    def complete(role, skill, prompt, output_model, *, stage, inputs, images=None):
        seen.update(prompt=prompt, images=images, role=role)
        return VisualVerdict(playable=True, aligned=True, observations=["three waves seen"])

    client = SimpleNamespace(complete=complete, config=SimpleNamespace(for_role=lambda r: SimpleNamespace(model="openai/vlm")))
    verdict = Analyst(client).visual_review("defend three fronts", "Keep the storages alive.", [f.path for f in frames],
                                            context=review_context(frames, replay))
    prompt = seen["prompt"]
    assert verdict.judged_by == "VLM openai/vlm" and seen["role"] == "vlm" and len(seen["images"]) == len(frames)
    assert "ended after 3:20" in prompt and replay.end.reason in prompt
    assert GLYPH_LEGEND in prompt and "T1 " in prompt and COLORS[1] in prompt
    for n, f in enumerate(frames, 1):
        assert f"{n}. " in prompt
    wave = next(f for f in frames if f.caption.startswith("T1 arrival 1"))
    assert re.search(r"\d+:\d\d — T1 arrival 1: \d+ units in the \w+", prompt)
    assert wave.caption in prompt


def test_pixel_checker_passes_a_real_run(frames_dir):
    v = review(review_frames(frames_dir), COLORS, player=0, fronts=3)
    assert v.playable and v.aligned, v.problems
    # the waves' three fronts (and their neighbour sectors), plus the raiders' Bot Lab in the west
    assert any(re.search(r"\b[4-5] compass sector", o) for o in v.observations), v.observations


def _frames(replay: Replay, folder: Path, edit) -> list[ReviewFrame]:
    """Frames of the same instants as the real ones, with each snapshot changed by `edit`."""
    cursor = ReplayCursor(replay)
    out = []
    for n, t in enumerate((0.0, 20.0, 60.0, 90.0)):
        snap = edit(cursor.snapshot(cursor.index_at(t)), t)
        img, box = render_frame(snap, width=320, caption="wave 1: 6 T1 units from the north" if t == 20 else "")
        path = folder / f"frame_{n}.png"
        img.save(path)
        out.append(ReviewFrame(str(path), t, "", ["wave"] if t == 20 else ["regular"], box))
    return out


def _without_enemies(snap):
    keep = snap.team != 1
    return dataclasses.replace(snap, ids=snap.ids[keep], x=snap.x[keep], y=snap.y[keep], team=snap.team[keep],
                               category=snap.category[keep], hp_frac=snap.hp_frac[keep], size=snap.size[keep],
                               under_construction=snap.under_construction[keep])


def test_pixel_checker_fails_frames_where_nothing_moves(replay, tmp_path):
    """The clock and caption change in every frame and the legend always shows both team colours:
    the checker must judge the map, not the bands around it (the first frame without the raiders'
    Bot Lab, so no enemy is on the map)."""
    first = _without_enemies(ReplayCursor(replay).snapshot(0))
    frozen = _frames(replay, tmp_path, lambda s, t: dataclasses.replace(first, time=t))
    v = review(frozen, COLORS, player=0)
    assert not v.playable and any("nothing changes" in p for p in v.problems)
    assert any("no enemy unit is ever visible" in p for p in v.problems)


def test_pixel_checker_fails_a_wave_frame_without_enemies(replay, tmp_path):
    v = review(_frames(replay, tmp_path, lambda snap, t: _without_enemies(snap) if t == 20 else snap), COLORS, player=0)
    assert not v.aligned and any("no enemy unit visible in the frame of 0:20" in p for p in v.problems)


def test_visual_check_reports_problems_to_the_pm_even_when_passing():
    ctx = CheckContext(gdd=None, level={}, level_path=Path("level.json"))
    ctx.visual = VisualVerdict(playable=True, aligned=True, observations=["waves arrive"], problems=["wave 2 is late"],
                               judged_by="VLM x")
    ok, reason = visual(ctx)
    assert ok and "problem: wave 2 is late" in reason and "waves arrive" in reason
    ctx.visual = VisualVerdict(playable=False, aligned=False, observations=[], problems=["units invisible"], judged_by="VLM x")
    assert visual(ctx) == (False, "VLM x: problem: units invisible")


def test_the_pipeline_sends_the_vlm_every_event_frame_with_its_context(replay, tmp_path):
    from genesis.pipeline.nodes import Nodes

    write_frames(replay, tmp_path / "frames")
    (tmp_path / "replay.json").write_text(replay.model_dump_json())
    seen = {}

    def complete(role, skill, prompt, output_model, *, stage, inputs, images=None):
        seen.update(prompt=prompt, images=images)
        return VisualVerdict(playable=True, aligned=True, observations=[])

    config = SimpleNamespace(for_role=lambda r: SimpleNamespace(model="openai/vlm"))
    client = SimpleNamespace(complete=complete, config=config, backend_name=lambda r: "openai/vlm")
    nodes = Nodes(SimpleNamespace(out_dir=tmp_path, client=client, analyst=Analyst(client)))
    verdict = nodes._visual({"query": "defend three fronts", "level": {"description": "Hold."}},
                            SimpleNamespace(agent_description="Hold."), None)
    assert verdict.judged_by == "VLM openai/vlm"
    assert MIN_FRAMES <= len(seen["images"]) <= 16
    assert "ended after 3:20" in seen["prompt"] and re.search(r"T1 arrival 3: \d+ units in the \w+", seen["prompt"])
