"""Settings a cluster run needs: kb_server and checkpointer from the environment or genesis.yaml, and
the checkpointer they select (sqlite by default; postgres only with its optional package)."""
from __future__ import annotations

import importlib.util
import sqlite3

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from genesis import workspace
from genesis.llm.config import ConfigError, load_config
from genesis.pipeline import runner


def test_settings_come_from_the_environment_before_the_config_file(tmp_path, monkeypatch):
    (tmp_path / "genesis.yaml").write_text("kb_server: http://head:8000\ncheckpointer: sqlite\nmodel: offline\n")
    monkeypatch.setenv("GENESIS_WORKSPACE", str(tmp_path))
    monkeypatch.delenv("GENESIS_KB_SERVER", raising=False)
    monkeypatch.delenv("GENESIS_CHECKPOINTER", raising=False)
    assert workspace.setting("kb_server") == "http://head:8000" and workspace.setting("checkpointer") == "sqlite"
    load_config({})  # the model settings accept a genesis.yaml that also names the services
    monkeypatch.setenv("GENESIS_KB_SERVER", "http://other:9000")
    assert workspace.setting("kb_server") == "http://other:9000"


def test_no_setting_means_none(tmp_path, monkeypatch):
    monkeypatch.setenv("GENESIS_WORKSPACE", str(tmp_path))
    monkeypatch.delenv("GENESIS_KB_SERVER", raising=False)
    assert workspace.setting("kb_server") is None


def test_the_default_checkpointer_is_sqlite_in_the_scenario_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("GENESIS_CHECKPOINTER", raising=False)
    saver, conn = runner._checkpointer(tmp_path)
    try:
        assert isinstance(saver, SqliteSaver) and isinstance(conn, sqlite3.Connection)
        assert (tmp_path / "checkpoints.sqlite").exists()
    finally:
        conn.close()


def test_an_unknown_checkpointer_is_bad_configuration(tmp_path, monkeypatch):
    monkeypatch.setenv("GENESIS_CHECKPOINTER", "mysql://db/x")
    with pytest.raises(ConfigError, match="sqlite or a postgres:// URL"):
        runner._checkpointer(tmp_path)


@pytest.mark.skipif(importlib.util.find_spec("langgraph.checkpoint.postgres") is not None,
                    reason="langgraph-checkpoint-postgres is installed")
def test_postgres_without_its_package_names_the_package(tmp_path, monkeypatch):
    monkeypatch.setenv("GENESIS_CHECKPOINTER", "postgresql://user@db:5432/genesis")
    with pytest.raises(ConfigError, match="pip install langgraph-checkpoint-postgres"):
        runner._checkpointer(tmp_path)
