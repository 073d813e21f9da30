"""A scenario folder has one writer at a time, and a run killed before its first checkpoint resumes
by starting over (the kill -9 of the first seconds of `genesis new`)."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis.cli import app
from genesis.pipeline import runner
from genesis.pipeline.runner import resume, start
from tests.genesis.pipeline_fixtures import seed_dirs  # noqa: F401 (fixture)

QUERY = "hold the bridge against three waves"
ROOT = Path(__file__).resolve().parents[2]


class Killed(BaseException):
    """Stands for a kill -9: nothing after it runs (no except Exception, no finally that matters)."""


def _killed_before_the_first_checkpoint(monkeypatch, query: str, folder: Path, **kwargs) -> str:
    """`start` as a kill -9 leaves it in its first seconds: run.json written, no checkpoint; the run id."""
    def killed(*args, **kw):
        raise Killed()

    monkeypatch.setattr(runner, "_graph", killed)
    with pytest.raises(Killed):
        start(query, out=folder, **kwargs)
    monkeypatch.undo()
    return json.loads((folder / "run.json").read_text())["run_id"]


def test_a_run_killed_before_its_first_checkpoint_starts_over_on_resume(tmp_path, seed_dirs, monkeypatch):
    kb, rubrics = seed_dirs
    folder = tmp_path / "scenario"
    run_id = _killed_before_the_first_checkpoint(monkeypatch, "defend the base", folder, interactive=True,
                                                 kb_root=kb, rubrics_root=rubrics)
    outcome = resume(run_id)  # an interactive run: Stage 1 stops at its questions, so this stays fast
    assert outcome.status == "waiting" and outcome.questions and outcome.run_id == run_id


@pytest.mark.slow
def test_a_run_killed_before_its_first_checkpoint_resumes_to_a_verdict(tmp_path, seed_dirs, monkeypatch):
    kb, rubrics = seed_dirs
    folder = tmp_path / "scenario"
    run_id = _killed_before_the_first_checkpoint(monkeypatch, QUERY, folder, kb_root=kb, rubrics_root=rubrics)
    outcome = resume(str(folder))
    assert outcome.status == "playable", outcome.validation.get("reason")
    assert outcome.run_id == run_id and json.loads((folder / "validation.json").read_text())["playable"]


_HOLDER = """
import sys, time
from pathlib import Path
from genesis.pipeline.folder_lock import sole_writer
with sole_writer(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _hold(folder: Path, seconds: float) -> subprocess.Popen:
    """Another process writing `folder` (as a `genesis new --out folder` in progress does)."""
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER, str(folder), str(seconds)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_run_into_a_folder_being_written_is_refused_and_touches_nothing(tmp_path, seed_dirs):
    folder = tmp_path / "scenario"
    folder.mkdir()
    # the first run's own request: the --out check lets it through, the writer's lock refuses it
    first = {"run.json": json.dumps({"run_id": "first-run", "query": QUERY}),
             "validation.json": json.dumps({"playable": True})}
    for name, text in first.items():
        (folder / name).write_text(text)
    assert CliRunner().invoke(app, ["init", str(tmp_path / "ws")]).exit_code == 0
    holder = _hold(folder, 20)
    try:
        began = time.monotonic()
        result = CliRunner().invoke(app, ["-w", str(tmp_path / "ws"), "new", QUERY, "--out", str(folder)])
        assert time.monotonic() - began < 15
        assert result.exit_code == 2, result.output
        text = " ".join(result.output.split())
        assert "another genesis run" in text and str(holder.pid) in text and "Traceback" not in text
        assert sorted(p.name for p in folder.iterdir()) == sorted(first)
        assert all((folder / name).read_text() == t for name, t in first.items())
        # resuming into the busy folder is refused the same way
        result = CliRunner().invoke(app, ["-w", str(tmp_path / "ws"), "resume", str(folder)])
        assert result.exit_code == 2 and "another genesis run" in " ".join(result.output.split())
    finally:
        holder.kill()
        holder.wait()


def test_the_folder_is_free_again_once_its_writer_is_gone(tmp_path):
    from genesis.pipeline.folder_lock import sole_writer

    folder = tmp_path / "scenario"
    holder = _hold(folder, 20)
    holder.kill()  # a kill -9 frees the folder at once: the kernel drops the lock
    holder.wait()
    with sole_writer(folder):
        pass
