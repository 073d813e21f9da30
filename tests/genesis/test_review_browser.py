"""The review page in headless Chromium: served by the review server, a reviewer clicks A, presses
keys, and the choices land in review.json on disk; opened from a file, choices stay in the browser
and the page says how to save them."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from browser import AVAILABLE, Browser
from genesis.review.page import write_review
from genesis.review.pairs import collect
from genesis.review.results import read_results
from genesis.review.server import ReviewServer
from test_review import make_folder, media  # noqa: F401  (module fixture)

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="needs chromium (apt-get install chromium) and websocket-client")

KEYS = {"t": ("t", "KeyT", 84), "b": ("b", "KeyB", 66), "ArrowLeft": ("ArrowLeft", "ArrowLeft", 37),
        "ArrowRight": ("ArrowRight", "ArrowRight", 39)}


@pytest.fixture()
def configs(tmp_path, media) -> tuple[Path, Path]:  # noqa: F811
    """Two configuration folders with three paired queries each."""
    for config, playable in (("x", True), ("y", False)):
        for i, q in enumerate(("hold the bridge", "defend two fronts", "escort the convoy"), 1):
            make_folder(tmp_path / "exp" / config / f"b1-q{i}", q, media, playable=playable,
                        evidence=("verified", "verified" if playable else "failed"))
    return tmp_path / "exp" / "x", tmp_path / "exp" / "y"


def press(b: Browser, name: str) -> None:
    key, code, vk = KEYS[name]
    text = {"text": key} if len(key) == 1 else {}
    b.send("Input.dispatchKeyEvent", type="keyDown", key=key, code=code, windowsVirtualKeyCode=vk, **text)
    b.send("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=vk)


def set_reviewer(b: Browser, name: str) -> None:
    b.eval(f"const i = document.getElementById('reviewer'); i.value = {json.dumps(name)}; "
           "i.dispatchEvent(new Event('change'))")


def current(b: Browser) -> int:
    return b.eval("Number(document.querySelector('section.item:not([hidden])').dataset.index)")


def test_reviewer_clicks_and_presses_keys_and_the_choices_reach_disk(configs, tmp_path):
    page, results_file = write_review(collect(*configs), tmp_path / "review" / "review.html")
    with ReviewServer(page) as server:
        b = Browser(server.url, tmp_path / "profile", width=1400, height=1800)
        try:
            b.wait_for("document.body.dataset.ready === '1'")
            assert b.eval("document.getElementById('progress-text').textContent") == "0 / 3 judged"
            b.click(".choose-a")                                        # no reviewer yet: refused, nothing saved
            assert "enter your name" in b.eval("document.getElementById('save-status').textContent")
            assert read_results(results_file).judgements == []
            set_reviewer(b, "ann")
            b.wait_for("document.querySelector('section.item:not([hidden]) iframe.replay')"
                       "?.contentDocument?.getElementById('replay')?.dataset.ready === '1'")
            b.click(".choose-a")
            b.wait_for("document.getElementById('save-status').dataset.saved === '1'")
            assert current(b) == 1                                      # moved on to the next query
            press(b, "t")
            b.wait_for("document.getElementById('save-status').dataset.saved === '2'")
            assert current(b) == 2
            press(b, "ArrowLeft")
            assert current(b) == 1
            assert b.eval("document.querySelector('.choose-tie').classList.contains('selected')")
            press(b, "ArrowRight")
            assert b.eval("document.getElementById('progress-text').textContent") == "2 / 3 judged"
            # a click inside the replay moves the focus into its frame: the keys must still work
            b.click("section.item:not([hidden]) .side-b iframe.replay")
            press(b, "b")
            b.wait_for("document.getElementById('save-status').dataset.saved === '3'")
            shot = b.screenshot(tmp_path / "review.png")
        finally:
            b.close()
    results = read_results(results_file)
    keys = [i.key for i in results.items]
    assert [(j.key, j.choice, j.reviewer, j.kind) for j in results.judgements] == [
        (keys[0], "a", "ann", "human"), (keys[1], "tie", "ann", "human"), (keys[2], "b", "ann", "human")]
    pixels = np.asarray(Image.open(shot).convert("RGB")).reshape(-1, 3)
    assert len(np.unique(pixels[::53], axis=0)) > 50, "the screenshot is (nearly) blank"


def test_choices_survive_a_reload_and_a_file_page_says_how_to_save(configs, tmp_path):
    page, results_file = write_review(collect(*configs), tmp_path / "review" / "review.html")
    b = Browser(page.resolve().as_uri(), tmp_path / "profile", width=1200, height=1000)
    try:
        b.wait_for("document.body.dataset.ready === '1'")
        set_reviewer(b, "bob")
        b.click(".choose-b")
        assert "Download results" in b.eval("document.getElementById('save-status').textContent")
        b.send("Page.reload")
        b.wait_for("document.body.dataset.ready === '1' && document.getElementById('reviewer').value === 'bob'")
        assert b.eval("document.getElementById('progress-text').textContent") == "1 / 3 judged"
        assert current(b) == 1                                          # opens at the first query left to judge
    finally:
        b.close()
    assert read_results(results_file).judgements == []                 # a file page cannot write to disk
