"""The CLI as a script sees it: results on stdout, progress and errors on stderr, honest exit codes, bad input
answered before the pipeline loads, ids that round-trip, nothing overwritten, nothing written into a checkout."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis import __version__
from genesis.cli import app
from genesis.pipeline.runner import Outcome
from genesis.workspace import copy_seed
from tests.genesis.pipeline_fixtures import tree_hash

REPO = Path(__file__).resolve().parents[2]
QUERY = "defend two fronts with staggered waves"


def invoke(*args: str, **env: str):
    result = CliRunner().invoke(app, list(args), env=env or None)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def fresh_process(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-m", "genesis", *args], capture_output=True, text=True, env=env,
                          timeout=120, cwd=REPO)


# --- --version, -h, help texts ------------------------------------------------------------------------------------
def test_version_and_short_help():
    result = invoke("--version")
    assert result.exit_code == 0 and result.stdout.strip() == __version__
    for args in (["-h"], ["new", "-h"], ["kb", "show", "-h"], ["rubrics", "diff", "-h"]):
        result = invoke(*args)
        assert result.exit_code == 0 and "Usage:" in result.stdout, args
    assert "recorded in run.json" in " ".join(invoke("new", "-h").stdout.split())   # --seed says what it does


# --- bad input: exit 2 on stderr, nothing on stdout, before the pipeline is loaded ------------------------------
@pytest.mark.parametrize("args,message", [
    (["new", ""], "the query is empty"),
    (["new", "a " * 1100], "the limit is 2,000"),
    (["resume", "nosuchrun"], "no run 'nosuchrun'"),
], ids=["empty", "too-long", "unknown-run"])
def test_bad_input_is_answered_in_a_fresh_process_without_loading_the_pipeline(args, message):
    probe = ("import sys, json\nfrom genesis.cli import app\ntry:\n    app(%r)\nexcept SystemExit as e:\n"
             "    code = e.code\nheavy = sorted(m for m in ('litellm', 'langgraph', 'chromadb', 'numpy', 'engine.sim') "
             "if m in sys.modules)\nprint(json.dumps([code, heavy]))" % (args,))
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    code, heavy = json.loads(done.stdout.strip().splitlines()[-1])
    assert code == 2 and heavy == [], (code, heavy)
    assert message in done.stderr and done.stderr.startswith("error: ")


@pytest.mark.parametrize("broken,message", [
    ("rubrics/gdd.yaml", "rubrics/gdd.yaml: stage: Field required"),
    ("genesis.yaml", "genesis.yaml: not valid YAML"),
])
def test_a_broken_rubric_or_setting_is_answered_in_a_fresh_process_without_loading_the_pipeline(tmp_path, broken,
                                                                                               message):
    workspace = tmp_path / "workspace"
    copy_seed(workspace)
    (workspace / "genesis.yaml").write_text("# a Genesis workspace\n", encoding="utf-8")
    (workspace / broken).write_text("model: [unclosed\n" if broken == "genesis.yaml" else "criteria: 5\n",
                                    encoding="utf-8")
    probe = ("import sys, json\nfrom genesis.cli import app\ntry:\n    app(['new', %r])\nexcept SystemExit as e:\n"
             "    code = e.code\nheavy = sorted(m for m in ('litellm', 'langgraph', 'chromadb', 'engine.sim') "
             "if m in sys.modules)\nprint(json.dumps([code, heavy]))" % QUERY)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=workspace,
                          env={**os.environ, "PYTHONPATH": str(REPO), "GENESIS_WORKSPACE": str(workspace)})
    code, heavy = json.loads(done.stdout.strip().splitlines()[-1])
    assert code == 2 and heavy == [], (code, heavy, done.stderr)
    assert done.stderr.startswith("error: ") and message in done.stderr


def test_errors_are_one_line_and_uncoloured_beyond_the_prefix_even_on_a_colour_terminal(tmp_path):
    """No hard wrap at 80 columns (a long path stays copyable) and no colour rich would guess for numbers or paths."""
    workspace = tmp_path / ("a-workspace-with-a-long-name-" * 3)
    done = fresh_process("resume", "nosuchrun-20260101-000000-abcdef",
                         env={"GENESIS_WORKSPACE": str(workspace), "FORCE_COLOR": "1"})
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.rstrip("\n").split("\n")
    assert len(lines) == 1 and len(lines[0]) > 200, done.stderr
    after_prefix = lines[0].split("error:", 1)[1].removeprefix("\x1b[0m")   # the prefix's own style ends there
    assert "\x1b" not in after_prefix and str(workspace) in after_prefix


def test_a_table_piped_to_a_file_is_not_cut_to_80_columns():
    result = invoke("rubrics", "history", "level")
    assert result.exit_code == 0 and "2025-01-01T00:00:00+00:00" in result.stdout  # the date, whole
    assert "…" not in result.stdout


# --- results on stdout ----------------------------------------------------------------------------------------------
def _fake_outcome(folder: Path, status: str, validation: dict) -> Outcome:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.html").write_text("<html></html>")
    return Outcome(status, folder, "run-1", {"backend": {"designer": "offline"}, "generation_time_s": 1.0, **validation})


def test_new_prints_the_folder_alone_on_stdout_and_the_verdict_on_stderr(tmp_path, monkeypatch):
    from genesis.pipeline import runner

    folder = tmp_path / "scenario"
    certified = {"verdict": "CERTIFIED", "certificate": {"valid": True, "difficulty": "medium", "checks": {}},
                 "requirements": [{"text": "two fronts", "passed": True, "detail": "2 distinct sectors"}]}
    monkeypatch.setattr(runner, "start", lambda *a, **k: _fake_outcome(folder, "playable", certified))
    result = invoke("new", QUERY)
    assert result.exit_code == 0
    assert result.stdout == f"{folder}\n"                    # DIR=$(genesis new ...) works
    assert "CERTIFIED" in result.stderr and "2 distinct sectors" in result.stderr

    result = invoke("new", QUERY, "--json")
    data = json.loads(result.stdout)
    assert data["verdict"] == "CERTIFIED" and data["exit_code"] == 0 and data["folder"] == str(folder)
    assert data["certificate"]["difficulty"] == "medium" and data["run_id"] == "run-1"
    assert data["report"] == str(folder / "report.html")


def test_a_refusal_leaves_a_line_in_the_refusals_log_not_a_scenario_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("GENESIS_WORKSPACE", str(tmp_path / "ws"))
    result = invoke("new", "bake a chocolate cake with three layers", "--json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "REFUSED" and data["folder"] is None and "game words" in data["reason"]
    assert not any((tmp_path / "ws" / "generated").iterdir())
    [line] = Path(data["refusal_record"]).read_text().splitlines()
    assert json.loads(line)["query"] == "bake a chocolate cake with three layers"
    assert json.loads(line)["run_id"] == data["run_id"]


def test_a_refusal_into_a_named_folder_keeps_it_and_is_logged_too(tmp_path, monkeypatch):
    monkeypatch.setenv("GENESIS_WORKSPACE", str(tmp_path / "ws"))
    result = invoke("new", "bake a chocolate cake with three layers", "--out", str(tmp_path / "cake"), "--json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert (tmp_path / "cake" / "validation.json").exists()     # a batch's per-query record stays
    [line] = Path(data["refusal_record"]).read_text().splitlines()
    assert json.loads(line)["query"] == "bake a chocolate cake with three layers"


# --- nothing overwritten --------------------------------------------------------------------------------------------
def test_out_into_a_folder_of_other_files_is_refused_unless_forced(tmp_path, monkeypatch):
    from genesis.pipeline import runner

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    result = invoke("new", QUERY, "--out", str(mine))
    assert result.exit_code == 2 and "--force" in result.stderr and result.stdout == ""
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]

    (mine / "run.json").write_text(json.dumps({"query": "another request"}))
    result = invoke("new", QUERY, "--out", str(mine))
    assert result.exit_code == 2 and "another request" in result.stderr

    started = []
    monkeypatch.setattr(runner, "start", lambda *a, **k: started.append(k["out"]) or _fake_outcome(
        mine, "playable", {"verdict": "CERTIFIED", "certificate": {"valid": True}}))
    assert invoke("new", QUERY, "--out", str(mine), "--force").exit_code == 0 and started == [mine]
    (mine / "run.json").write_text(json.dumps({"query": QUERY}))   # a re-run of the same request needs no --force
    assert invoke("new", QUERY, "--out", str(mine)).exit_code == 0 and started == [mine, mine]


# --- model misconfiguration: exit 2, never a verdict or a retry -----------------------------------------------------
@pytest.mark.parametrize("model,message", [("nonexistent/foo", "no litellm provider serves it"),
                                           ("openai/gpt-4o-mini", "OPENAI_API_KEY")], ids=["unknown", "no-key"])
def test_a_model_no_call_can_reach_is_bad_configuration_before_any_folder(tmp_path, monkeypatch, model, message):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "s"
    result = invoke("new", QUERY, "--model", model, "--out", str(out))
    assert result.exit_code == 2 and message in result.stderr, result.output
    assert "NOT PLAYABLE" not in result.output and result.stdout == "" and not out.exists()


def test_credentials_the_provider_rejects_are_exit_2_and_no_verdict(tmp_path, monkeypatch):
    from llm_fakes import ScriptedLiteLLM, litellm

    fake = ScriptedLiteLLM([litellm.AuthenticationError(message="invalid api key", model="openai/test",
                                                        llm_provider="openai")]).install(monkeypatch)
    out = tmp_path / "s"
    result = invoke("new", QUERY, "--model", "openai/test", "--api-base", "http://127.0.0.1:9/v1", "--out", str(out))
    assert result.exit_code == 2 and "rejected the credentials" in result.stderr, result.output
    assert "NOT PLAYABLE" not in result.output and len(fake.calls) == 1
    validation = json.loads((out / "validation.json").read_text())
    assert validation["status"] == "config_error" and "no verdict" in validation["reason"]


# --- ids round-trip -------------------------------------------------------------------------------------------------
def test_kb_json_ids_and_a_scenario_folder_find_their_item(tmp_path):
    listed = json.loads(invoke("kb", "list", "levels", "--json").stdout)
    assert {"FS-F", "FS-T", "MFD", "SP", "TCP"} <= {e["id"] for e in listed}
    folder = tmp_path / "defend-something"
    folder.mkdir()
    (folder / "validation.json").write_text(json.dumps({"kb_match": {"id": "MFD"}, "evolution": {"committed": None}}))
    shown = json.loads(invoke("kb", "show", str(folder), "--json").stdout)
    assert {(e["collection"], e["id"]) for e in shown} >= {("levels", "MFD")}
    assert invoke("kb", "show", "no-such-item").exit_code == 1


def test_rubric_versions_as_history_prints_them_or_as_numbers():
    history = json.loads(invoke("rubrics", "history", "level", "--json").stdout)
    assert history[0]["stage"] == "level" and history[0]["version"] == 1
    for v1, v2 in (("v1", "1"), ("1", "v1"), ("V1", "1")):
        result = invoke("rubrics", "diff", "level", v1, v2)
        assert result.exit_code == 0 and "identical" in result.stdout, result.output
    assert invoke("rubrics", "diff", "level", "one", "1").exit_code == 2
    assert json.loads(invoke("rubrics", "show", "level", "--version", "v1", "--json").stdout)["version"] == 1


def test_the_offline_title_is_the_whole_request():
    from genesis.offline.brief_writer import reading_title

    query = "defend two fronts with staggered waves and hold the ridge until the relief column arrives"
    assert reading_title(query) == "D" + query[1:]


# --- the seed guard in a source checkout (as installed from a wheel: the package's seed is elsewhere) --------------
@pytest.fixture
def checkout(tmp_path):
    root = tmp_path / "genesis-checkout"
    (root / "genesis" / "seed").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "genesis-rts"\n')
    copy_seed(root)
    return root


def test_a_checkout_is_never_a_workspace(checkout, monkeypatch):
    before = tree_hash(checkout)
    monkeypatch.setenv("GENESIS_WORKSPACE", os.environ["GENESIS_WORKSPACE"])  # --workspace sets it: restored after
    monkeypatch.chdir(checkout)
    for args in (["--workspace", str(checkout), "new", QUERY], ["init", str(checkout)], ["init", "."],
                 ["init", str(checkout / "genesis" / "seed")], ["init", str(checkout / "kb")]):
        result = invoke(*args)
        assert result.exit_code == 2 and "source checkout" in result.stderr, (args, result.output)
        assert "created workspace" not in result.output
    assert tree_hash(checkout) == before and not (checkout / "genesis.yaml").exists()


def test_init_beside_the_checkout_prints_the_folder_and_the_next_steps(checkout, monkeypatch):
    monkeypatch.chdir(checkout)
    result = invoke("init", "my-games")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{checkout / 'my-games'}\n"
    assert "next: cd my-games && genesis new" in result.stderr
    assert (checkout / "my-games" / "genesis.yaml").is_file()


def test_engine_run_names_an_unknown_policy_once(tmp_path):
    done = subprocess.run([sys.executable, "-m", "engine", "run", str(REPO / "kb" / "levels" / "MFD" / "level.json"),
                           "--agent", "0=llm"], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 2 and done.stderr.count("unknown policy") == 1, done.stderr


def test_a_batch_with_a_model_no_call_can_reach_stops_before_any_query(tmp_path):
    queries = tmp_path / "queries.txt"
    queries.write_text(f"{QUERY}\n")
    result = invoke("batch", str(queries), "--model", "nonexistent/foo", "--out", str(tmp_path / "batch"))
    assert result.exit_code == 2 and "no litellm provider serves it" in result.output, result.output
    assert not (tmp_path / "batch").exists()


def test_playing_a_level_of_the_workspace_kb_writes_beside_the_scenarios_not_into_the_kb(tmp_path, monkeypatch):
    monkeypatch.setenv("GENESIS_WORKSPACE", str(tmp_path / "ws"))
    assert invoke("init", str(tmp_path / "ws")).exit_code == 0
    level = tmp_path / "ws" / "kb" / "levels" / "MFD"
    result = invoke("play", str(level), "--agent", "idle", "--json")
    assert result.exit_code == 0, result.output
    assert not (level / "play").exists()
    assert (tmp_path / "ws" / "generated" / "play" / "MFD" / "idle" / "metrics.json").is_file()
