"""A damaged KB index (chroma.sqlite3) is derived data: opening the KB detects it and rebuilds it from
the KB's files, so `kb list`, `kb search`, `kb rebuild` and `genesis new` go on; an index that breaks
while in use is one line naming the command that rebuilds it, never a traceback."""
from __future__ import annotations

import pytest
from kb_fixtures import ffa_bundle, production_bundle, two_front_bundle
from typer.testing import CliRunner

from genesis.cli import app
from genesis.kb import store
from genesis.kb.common import KBIndexDamaged
from genesis.kb.store import KnowledgeBase


def _damage(sqlite_file) -> None:
    data = bytearray(sqlite_file.read_bytes())
    for i in range(100, len(data), 997):
        data[i] ^= 0x5A
    sqlite_file.write_bytes(bytes(data))


def _as_a_new_process(kb: KnowledgeBase) -> None:
    """Forget the open index, as a process that starts after the damage would not have it."""
    kb._index.forget()
    store._Index._instances.clear()


@pytest.fixture
def damaged_kb(tmp_path, monkeypatch):
    root = tmp_path / "kb"
    kb = KnowledgeBase(root)
    for bundle in (two_front_bundle(), production_bundle(), ffa_bundle()):
        kb.commit(bundle)
    _as_a_new_process(kb)
    _damage(root / "chroma" / "chroma.sqlite3")
    monkeypatch.setenv("GENESIS_KB_DIR", str(root))
    return root


def test_opening_a_kb_with_a_damaged_index_rebuilds_it_from_the_sources(damaged_kb):
    kb = KnowledgeBase(damaged_kb)
    hits = kb.search("gdds", "defend two fronts against waves", k=1)
    assert hits and hits[0].id == "mfd_two_fronts"


@pytest.mark.parametrize("args", [["kb", "list", "rules"], ["kb", "search", "waves from two fronts"],
                                  ["kb", "rebuild"]])
def test_kb_commands_on_a_damaged_index_work(damaged_kb, args):
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    assert "wave_spawner" in result.output or "mfd_two_fronts" in result.output or "rebuilt" in result.output


def test_an_index_that_breaks_in_use_says_which_command_rebuilds_it(damaged_kb, monkeypatch):
    kb = KnowledgeBase(damaged_kb)
    _as_a_new_process(kb)
    _damage(damaged_kb / "chroma" / "chroma.sqlite3")
    monkeypatch.setattr(store.KnowledgeBase, "_freshen_locked", lambda self: None)  # damaged after opening
    result = CliRunner().invoke(app, ["kb", "search", "waves"])
    text = " ".join(result.output.split())
    assert result.exit_code == 1 and "genesis kb rebuild" in text and "Traceback" not in text, text
    with pytest.raises(KBIndexDamaged):
        kb.search("gdds", "waves")
