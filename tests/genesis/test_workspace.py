"""Workspaces: which one is used, how it is seeded from the shipped seed, and that nothing is ever
written into the seed (the source tree's kb/ and rubrics/, or site-packages)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis import workspace
from genesis.cli import app
from genesis.play.runner import output_paths
from genesis.workspace import WorkspaceError, copy_seed, seed_kb, seed_rubrics
from tests.genesis.pipeline_fixtures import tree_hash


@pytest.fixture
def no_workspace(monkeypatch, tmp_path):
    """No GENESIS_WORKSPACE, an empty working folder and a private per-user data folder."""
    for name in ("GENESIS_WORKSPACE", "GENESIS_KB_DIR", "GENESIS_RUBRICS_DIR", "GENESIS_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path / "empty")
    return tmp_path


def test_resolution_order(tmp_path):
    project = tmp_path / "project"
    (project / "sub" / "deeper").mkdir(parents=True)
    (project / "genesis.yaml").write_text("")
    assert workspace.current({"GENESIS_WORKSPACE": str(tmp_path / "w")}, project / "sub").root == tmp_path / "w"
    found = workspace.current({}, project / "sub" / "deeper")
    assert found.root == project and found.kb == project / "kb" and found.generated == project / "generated"
    fallback = workspace.current({}, tmp_path)
    assert fallback.root == workspace.user_data_dir() and "per-user" in fallback.found_by
    moved = workspace.current({"GENESIS_WORKSPACE": str(project), "GENESIS_KB_DIR": str(tmp_path / "k")}, tmp_path)
    assert moved.kb == tmp_path / "k" and moved.rubrics == project / "rubrics"


def test_a_new_workspace_is_seeded_once_and_the_seed_is_untouched(tmp_path):
    before = tree_hash(seed_kb()), tree_hash(seed_rubrics())
    ws = workspace.ensure(workspace.current({"GENESIS_WORKSPACE": str(tmp_path / "w")}))
    assert {p.name for p in (ws.kb / "levels").iterdir()} >= {"TCP", "MFD", "FS-F", "FS-T", "SP"}
    assert (ws.kb / "rules" / "staggered_waves" / "rule.lua").is_file()
    assert sorted(p.name for p in ws.rubrics.glob("*.yaml")) == ["gdd.yaml", "level.yaml", "rules.yaml"]
    assert ws.config_file.is_file()
    (ws.rubrics / "gdd.yaml").write_text((ws.rubrics / "gdd.yaml").read_text() + "\n# edited\n")
    workspace.ensure(ws)  # a seeded workspace keeps its own state
    assert (ws.rubrics / "gdd.yaml").read_text().endswith("# edited\n")
    assert (tree_hash(seed_kb()), tree_hash(seed_rubrics())) == before


def test_a_workspace_inside_the_seed_is_refused(tmp_path):
    with pytest.raises(WorkspaceError, match="shipped seed"):
        workspace.current({"GENESIS_WORKSPACE": str(workspace.SEED)}, tmp_path)
    with pytest.raises(WorkspaceError, match="shipped seed"):
        workspace.init(workspace.SEED)


def test_init_then_commands_use_the_workspace_found_upward(no_workspace, monkeypatch):
    runner = CliRunner()
    result = runner.invoke(app, ["init", str(no_workspace / "games")])
    assert result.exit_code == 0, result.output
    root = no_workspace / "games"
    assert (root / "genesis.yaml").is_file() and (root / "generated").is_dir()
    monkeypatch.chdir(root / "generated")
    result = runner.invoke(app, ["rubrics", "history", "level"])
    assert result.exit_code == 0 and "v1" in result.output, result.output
    assert not (no_workspace / "xdg").exists()  # the per-user folder was never needed


def test_readme_command_one_without_a_workspace_writes_only_to_the_per_user_folder(no_workspace):
    before = tree_hash(seed_kb()), tree_hash(seed_rubrics())
    result = CliRunner().invoke(app, ["new", "bake a chocolate cake with three layers"])  # refused: quick
    assert result.exit_code == 1 and "REFUSED" in result.output, result.output
    data = no_workspace / "xdg" / "genesis"
    # a refusal leaves one line in the workspace's refusals log, not a scenario folder
    assert not (data / "generated" / "bake-a-chocolate-cake-with-three-layers").exists()
    [line] = (data / "refusals.jsonl").read_text().splitlines()
    assert json.loads(line)["query"] == "bake a chocolate cake with three layers"
    assert result.stdout == "" and "refusals.jsonl" in result.stderr
    assert (data / "kb" / "levels" / "MFD" / "level.json").is_file() and (data / "rubrics" / "level.yaml").is_file()
    assert not any((no_workspace / "empty").iterdir())
    assert (tree_hash(seed_kb()), tree_hash(seed_rubrics())) == before


def test_a_broken_rubric_is_bad_configuration_exit_2(tmp_path, monkeypatch):
    kb, rubrics = copy_seed(tmp_path)
    (rubrics / "level.yaml").write_text("stage: level\nversion: one\n")
    monkeypatch.setenv("GENESIS_KB_DIR", str(kb))
    monkeypatch.setenv("GENESIS_RUBRICS_DIR", str(rubrics))
    result = CliRunner().invoke(app, ["new", "defend two fronts with staggered waves", "--out", str(tmp_path / "s")])
    assert result.exit_code == 2 and "level" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(app, ["rubrics", "history"])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_playing_a_seed_level_writes_into_the_workspace_not_the_seed():
    level = seed_kb() / "levels" / "MFD" / "level.json"
    trajectories, metrics = output_paths(level, "idle", None)
    ws = workspace.current()
    assert trajectories == ws.generated / "play" / "MFD" / "idle" / "trajectories.jsonl"
    assert not trajectories.resolve().is_relative_to(seed_kb())
    scenario = Path("/some/scenario/level.json")
    assert output_paths(scenario, "idle", None)[0] == Path("/some/scenario/play/idle/trajectories.jsonl")


def test_a_malformed_kb_source_is_bad_configuration_exit_2(tmp_path, monkeypatch):
    kb, _ = copy_seed(tmp_path)
    (kb / "rules" / "staggered_waves" / "meta.yaml").write_text("id: [unclosed\n")
    monkeypatch.setenv("GENESIS_KB_DIR", str(kb))
    result = CliRunner().invoke(app, ["kb", "list"])
    assert result.exit_code == 2 and "meta.yaml" in result.output and "Traceback" not in result.output
