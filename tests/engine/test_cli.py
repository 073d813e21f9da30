"""`python -m engine`: run, schema, bad input (exit 2, message, no traceback)."""
import json
import subprocess
import sys

import pytest

from engine.__main__ import main


def level_file(arena, h, **kw):
    data = h.level_dict([h.team(0, [{"type": "light_bot", "x": 10, "y": 10, "count": 2}]),
                         h.team(1, [{"type": "scout", "x": 13, "y": 10}])],
                        conditions=[{"kind": "last_survivor"}], **kw)
    path = arena / "level.json"
    path.write_text(json.dumps(data))
    return path


def test_run_json(arena, h, capsys):
    assert main(["run", str(level_file(arena, h)), "--seed", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["winners"] == [0] and out["ended_by"] == "condition" and len(out["trace_hash"]) == 64
    assert set(out["team_stats"]["0"]) >= {"damage_dealt", "units_killed", "metal_spent", "objectives"}


def test_run_text_and_frames(arena, h, capsys, tmp_path):
    frames = tmp_path / "frames"
    assert main(["run", str(level_file(arena, h)), "--frames", str(frames), "--agent", "0=idle"]) == 0
    out = capsys.readouterr().out
    assert "winner(s): 0" in out and "loser(s): 1" in out and "trace hash:" in out
    assert list(frames.glob("*.png"))


@pytest.mark.parametrize("args, needle", [
    (["run", "missing.json"], "level file not found"),
    (["run", "LEVEL", "--agent", "zero=idle"], "--agent expects TEAM=POLICY"),
    (["run", "LEVEL", "--agent", "7=idle"], "level has no team 7"),
    (["run", "BAD"], "unknown unit type 'tank9'"),
])
def test_bad_input_exit_2(arena, h, tmp_path, capsys, args, needle):
    good = level_file(arena, h)
    bad = tmp_path / "bad.json"
    data = json.loads(good.read_text())
    data["teams"][0]["units"][0]["type"] = "tank9"
    bad.write_text(json.dumps(data))
    args = [{"LEVEL": str(good), "BAD": str(bad)}.get(a, a) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


def test_schema_and_subprocess(arena, h):
    out = subprocess.run([sys.executable, "-m", "engine", "schema"], capture_output=True, text=True)
    assert out.returncode == 0 and json.loads(out.stdout)["title"] == "LevelConfig"
    path = level_file(arena, h)
    path.write_text("{ nope")
    bad = subprocess.run([sys.executable, "-m", "engine", "run", str(path)], capture_output=True, text=True)
    assert bad.returncode == 2 and "invalid JSON" in bad.stderr and "Traceback" not in bad.stderr
