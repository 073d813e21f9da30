"""The interactive replay in report.html and in the pages `genesis play` writes: built from a real
validation run of the MFD reference level, and driven in headless Chromium like a user would."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from browser import AVAILABLE, Browser
from engine.palette import TERRAIN_RGB, hex_rgb
from engine.replay import Replay, ReplayMarker
from engine.snapshot import WATER
from genesis.play import play
from genesis.report import load_scenario, write_report
from genesis.report.replay_widget import render_replay_page
from genesis.simulate import SimJob, run_job
from test_report import make_scenario

needs_chromium = pytest.mark.skipif(not AVAILABLE, reason="needs chromium (apt-get install chromium) and websocket-client")


@pytest.fixture(scope="module")
def scenario(tmp_path_factory) -> Path:
    """A scenario folder whose frames, GIF and replay come from the reference run, as `genesis new` makes them."""
    folder = make_scenario(tmp_path_factory.mktemp("replay") / "scenario", playable=True)
    for old in (folder / "frames").glob("*.png"):
        old.unlink()
    run = run_job(SimJob(str(folder / "level.json"), 0, "reference", frames_dir=str(folder / "frames"),
                         gif_path=str(folder / "replay.gif"), replay_path=str(folder / "replay.json")))
    assert run.ok and len(run.frames) >= 8, run.error
    write_report(folder)
    return folder


def test_report_embeds_the_replay_and_captions_the_frames(scenario):
    html = (scenario / "report.html").read_text()
    data = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S).group(1)
    replay = Replay.model_validate_json(data)
    assert [e.kind for e in replay.key_events()].count("wave") == 3
    assert 'class="rp-play"' in html and 'class="rp-slider"' in html and "<canvas" in html
    assert "src=" not in html.split('id="replay"')[1].split("</script>")[0]       # nothing loaded from elsewhere
    s = load_scenario(scenario)
    assert any(f.caption.startswith("T1 arrival 1") for f in s.frames) and s.frames[-1].caption.startswith("end")
    first_wave = next(f.caption for f in s.frames if f.caption.startswith("T1 arrival 1"))
    assert re.match(r"T1 arrival 1: \d+ units in the \w+", first_wave), first_wave
    assert first_wave in html                                                         # a frame strip caption


def test_replay_data_cannot_close_its_script_element(scenario):
    replay = Replay.model_validate_json((scenario / "replay.json").read_text())
    replay.markers.append(ReplayMarker(t=0, x=1, y=1, label="</script><script>alert(1)</script>", color="#ffffff"))
    page = render_replay_page(replay, "hostile label")
    assert page.count("</script>") == 3 and "alert(1)" in page             # data, palette and viewer scripts only


def _canvas_hash(b: Browser) -> str:
    return hashlib.sha256(b.eval("document.querySelector('#replay canvas').toDataURL()").encode()).hexdigest()


def _assert_not_blank(path: Path) -> None:
    pixels = np.asarray(Image.open(path).convert("RGB")).reshape(-1, 3)
    assert len(np.unique(pixels[::53], axis=0)) > 50, "the screenshot is (nearly) blank"


@needs_chromium
def test_chromium_plays_scrubs_and_inspects_the_replay(scenario, tmp_path):
    b = Browser((scenario / "report.html").resolve().as_uri(), tmp_path / "profile", width=1280, height=1500)
    try:
        b.wait_for("document.getElementById('replay')?.dataset.ready === '1'")
        kinds = b.eval("[...document.querySelectorAll('#replay .rp-marker')].map(m => m.dataset.kind)")
        assert kinds.count("wave") == 3 and "contact" in kinds and "end" in kinds and "death" in kinds
        start = _canvas_hash(b)
        b.eval("const s = document.querySelector('#replay .rp-speed'); s.value = '16'; s.dispatchEvent(new Event('change'))")
        b.click("#replay .rp-play")
        b.wait_for("Number(document.querySelector('#replay canvas').dataset.t) > 30")
        b.click("#replay .rp-play")                                                 # pause
        assert b.eval("document.querySelector('#replay .rp-play').textContent") == "Play"
        played = _canvas_hash(b)
        assert played != start
        b.click('#replay .rp-marker[data-kind="wave"][data-n="2"]')
        wave2 = [e for e in json.loads((scenario / "replay.json").read_text())["events"] if e["kind"] == "wave"][1]
        assert float(b.eval("document.querySelector('#replay canvas').dataset.t")) == pytest.approx(wave2["t"], abs=0.1)
        assert b.eval("document.querySelector('#replay .rp-caption').textContent").startswith("T1 arrival 2")
        assert _canvas_hash(b) not in (start, played)
        # click the first metal storage: the panel names its type and hp
        xy = b.eval("""(() => { const R = JSON.parse(document.getElementById('replay-data').textContent);
            const u = R.units.find(u => u.type === 'metal_storage'), f = R.frames[0].u;
            const k = f.findIndex((v, i) => i % 5 === 0 && v === u.id);
            const c = document.querySelector('#replay canvas'); c.scrollIntoView({block: 'center'});
            const r = c.getBoundingClientRect();
            return [r.left + f[k + 1] / R.quant * r.width / R.width, r.top + f[k + 2] / R.quant * r.height / R.height]; })()""")
        for kind in ("mousePressed", "mouseReleased"):
            b.send("Input.dispatchMouseEvent", type=kind, x=xy[0], y=xy[1], button="left", clickCount=1)
        info = b.wait_for("document.querySelector('#replay .rp-info').textContent.includes('metal_storage') && "
                          "document.querySelector('#replay .rp-info').textContent")
        assert re.search(r"hp \d+ / \d+", info), info
        shot = b.screenshot(tmp_path / "replay.png")
        _assert_not_blank(shot)
    finally:
        b.close()


@needs_chromium
def test_genesis_play_writes_a_replay_page_per_seed(scenario, tmp_path):
    outcome = play(scenario, "reference", seeds=2, out=tmp_path / "play")
    assert [p.name for p in outcome.replay_pages] == ["seed0.html", "seed1.html"]
    assert json.loads(outcome.metrics_path.read_text())["replays"] == [str(p) for p in outcome.replay_pages]
    b = Browser(outcome.replay_pages[1].resolve().as_uri(), tmp_path / "profile", width=1100, height=1000)
    try:
        b.wait_for("document.getElementById('replay')?.dataset.ready === '1'")
        assert "seed 1" in b.eval("document.title")
        before = _canvas_hash(b)
        b.click("#replay .rp-marker.rp-end")
        assert _canvas_hash(b) != before
        _assert_not_blank(b.screenshot(tmp_path / "play.png"))
    finally:
        b.close()


def _count(pixels: np.ndarray, rgb) -> int:
    return int((pixels == np.array(rgb)).all(axis=-1).sum())


@needs_chromium
def test_chromium_shows_the_pictures_full_size_and_a_frame_as_drawn(scenario, tmp_path):
    """A person's look: the map picture and the GIF are not shrunk in the report, the widget's
    legend names the deposits and the terrain, and a frame opened on its own shows the player's
    units and the legend exactly as rendered."""
    player = hex_rgb(Replay.model_validate_json((scenario / "replay.json").read_text()).teams[0].color)
    b = Browser((scenario / "report.html").resolve().as_uri(), tmp_path / "profile", width=1400, height=2400)
    try:
        b.wait_for("(document.body.dataset.images || '').startsWith('ok')")
        sizes = b.eval("[...document.querySelectorAll('.pictures img')].map(i => [i.naturalWidth, i.clientWidth])")
        assert len(sizes) == 2 and all(natural >= 640 and shown == natural for natural, shown in sizes), sizes
        legend = b.eval("document.querySelector('#replay .rp-legend').textContent")
        assert "metal deposit" in legend and "water" in legend and "under construction" in legend
        b.eval("document.querySelector('.pictures').scrollIntoView()")
        page = np.asarray(Image.open(b.screenshot(tmp_path / "report.png")).convert("RGB"))
        assert _count(page, player) > 30                    # the map picture's player units, unscaled
        frame = sorted((scenario / "frames").glob("frame_*.png"))[2]
        b.send("Page.navigate", url=frame.resolve().as_uri())
        b.wait_for("document.readyState === 'complete' && document.images.length === 1 && document.images[0].complete")
        shot = np.asarray(Image.open(b.screenshot(tmp_path / "frame.png")).convert("RGB"))
    finally:
        b.close()
    drawn = np.asarray(Image.open(frame).convert("RGB"))
    for rgb in (player, TERRAIN_RGB[WATER], (22, 24, 30)):    # units, the water swatch, the caption and legend bands
        assert _count(drawn, rgb) > 0 and _count(shot, rgb) >= _count(drawn, rgb), rgb


@needs_chromium
def test_the_widgets_labels_never_overlap(scenario, tmp_path):
    replay = Replay.model_validate_json((scenario / "replay.json").read_text())
    for n in range(30):        # thirty labelled markers within two tiles of each other
        replay.markers.append(ReplayMarker(t=0, x=30 + n % 5 * 0.4, y=30 + n // 5 * 0.4, label=f"checkpoint {n}", color="#ffd700"))
    page = tmp_path / "crowded.html"
    page.write_text(render_replay_page(replay, "crowded"))
    b = Browser(page.resolve().as_uri(), tmp_path / "profile", width=1280, height=1200)
    try:
        b.wait_for("document.getElementById('replay')?.dataset.ready === '1'")
        boxes = json.loads(b.eval("document.querySelector('#replay canvas').dataset.labels"))
    finally:
        b.close()
    assert len(boxes) >= 25
    for i, a in enumerate(boxes):
        assert not any(a[0] < c[2] and c[0] < a[2] and a[1] < c[3] and c[1] < a[3] for c in boxes[i + 1:]), a
