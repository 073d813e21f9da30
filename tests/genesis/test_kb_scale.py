"""The KB at scale: the incremental freshness check (manifest of sizes, mtimes and hashes), the index
on a chroma server, and commits handed to one committer."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager

import pytest
from kb_fixtures import bundle, production_bundle, rule, two_front_bundle

from genesis.kb import store as kb_store
from genesis.kb.common import KBConflictError, KBError
from genesis.kb.store import COLLECTIONS, KnowledgeBase, parse_server

HOUR_NS = 3600 * 10**9


@pytest.fixture()
def kb(tmp_path):
    kb = KnowledgeBase(tmp_path / "kb", server="")
    for b in (two_front_bundle(), production_bundle()):
        kb.commit(b)
    return kb


def _age_sources(root, by_ns=HOUR_NS):
    """Backdates every source file, as files of an older commit look on a later open."""
    for rel in kb_store.scan_sources(root):
        st = os.stat(root / rel)
        os.utime(root / rel, ns=(st.st_atime_ns, st.st_mtime_ns - by_ns))


@pytest.fixture()
def counting(monkeypatch):
    """Counts files hashed and items re-indexed."""
    seen = {"hashed": [], "indexed": []}
    digest, upsert = kb_store._file_digest, KnowledgeBase._upsert
    monkeypatch.setattr(kb_store, "_file_digest", lambda path: seen["hashed"].append(path.name) or digest(path))
    monkeypatch.setattr(KnowledgeBase, "_upsert",
                        lambda self, entries: seen["indexed"].extend(e.id for e in entries) or upsert(self, entries))
    return seen


def test_an_unchanged_kb_opens_without_reading_its_files(kb, counting):
    _age_sources(kb.root)
    kb.refresh()  # mtimes changed, contents did not: hashed once, nothing re-indexed
    assert counting["indexed"] == [] and counting["hashed"]
    counting["hashed"].clear()
    KnowledgeBase(kb.root, server="")
    assert counting["hashed"] == [] and counting["indexed"] == []


def test_an_edited_file_re_indexes_its_item_only(kb, counting):
    _age_sources(kb.root)
    kb.refresh()
    counting["hashed"].clear()
    path = kb.root / "gdds" / "tcp_production.json"
    record = json.loads(path.read_text())
    record["text"] = "Guard the lighthouse against pirates arriving by sea."
    path.write_text(json.dumps(record))
    reopened = KnowledgeBase(kb.root, server="")
    assert counting["hashed"] == ["tcp_production.json"] and counting["indexed"] == ["tcp_production"]
    assert reopened.search("gdds", "pirates attack the lighthouse", k=1)[0].id == "tcp_production"


def test_a_same_size_rewrite_with_the_old_mtime_is_caught_while_racy(kb, counting):
    """A file rewritten within the mtime tick of the manifest's scan is hashed, not trusted."""
    path = kb.root / "lessons"
    lesson = next(path.glob("*.json"))
    st = lesson.stat()
    text = lesson.read_text()
    record = json.loads(text)
    record["text"] = record["text"].upper() if record["text"] != record["text"].upper() else record["text"].lower()
    swapped = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    assert len(swapped) == len(text) and swapped != text
    lesson.write_text(swapped)
    os.utime(lesson, ns=(st.st_atime_ns, st.st_mtime_ns))
    KnowledgeBase(kb.root, server="")
    assert lesson.stem in counting["indexed"]


def test_a_deleted_item_leaves_the_index_and_a_new_one_enters_it(kb):
    (kb.root / "gdds" / "tcp_production.json").unlink()
    extra = two_front_bundle().gdd.model_copy(update={"id": "hand_made", "text": "A hand-written design about dragons."})
    (kb.root / "gdds" / "hand_made.json").write_text(json.dumps(extra.model_dump(mode="json")))
    reopened = KnowledgeBase(kb.root, server="")
    ids = sorted(reopened._index.collections["gdds"].get()["ids"])
    assert ids == ["hand_made", "mfd_two_fronts"]
    assert reopened.search("gdds", "dragons", k=1)[0].id == "hand_made"


def test_an_old_format_manifest_rebuilds_once(kb, counting):
    manifest = json.loads(kb.manifest_path.read_text())
    kb.manifest_path.write_text(json.dumps({**manifest, "format": 1}))
    KnowledgeBase(kb.root, server="")
    assert sorted(counting["indexed"]) == sorted(e.id for name in COLLECTIONS for e in kb.list(name))
    assert json.loads(kb.manifest_path.read_text())["format"] == kb_store.INDEX_FORMAT


# --- one committer -------------------------------------------------------------------------------
class LocalCommitter:
    """What the Ray actor does, in-process: one KB object commits for everyone, under a lease."""

    def __init__(self, root):
        self.kb = KnowledgeBase(root, server="")
        self.commits, self.leases = [], 0

    @contextmanager
    def writing(self):
        self.leases += 1
        with self.kb.writing():
            yield

    def commit(self, bundle, overwrite):
        self.commits.append(bundle.gdd.id if bundle.gdd else None)
        return self.kb.commit(bundle, overwrite=overwrite)

    def ensure_fresh(self):
        self.kb.refresh()


def test_commits_go_through_the_committer_and_reads_take_no_file_lock(kb, monkeypatch):
    committer = LocalCommitter(kb.root)
    worker = KnowledgeBase(kb.root, server="", committer=committer)
    real_lock = kb_store.FileLock

    def no_shared_locks(path, timeout=60.0, shared=False, **kw):
        assert not shared, "a reader behind a committer must not take file locks (untrusted across machines)"
        return real_lock(path, timeout=timeout, shared=shared, **kw)

    monkeypatch.setattr(kb_store, "FileLock", no_shared_locks)
    with worker.writing():
        gdd_id = worker.unique_id("gdds", "mfd_two_fronts")
        worker.commit(bundle(gdd_id, "Again", "Two fronts again, from a worker on another machine.", ["c"],
                             ["worker_rule"], [rule("worker_rule", "Worker rule", "From a worker.", ["c"])]))
    assert gdd_id == "mfd_two_fronts-2" and committer.commits == [gdd_id] and committer.leases == 1
    assert worker.get("rules", "worker_rule") is not None
    assert worker.search("gdds", "Two fronts again, from a worker on another machine.", k=1)[0].id == gdd_id
    with pytest.raises(KBConflictError):
        worker.commit(bundle("mfd_two_fronts", "Changed", "changed", ["c"], [], []))
    with pytest.raises(KBError, match="committer"):
        worker.rebuild()


# --- the index on a chroma server ----------------------------------------------------------------
@pytest.mark.parametrize("address,expected", [
    ("localhost:8000", ("localhost", 8000, False)), ("http://10.0.0.5:9000", ("10.0.0.5", 9000, False)),
    ("https://kb.example.org", ("kb.example.org", 443, True)), ("http://head", ("head", 8000, False))])
def test_parse_server(address, expected):
    assert parse_server(address) == expected


@pytest.mark.parametrize("address", ["ftp://x:1", "http://:80", "http://h:99999", "http://h:1/path"])
def test_bad_server_address_is_a_clear_error(address):
    with pytest.raises(KBError, match="kb_server"):
        parse_server(address)


def test_an_unreachable_server_is_a_clear_error(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(KBError, match="cannot reach the KB's chroma server"):
        KnowledgeBase(tmp_path / "kb", server=f"http://127.0.0.1:{port}")


CHROMA = "import sys; from chromadb.cli.cli import app; sys.argv[0] = 'chroma'; sys.exit(app())"


def test_the_index_on_a_chroma_server(kb, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-c", CHROMA, "run", "--path", str(tmp_path / "server"), "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    address = f"http://localhost:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                served = KnowledgeBase(kb.root, server=address)  # the embedded manifest does not count: indexed anew
                break
            except KBError:
                assert time.monotonic() < deadline and proc.poll() is None, "the chroma server did not start"
                time.sleep(0.5)
        assert json.loads(served.manifest_path.read_text())["index"] == f"server {address}"
        embedded_manifest = kb.manifest_path.read_text()
        assert served.search("gdds", "defend two fronts", k=1)[0].id == "mfd_two_fronts"
        served.commit(bundle("server_gdd", "Served", "A design committed while the index lives on the server.", ["c"], [], []))
        other = KnowledgeBase(kb.root, server=address)  # another process's view: the server's index, no rebuild
        assert other.search("gdds", "committed while the index lives on the server", k=1)[0].id == "server_gdd"
        assert sorted(other._index.collections["gdds"].get()["ids"]) == ["mfd_two_fronts", "server_gdd", "tcp_production"]
        # a process on the embedded index catches up on the commit, and leaves the server's index alone
        generation = json.loads(served.manifest_path.read_text())["generation"]
        local = KnowledgeBase(kb.root, server="")
        assert local.search("gdds", "committed while the index lives on the server", k=1)[0].id == "server_gdd"
        assert kb.manifest_path.read_text() != embedded_manifest
        assert json.loads(served.manifest_path.read_text())["generation"] == generation
    finally:
        proc.terminate()
        proc.wait(20)
