"""The per-scenario report: built from a scenario folder made of a reference level (MFD) and a
synthetic validation.json, rebuilt by `genesis report`, and rendered by headless Chromium."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import yaml
from PIL import Image
from typer.testing import CliRunner

from engine import Simulation, load_level
from engine.render import render_minimap, save_gif
from genesis.cli import app
from genesis.models import RuleArtifact
from genesis.pipeline.finalize import rule_test_record, write_outputs
from genesis.report import ScenarioFolderError, load_scenario, write_report
from genesis.report.map_picture import SPAWN_COLOR, rule_spawn_uses, write_map_picture
from genesis.workspace import seed_kb, seed_rubrics

SEED_KB = seed_kb()
RULE_DIR = SEED_KB / "rules" / "staggered_waves"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
QUERY = "defend three fronts against staggered raids"


def _rule_artifact() -> dict:
    meta = yaml.safe_load((RULE_DIR / "meta.yaml").read_text())
    tests = yaml.safe_load((RULE_DIR / "test.yaml").read_text())["tests"]
    return {"id": "staggered_waves", "source": (RULE_DIR / "rule.lua").read_text(), "params": {},
            "tests": tests, "meta": meta, "reused_from": "staggered_waves"}


def _test_results(rule: dict) -> list[dict]:
    first, second = rule["tests"][0]["name"], rule["tests"][1]["name"]
    return [{"name": first, "passed": True, "details": ["PASS 6 spawn events"], "error": None,
             "outcome": {"winners": [], "losers": [], "reason": "stopped at 60 s", "ended_by": "until", "duration": 60.0},
             "seconds": 0.4},
            {"name": second, "passed": False, "details": ["FAIL expected 3 spawns, saw 0"], "error": None,
             "outcome": None, "seconds": 0.2}]


def _validation(playable: bool) -> dict:
    criteria = [{"id": "schema", "passed": True, "mandatory": True, "kind": "check:schema", "reason": "level loads"},
                {"id": "outcome_discrimination", "passed": playable, "mandatory": True,
                 "kind": "check:outcome_discrimination", "reason": "reference scores 1.00, idle scores 1.00 over 2 seeds"},
                {"id": "pacing", "passed": False, "mandatory": False, "kind": "judged", "reason": "first wave is early"}]
    return {
        "playable": playable, "status": "playable" if playable else "failed",
        "reason": "all stage verdicts passed" if playable else "stopped at stage level: iteration budget spent",
        "query": QUERY, "run_id": "defend-three-fronts-20260101-000000-abcdef",
        "backend": {"pm": "offline", "designer": "offline", "developer": "offline", "analyst": "offline",
                    "vlm": "openai/gpt-4o-mini"},
        "rubric_versions": {"gdd": 1, "rules": 2, "level": 3}, "fast_tracked": False, "kb_match": None,
        "stages": {"gdd": {"stage": "gdd", "passed": True, "judged_by": "offline",
                           "criteria": [{"id": "requirements_covered", "passed": True, "mandatory": True,
                                         "kind": "check:requirements_covered", "reason": "all 2 requirements mapped"}]},
                   "level": {"stage": "level", "passed": playable, "criteria": criteria,
                             "judged_by": "automated checks + VLM openai/gpt-4o-mini"}},
        "decisions": [{"stage": "level", "attempt": 1, "decision": "rollback", "target_stage": "gdd",
                       "guidance": ["make the idle policy lose: add a loss condition"], "reason": "idle also wins"},
                      {"stage": "level", "attempt": 2, "decision": "advance" if playable else "stop",
                       "target_stage": "done" if playable else "level", "guidance": [], "reason": "budget spent"}],
        "simulation_runs": [{"seed": 7, "policy": "reference", "ok": True, "winners": [0], "losers": [1],
                             "reason": "survived until the end", "ended_by": "condition", "duration": 200.0,
                             "trace_hash": "ab" * 32, "error": None, "wall_s": 3.1},
                            {"seed": 11, "policy": "idle", "ok": True, "winners": [1], "losers": [0],
                             "reason": "objective metal_storage destroyed", "ended_by": "condition", "duration": 64.5,
                             "trace_hash": "cd" * 32, "error": None, "wall_s": 1.2}],
        "requirements": [{"id": "fronts", "text": "attacks come from 3 directions", "testable": True, "on": "reference",
                          "passed": True, "detail": "spawn events in 3 distinct sectors (N:6, E:6, S:6)",
                          "per_run": [{"seed": 7, "passed": True, "details": []}]},
                         {"id": "objective_loss", "text": "losing an objective loses", "testable": True, "on": "idle",
                          "passed": playable, "detail": "observed losers=[0] at 64.5 s",
                          "per_run": [{"seed": 11, "passed": playable, "details": []}]}],
        "visual_review": {"playable": True, "aligned": True, "observations": ["three attack groups visible"],
                          "problems": [], "judged_by": "VLM openai/gpt-4o-mini"},
        "assumptions": ["no duration given: 3:20"], "unsupported": ["weather cannot be simulated"],
        "evolution": None,
        "stage_times_s": {"brief": 0.8, "gdd": 0.3, "gdd_review": 0.4, "level_validate": 12.5},
        "generation_time_s": 14.0,
        "usage": {"by_stage": {"brief": {"calls": 1, "failed_calls": 0, "prompt_tokens": 1234, "completion_tokens": 56,
                                         "cost_usd": 0.0021, "latency_ms": 800.0}},
                  "total": {"calls": 1, "failed_calls": 0, "prompt_tokens": 1234, "completion_tokens": 56,
                            "cost_usd": 0.0021, "latency_ms": 800.0}},
        "written": "2026-01-01T00:00:00Z",
    }


def _write_frames(folder: Path, level_path: Path) -> None:
    sim = Simulation(load_level(level_path), seed=0, policies={})
    images = []
    for seconds in (0, 20, 40):
        sim.step(int(seconds * 30) - int(sim.time * 30))
        images.append(render_minimap(sim.snapshot(), size=256))
        images[-1].save(folder / "frames" / f"frame_{seconds:04d}.png")
    save_gif(images, folder / "replay.gif")


def make_scenario(folder: Path, playable: bool = False) -> Path:
    """A scenario folder as `genesis new` leaves it, around the MFD reference level."""
    (folder / "rules").mkdir(parents=True)
    (folder / "frames").mkdir()
    level = json.loads((SEED_KB / "levels" / "MFD" / "level.json").read_text())
    level["rules"][0]["script"] = "rules/staggered_waves.lua"
    (folder / "level.json").write_text(json.dumps(level))
    rule = _rule_artifact()
    (folder / "rules" / "staggered_waves.lua").write_text(rule["source"])
    (folder / "rules" / "staggered_waves.tests.json").write_text(
        json.dumps(rule_test_record(rule, _test_results(rule), fast_tracked=False)))
    (folder / "brief.json").write_text(json.dumps({
        "query": QUERY, "title": "Three fronts", "competency": "spatial_temporal_reasoning",
        "summary": "Hold three storages against raids from the north, east and south.",
        "composition": "six light tanks", "enemy_behaviour": ["raids at 0:20, 1:20, 2:20"],
        "win_conditions": ["survive until 3:20"], "loss_conditions": ["any storage is destroyed"],
        "requirements": [{"id": "fronts", "text": "attacks come from 3 directions"}],
        "assumptions": ["no duration given: 3:20"], "unsupported": ["weather cannot be simulated"]}))
    (folder / "gdd.json").write_text(json.dumps({"title": "Three fronts",
                                                 "agent_description": "Keep all three Metal Storages alive."}))
    (folder / "gdd.md").write_text("# Three fronts\n\n## Setup\n\n- Map: crossroads\n\n<script>alert('gdd')</script>\n")
    _write_frames(folder, folder / "level.json")
    (folder / "validation.json").write_text(json.dumps(_validation(playable)))
    return folder


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.srcs: list[str] = []
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("img", "script", "link") and a.get("src"):
            self.srcs.append(a["src"])
        if tag in ("a", "link") and a.get("href"):
            self.hrefs.append(a["href"])


@pytest.fixture(scope="module")
def failed_scenario(tmp_path_factory) -> Path:
    folder = make_scenario(tmp_path_factory.mktemp("report") / "scenario")
    write_report(folder)
    return folder


def test_report_shows_verdict_brief_gdd_rules_and_tests(failed_scenario):
    html = (failed_scenario / "report.html").read_text()
    assert "NOT PLAYABLE" in html and "stopped at stage level: iteration budget spent" in html
    assert QUERY in html
    assert "Hold three storages against raids" in html and "weather cannot be simulated" in html
    assert "Keep all three Metal Storages alive." in html and "<h2>Setup</h2>" in html   # GDD markdown rendered
    assert "<script>alert" not in html and "&lt;script&gt;alert" in html                # ...with its HTML escaped
    rule = _rule_artifact()
    assert "<code>staggered_waves</code>" in html and "1/2 tests pass" in html
    assert rule["tests"][0]["name"] in html and "FAIL expected 3 spawns, saw 0" in html
    assert "&#34;fronts&#34;: [&#34;north&#34;, &#34;east&#34;, &#34;south&#34;]" in html or \
        "[&#34;north&#34;, &#34;east&#34;, &#34;south&#34;]" in html                   # the level's params
    assert "Lua source (" in html and "lib.point" in html                              # collapsible source


def test_report_shows_criteria_decisions_runs_evidence_visual_and_costs(failed_scenario):
    html = (failed_scenario / "report.html").read_text()
    v = _validation(False)
    for c in v["stages"]["level"]["criteria"]:
        assert f"<code>{c['id']}</code>" in html and c["reason"] in html
    assert "(optional)" in html                                                          # non-mandatory criterion
    assert "rollback" in html and "make the idle policy lose: add a loss condition" in html and "stop" in html
    assert "survived until the end" in html and "objective metal_storage destroyed" in html
    assert "T0 won; T1 lost" in html and "64.5 s" in html
    assert "spawn events in 3 distinct sectors (N:6, E:6, S:6)" in html and "observed losers=[0] at 64.5 s" in html
    assert "Judged by <b>VLM openai/gpt-4o-mini</b>" in html
    assert "0.3 + gdd_review 0.4" in html or "gdd 0.3 + gdd_review 0.4" in html         # timings grouped per stage
    assert "1234" in html and "0.0021" in html                                           # tokens and cost
    assert "openai/gpt-4o-mini" in html and "v3" in html                                 # backend and rubric version
    assert "no (designed from scratch)" in html


def test_report_assets_are_local_and_exist(failed_scenario):
    html = (failed_scenario / "report.html").read_text()
    refs = _Refs()
    refs.feed(html)
    assert "map.png" in refs.srcs and "replay.gif" in refs.srcs
    assert [s for s in refs.srcs if s.startswith("frames/")] == [f"frames/frame_{t:04d}.png" for t in (0, 20, 40)]
    for ref in refs.srcs + [h for h in refs.hrefs if not h.startswith("#")]:
        assert "//" not in ref, f"{ref} needs the network"
        assert (failed_scenario / ref).exists(), ref


def test_certified_report_has_green_banner_and_fast_track_info(tmp_path):
    folder = make_scenario(tmp_path / "ok", playable=True)
    v = json.loads((folder / "validation.json").read_text())
    # a record written before the certificate was a gate says PLAYABLE, on a banner that is not green
    assert 'class="banner warn"' in write_report(folder).read_text()
    v.update(fast_tracked=True, kb_match={"id": "mfd-three-fronts", "score": 0.87}, verdict="CERTIFIED", certified=True)
    (folder / "validation.json").write_text(json.dumps(v))
    html = write_report(folder).read_text()
    assert 'class="banner ok"' in html and ">CERTIFIED<" in html and "NOT PLAYABLE" not in html
    assert "mfd-three-fronts" in html and "0.87" in html
    assert "Failing criteria" not in html


def test_runs_copied_from_another_seed_or_the_cache_say_so(tmp_path):
    folder = make_scenario(tmp_path / "ok", playable=True)
    v = json.loads((folder / "validation.json").read_text())
    base = {"policy": "reference", "ok": True, "winners": [0], "losers": [1], "reason": "won", "ended_by": "rule",
            "duration": 300.0, "trace_hash": "ab" * 32}
    v["simulation_runs"] = [{**base, "seed": 0, "wall_s": 1.2, "cached": False, "seed_independent": True},
                            {**base, "seed": 1, "wall_s": 0.0, "cached": False, "same_as_seed": 0},
                            {**base, "seed": 2, "wall_s": 0.3, "cached": True}]
    (folder / "validation.json").write_text(json.dumps(v))
    runs = write_report(folder).read_text().split('id="runs"')[1].split("</section>")[0]
    assert "1.2 s" in runs and runs.count("copy of seed 0") == 1 and runs.count(">cached<") == 1


def test_report_of_a_run_stopped_before_any_artefact(tmp_path):
    (tmp_path / "validation.json").write_text(json.dumps(
        {"playable": False, "status": "refused", "reason": "not a game request: bake a cake", "query": "bake a cake"}))
    html = write_report(tmp_path).read_text()
    assert "REFUSED" in html and "not a game request: bake a cake" in html
    assert "No rules were written." in html and "No simulation was run." in html
    assert not (tmp_path / "map.png").exists()


def test_not_a_scenario_folder(tmp_path):
    with pytest.raises(ScenarioFolderError, match="no readable validation.json"):
        load_scenario(tmp_path)
    (tmp_path / "validation.json").write_text("[1, 2]")
    with pytest.raises(ScenarioFolderError):
        load_scenario(tmp_path)


def test_map_picture_marks_the_spawns_the_rules_use(tmp_path):
    level = load_level(SEED_KB / "levels" / "MFD" / "level.json")
    assert rule_spawn_uses(level) == {n: ["staggered_waves.fronts"] for n in ("north", "east", "south")}
    markers = write_map_picture(SEED_KB / "levels" / "MFD" / "level.json", tmp_path / "map.png")
    labels = [m.label for m in markers]
    assert "spawn north <- staggered_waves.fronts" in labels and "T0: 6 light_tank" in labels
    picture = np.asarray(Image.open(tmp_path / "map.png").convert("RGB"))
    plain = np.asarray(render_minimap(Simulation(level, seed=0, policies={}).snapshot(), size=picture.shape[0]))
    orange = np.array(Image.new("RGB", (1, 1), SPAWN_COLOR)).reshape(3)
    count = lambda img: int(np.all(img == orange, axis=-1).sum())  # noqa: E731
    assert count(picture) > 50 and count(plain) == 0


def test_rule_test_record_pairs_cases_with_results():
    rule = _rule_artifact()
    crashed = [{"name": "(all)", "passed": False, "details": [], "error": "rule tests killed after 120 s"}]
    record = rule_test_record(rule, crashed, fast_tracked=False)
    assert [t["result"] for t in record["tests"][:-1]] == [None] * len(rule["tests"])
    assert record["tests"][-1]["result"]["error"] == "rule tests killed after 120 s"   # the crash stays visible
    assert record["declared_params"]["fronts"]["type"] == "list"
    fast = rule_test_record(rule, None, fast_tracked=True)
    assert "fast-tracked" in fast["note"] and all(t["result"] is None for t in fast["tests"])


def test_finalize_writes_test_records_map_and_report(tmp_path):
    folder = make_scenario(tmp_path / "s")
    for name in ("report.html", "rules/staggered_waves.tests.json"):
        (folder / name).unlink(missing_ok=True)
    rule = _rule_artifact()
    usage = SimpleNamespace(record=lambda: {"by_stage": {}, "total": {"calls": 0}, "cost": {"usd": 0.0, "basis": "no model calls"}})
    client = SimpleNamespace(usage=usage, config=SimpleNamespace(backend_name=lambda role: "offline"),
                             backend_name=lambda role: "offline")
    rubrics = shutil.copytree(seed_rubrics(), tmp_path / "rubrics")     # the run logs its outcome there
    ctx = SimpleNamespace(client=client, out_dir=folder, rubrics_root=rubrics,
                          validation_cache=SimpleNamespace(root=tmp_path / "cache"), certificate_games=None,
                          replay_gif=None)
    state = {"status": "failed", "stop_reason": "stopped at stage level: budget", "query": QUERY, "run_id": "r1",
             "rules": [RuleArtifact.model_validate(rule)], "rule_tests": {"staggered_waves": _test_results(rule)}}
    record = write_outputs(ctx, state)
    assert record["reason"] == "stopped at stage level: budget"
    saved = json.loads((folder / "rules" / "staggered_waves.tests.json").read_text())
    assert saved["tests"][1]["result"]["passed"] is False
    assert Image.open(folder / "map.png").size[0] == 640                  # the map fills the width: no letterbox
    assert "1/2 tests pass" in (folder / "report.html").read_text()


def test_cli_rebuilds_the_report_and_rejects_other_folders(failed_scenario, tmp_path, monkeypatch):
    (failed_scenario / "report.html").unlink()
    (failed_scenario / "map.png").unlink()
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    result = CliRunner().invoke(app, ["report", str(failed_scenario), "--open"])
    assert result.exit_code == 0, result.output
    assert (failed_scenario / "report.html").exists() and (failed_scenario / "map.png").exists()
    assert opened == [(failed_scenario / "report.html").resolve().as_uri()]
    bad = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert bad.exit_code == 2 and "not a scenario folder" in " ".join(bad.output.split())   # rich wraps lines


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           f"--user-data-dir={profile}", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_chromium_renders_the_report_with_every_picture(failed_scenario, tmp_path):
    url = (failed_scenario / "report.html").resolve().as_uri()
    shot = tmp_path / "shot.png"
    _chromium(f"--screenshot={shot}", "--window-size=1200,3000", url, profile=tmp_path / "p1")
    pixels = np.asarray(Image.open(shot).convert("RGB")).reshape(-1, 3)
    assert len(np.unique(pixels[:: 97], axis=0)) > 50                    # a real page, not a blank canvas
    dom = _chromium("--virtual-time-budget=10000", "--dump-dom", url, profile=tmp_path / "p2").stdout
    images = len(re.findall(r"<img\b", dom))
    assert images == 5                                                    # map, replay, 3 frames
    assert re.search(r'<body[^>]*data-images="ok 5"', dom), re.search(r"<body[^>]*>", dom)


def test_map_picture_gives_a_cluster_of_like_units_one_label(tmp_path):
    level = json.loads((SEED_KB / "levels" / "MFD" / "level.json").read_text())
    level["rules"] = []
    level["teams"][0]["units"] += [{"type": "metal_storage", "x": 56.5 + dx, "y": 56.5 + dy, "tag": "depot"}
                                   for dx in (0, 3) for dy in (0, 3)]
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    labels = [m.label for m in write_map_picture(path, tmp_path / "map.png")]
    assert labels.count("T0: 4 metal_storage [depot]") == 1 and not any("1 metal_storage [depot]" in t for t in labels)
    assert labels.count("T0: 1 metal_storage [objective]") == 3      # 22 tiles apart: each keeps its own label
