"""The knowledge base: sources as truth, derived chroma index, atomic and concurrent commits."""
from __future__ import annotations

import json
import multiprocessing as mp
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from kb_fixtures import bundle, ffa_bundle, production_bundle, rule, two_front_bundle
from rich.console import Console
from typer.testing import CliRunner

from genesis.kb import cli as kb_cli
from genesis.kb import store as kb_store
from genesis.kb.cli import app as kb_app
from genesis.kb.store import COLLECTIONS, KBCommitError, KBConflictError, KBSourceError, KnowledgeBase, sources_hash


@pytest.fixture()
def kb(tmp_path) -> KnowledgeBase:
    kb = KnowledgeBase(tmp_path / "kb")
    for b in (two_front_bundle(), production_bundle(), ffa_bundle()):
        kb.commit(b)
    return kb


def _snapshot(kb: KnowledgeBase) -> tuple[str, dict[str, list[str]], list[str]]:
    """Sources hash, index ids per collection, and the ranking of one query."""
    index_ids = {}
    for name in COLLECTIONS:
        index_ids[name] = sorted(kb._index.collections[name].get()["ids"])
    return sources_hash(kb.root), index_ids, [h.id for h in kb.search("gdds", "defend two fronts", k=5)]


def _source_ids(kb: KnowledgeBase) -> dict[str, list[str]]:
    return {name: [e.id for e in kb.list(name)] for name in COLLECTIONS}


def test_search_ranks_two_front_gdd_over_production(kb):
    hits = kb.search("gdds", "defend two fronts", k=3)
    assert [h.id for h in hits][0] == "mfd_two_fronts"
    scores = {h.id: h.score for h in hits}
    assert scores["mfd_two_fronts"] > scores["tcp_production"]
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert hits[0].metadata["rule_ids"] == "wave_spawner"  # lists are stored as comma strings
    assert kb.search("rules", "periodic enemy attack waves", k=1)[0].id == "wave_spawner"
    assert [h.id for h in kb.search("levels", "defend", where={"map": "open_field"})] == ["tcp_production"]


def test_get_and_list_read_the_sources(kb):
    rule_entry = kb.get("rules", "wave_spawner")
    assert rule_entry.data["lua"].startswith("-- Wave spawner")
    assert rule_entry.data["tests"] == {"cases": [{"name": "starts", "expect": "message"}]}
    assert rule_entry.files["lua"] == kb.root / "rules" / "wave_spawner" / "rule.lua"
    assert kb.get("gdds", "mfd_two_fronts").data["gdd"]["competency"] == "multi_front_defense"
    assert kb.get("gdds", "missing") is None
    assert _source_ids(kb)["gdds"] == ["ffa_four", "mfd_two_fronts", "tcp_production"]
    assert [e.collection for e in kb.find("mfd_two_fronts")] == ["gdds", "levels"]


def test_index_is_rebuilt_from_sources_when_missing_or_stale(kb):
    root = kb.root
    kb._index.close()
    import shutil

    shutil.rmtree(root / "chroma")
    reopened = KnowledgeBase(root)
    assert reopened.search("gdds", "defend two fronts", k=1)[0].id == "mfd_two_fronts"
    # a hand edit of a source file makes the index stale: the next open re-indexes it
    path = root / "gdds" / "ffa_four.json"
    record = json.loads(path.read_text())
    record["text"] = "Hold the line on two fronts: defend against attackers from the north and from the east."
    record["title"] = "Edited"
    path.write_text(json.dumps(record))
    reopened = KnowledgeBase(root)
    assert reopened.search("gdds", "hold the line on two fronts", k=1)[0].metadata["title"] == "Edited"
    assert reopened.rebuild() == {"gdds": 3, "rules": 2, "levels": 3, "lessons": 1}


def test_malformed_source_names_the_file(kb):
    bad = kb.root / "rules" / "wave_spawner" / "meta.yaml"
    bad.write_text("id: wave_spawner\ntitle: x\n")  # description missing
    with pytest.raises(KBSourceError, match=r"meta\.yaml: description"):
        kb.rebuild()


def test_recommit_is_idempotent_and_conflicts_are_refused(kb):
    result = kb.commit(two_front_bundle())
    assert result.added == [] and len(result.unchanged) == 4
    changed = two_front_bundle()
    changed.rules[0].lua += "-- changed\n"
    with pytest.raises(KBConflictError, match="rules/wave_spawner"):
        kb.commit(changed)
    assert "changed" not in kb.get("rules", "wave_spawner").data["lua"]
    result = kb.commit(changed, overwrite=True)
    assert result.replaced == [("rules", "wave_spawner")]
    assert "changed" in kb.get("rules", "wave_spawner").data["lua"]


def test_gdd_must_reference_known_rules(kb):
    before = _snapshot(kb)
    orphan = bundle("orphan", "Orphan", "text", ["x"], ["no_such_rule"], [])
    with pytest.raises(KBCommitError, match="no_such_rule"):
        kb.commit(orphan)
    reuse = bundle("reuse", "Reuse", "A GDD reusing the stored wave spawner.", ["waves"], ["wave_spawner"], [])
    assert kb.commit(reuse).added == [("gdds", "reuse")]  # a rule already in the KB resolves
    assert _snapshot(kb)[0] != before[0]


def _new_bundle():
    return bundle("air_raid", "Air raid defence", "Defend the base against bomber raids using anti-air turrets.",
                  ["air", "defense"], ["bomber_raid"],
                  [rule("bomber_raid", "Bomber raid", "Sends bombers at the base every interval.", ["air", "waves"])])


def test_failure_while_moving_files_changes_nothing(kb, monkeypatch):
    before = _snapshot(kb)
    real_place, calls = kb_store._place, []

    def flaky_place(staged, target, backup):
        calls.append(target)
        if len(calls) == 2:
            raise OSError("simulated crash mid-commit")
        real_place(staged, target, backup)

    monkeypatch.setattr(kb_store, "_place", flaky_place)
    with pytest.raises(KBCommitError, match="nothing was changed"):
        kb.commit(_new_bundle())
    assert len(calls) == 2  # the rule folder had been moved in before the failure
    assert _snapshot(kb) == before
    assert not (kb.root / "rules" / "bomber_raid").exists()
    assert not (kb.root / ".txn").exists()


def test_failure_while_indexing_rolls_back_files_and_index(kb, monkeypatch):
    before = _snapshot(kb)
    real_upsert, calls = KnowledgeBase._upsert, []

    def failing_upsert(self, entries):
        calls.append(len(entries))
        if len(calls) > 1:  # the rebuild after the rollback works
            return real_upsert(self, entries)
        real_upsert(self, entries[:1])  # part of the bundle reaches the index first
        raise RuntimeError("simulated index failure")

    monkeypatch.setattr(KnowledgeBase, "_upsert", failing_upsert)
    with pytest.raises(KBCommitError, match="indexing"):
        kb.commit(_new_bundle())
    monkeypatch.setattr(KnowledgeBase, "_upsert", real_upsert)
    assert len(calls) > 1  # the index was rebuilt from the restored sources
    assert _snapshot(kb) == before
    assert KnowledgeBase(kb.root).search("rules", "bombers", k=5)[0].id != "bomber_raid"


KILLED_COMMIT = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {fixtures!r})
    from kb_fixtures import bundle, rule
    from genesis.kb.store import KnowledgeBase
    kb = KnowledgeBase({root!r})
    KnowledgeBase._upsert = lambda self, entries: os._exit(9)   # the process dies mid-commit
    kb.commit(bundle("air_raid", "Air raid", "Bombers.", ["air"], ["bomber_raid"],
                     [rule("bomber_raid", "Bomber raid", "Sends bombers.", ["air"])]))
""")


def test_killed_commit_is_rolled_back_on_next_open(kb):
    before = _snapshot(kb)
    kb._index.close()
    script = KILLED_COMMIT.format(fixtures=str(Path(__file__).parent), root=str(kb.root))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 9, proc.stderr
    assert (kb.root / "rules" / "bomber_raid").exists()  # half-committed on disk ...
    reopened = KnowledgeBase(kb.root)  # ... until the journal is replayed
    assert not (kb.root / "rules" / "bomber_raid").exists()
    assert _snapshot(reopened) == before


COMMITS_PER_WORKER = 1


def _commit_worker(root: str, which: int) -> None:
    from kb_fixtures import bundle, rule

    kb = KnowledgeBase(root)
    for n in range(COMMITS_PER_WORKER):
        ident = f"w{which}_{n}"
        kb.commit(bundle(f"gdd_{ident}", f"Scenario {ident}", f"Scenario number {ident} with its own rule.", ["c"],
                         [f"rule_{ident}"], [rule(f"rule_{ident}", f"Rule {ident}", f"Rule for {ident}.", ["c"])]))


def test_concurrent_commits_from_several_processes(kb):
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_commit_worker, args=(str(kb.root), i)) for i in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    sources = _source_ids(kb)
    assert len(sources["gdds"]) == 3 + 3 * COMMITS_PER_WORKER and len(sources["rules"]) == 2 + 3 * COMMITS_PER_WORKER
    _, index_ids, _ = _snapshot(kb)  # this process sees the other processes' writes
    assert index_ids == sources
    assert KnowledgeBase(kb.root).search("gdds", "Scenario number w2_0", k=1)[0].id == "gdd_w2_0"


REOPEN_OFFLINE = textwrap.dedent("""
    import os, socket, warnings
    os.environ["HF_HUB_OFFLINE"] = "1"
    def refuse(*args, **kwargs):
        raise RuntimeError("network access attempted")
    socket.socket.connect = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    warnings.simplefilter("error")
    from genesis.kb.store import KnowledgeBase
    kb = KnowledgeBase({root!r})
    print(kb.search("gdds", "defend two fronts", k=1)[0].id)
""")


def test_persisted_index_reopens_in_new_process_offline(kb):
    manifest = json.loads((kb.root / "chroma" / "manifest.json").read_text())
    proc = subprocess.run([sys.executable, "-c", REOPEN_OFFLINE.format(root=str(kb.root))],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "mfd_two_fronts"
    # it reused the index instead of rebuilding it
    assert json.loads((kb.root / "chroma" / "manifest.json").read_text())["generation"] == manifest["generation"]


def test_cli(kb, monkeypatch):
    monkeypatch.setenv("GENESIS_KB_DIR", str(kb.root))
    monkeypatch.setattr(kb_cli, "out", Console(width=250))  # keep table cells on one line
    runner = CliRunner()
    res = runner.invoke(kb_app, ["search", "defend two fronts", "--collection", "gdds", "--k", "2"])
    assert res.exit_code == 0 and "mfd_two_fronts" in res.output
    res = runner.invoke(kb_app, ["list", "rules"])
    assert res.exit_code == 0 and "wave_spawner" in res.output and "composition_goal" in res.output
    res = runner.invoke(kb_app, ["show", "wave_spawner"])
    assert res.exit_code == 0 and "function on_start" in res.output
    res = runner.invoke(kb_app, ["rebuild"])
    assert res.exit_code == 0 and "3 gdds" in res.output
    res = runner.invoke(kb_app, ["show", "nothing_here"])
    assert res.exit_code == 1 and "no item 'nothing_here'" in res.output and "Traceback" not in res.output
    res = runner.invoke(kb_app, ["list", "nope"])
    assert res.exit_code == 2 and "unknown collection" in res.output
