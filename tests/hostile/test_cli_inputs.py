"""Malformed files handed to `genesis report` and `genesis new --replay`: exit 2 with one escaped
line, never a traceback, and nothing generated from them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis.cli import app

FIXTURES = Path(__file__).parents[1] / "genesis" / "fixtures"


def invoke(*args: str):
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, " ".join(result.output.split())


VALID = {"status": "playable", "reason": "ok"}
FOLDERS = {
    "no_validation": {},
    "validation_not_utf8": {"validation.json": b"\xff\xfe{}"},
    "validation_nested": {"validation.json": b"[" * 100000 + b"]" * 100000},
    "validation_array": {"validation.json": b"[1, 2, 3]"},
    "validation_wrong_types": {"validation.json": json.dumps({"status": 5, "stages": "x", "requirements": 7,
                                                              "usage": [], "backend": 3}).encode()},
    "rule_not_utf8": {"validation.json": json.dumps(VALID).encode(), "rules/x.lua": b"\xff\xfe"},
    "level_rules_wrong_type": {"validation.json": json.dumps(VALID).encode(),
                               "level.json": json.dumps({"rules": "nope"}).encode()},
    "markup_in_reason": {"validation.json": json.dumps({"status": [], "reason": "[/]\x1b[2J"}).encode()},
}


@pytest.mark.parametrize("files", FOLDERS.values(), ids=FOLDERS.keys())
def test_report_on_malformed_folder_exits_2_or_builds(tmp_path, files):
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    code, out = invoke("report", str(tmp_path))
    assert code in (0, 2), out
    if code == 2:
        assert out.startswith("error: ") and "\x1b" not in out


def test_report_on_missing_folder_exits_2(tmp_path):
    code, out = invoke("report", str(tmp_path / "nope"))
    assert code == 2 and "is not a folder" in out


REPLAYS = {
    "missing": None,
    "not_utf8": b'{"final": true}\n\xff\xfe\n',
    "not_json": b"hello\n",
    "nested": b"[" * 100000 + b"]" * 100000 + b"\n",
    "not_an_object": b"[1, 2]\n",
    "final_without_role": json.dumps({"final": True, "skill": 1}).encode() + b"\n",
    "escape_codes": b'\x1b[2J{"oops"\n',
}


@pytest.mark.parametrize("content", REPLAYS.values(), ids=REPLAYS.keys())
def test_new_with_malformed_replay_exits_2(tmp_path, content):
    path = tmp_path / "transcript.jsonl"
    if content is not None:
        path.write_bytes(content)
    out_dir = tmp_path / "out"
    code, out = invoke("new", "defend two fronts with staggered waves", "--replay", str(path), "--out", str(out_dir))
    assert code == 2, out
    assert out.startswith("error: --replay") and "\x1b" not in out
    assert not out_dir.exists()    # refused before anything was generated


def test_recorded_transcript_passes_the_replay_check():
    from genesis.input_files import check_replay_file

    check_replay_file(FIXTURES / "replay_transcript.jsonl")


WRONG_SCHEMA_REPLAYS = {
    "output_of_another_schema": {"final": True, "ok": True, "role": "designer", "skill": "designer.clarify",
                                 "stage": "brief", "output": {"foo": [1]}},
    "calls_of_another_run": {"final": True, "ok": True, "role": "designer", "skill": "brief", "stage": "brief",
                             "output": {"title": "x"}},
}


@pytest.mark.parametrize("record", WRONG_SCHEMA_REPLAYS.values(), ids=WRONG_SCHEMA_REPLAYS.keys())
def test_new_with_a_replay_that_does_not_fit_the_run_exits_2(tmp_path, record):
    """Well-formed JSON lines whose records do not fit the run's calls are bad input too: exit 2 with
    one line, never a NOT PLAYABLE verdict that tells the user to resume."""
    path = tmp_path / "transcript.jsonl"
    path.write_text(json.dumps(record) + "\n")
    code, out = invoke("-w", str(tmp_path / "ws"), "new", "defend two fronts with staggered waves",
                       "--replay", str(path), "--out", str(tmp_path / "out"))
    assert code == 2, out
    assert "error: --replay" in out and "resume" not in out and "Traceback" not in out


DAMAGED_SIDE_FILES = {
    "gdd_torn": ("gdd.json", b'{"broken'),
    "gdd_a_list": ("gdd.json", b"[1, 2]"),
    "gdd_not_utf8": ("gdd.json", b"\xff\xfe{}"),
    "gdd_nested": ("gdd.json", b"[" * 100000 + b"]" * 100000),
    "meta_not_yaml": ("meta.yaml", b"competency: [unclosed"),
    "meta_a_list": ("meta.yaml", b"- 1\n- 2\n"),
}


@pytest.mark.parametrize("damage", DAMAGED_SIDE_FILES.values(), ids=DAMAGED_SIDE_FILES.keys())
def test_play_on_a_folder_with_a_damaged_gdd_or_meta_plays_without_a_traceback(tmp_path, damage):
    """gdd.json and meta.yaml only label the scenario's competency: damaged, they are ignored."""
    host = Path(__file__).parent / "host"
    folder = tmp_path / "scenario"
    folder.mkdir()
    for name in ("level.json", "map.json"):
        (folder / name).write_bytes((host / name).read_bytes())
    level = json.loads((folder / "level.json").read_text())
    level["rules"] = []
    (folder / "level.json").write_text(json.dumps(level))
    name, data = damage
    (folder / name).write_bytes(data)
    code, out = invoke("play", str(folder), "--agent", "idle", "--out", str(tmp_path / "out"))
    assert code == 0, out
    assert "Traceback" not in out
