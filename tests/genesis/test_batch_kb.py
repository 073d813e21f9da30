"""Batch workers share one KB: concurrent commits from several processes keep it consistent."""
from __future__ import annotations

import multiprocessing as mp

from kb_fixtures import bundle, rule

from genesis.kb.store import COLLECTIONS, KnowledgeBase

WORKERS = 3
OWN_COMMITS = 2


def _ident(worker: int, n: int) -> str:
    return f"w{worker}_{n}"


def _own_bundle(worker: int, n: int):
    ident = _ident(worker, n)
    return bundle(f"gdd_{ident}", f"Scenario {ident}", f"Scenario number {ident}: a unique test request {ident}.", ["c"],
                  [f"rule_{ident}"], [rule(f"rule_{ident}", f"Rule {ident}", f"Rule for {ident}.", ["c"])])


def _shared_bundle():
    """The same artifact committed by every worker (two batch queries reusing one rule)."""
    return bundle("gdd_shared", "Shared", "A scenario every worker commits identically.", ["c"], ["rule_shared"],
                  [rule("rule_shared", "Shared rule", "Committed by all workers.", ["c"])])


def _worker(root: str, which: int, barrier, errors) -> None:
    try:
        kb = KnowledgeBase(root)  # opened before the others write: its chroma client goes stale
        kb.search("gdds", "anything", k=1)
        barrier.wait(120)
        for n in range(OWN_COMMITS):
            kb.commit(_own_bundle(which, n))
            kb.commit(_shared_bundle())
            with kb.writing():  # what the pipeline does: pick a free id and commit it under one lock
                race_id = kb.unique_id("gdds", "race")
                kb.commit(bundle(race_id, "Race", f"Race entry by worker {which} number {n}.", ["c"], [], []))
        barrier.wait(120)
        # every other worker's commits are visible to this process's long-lived client
        for other in range(WORKERS):
            for n in range(OWN_COMMITS):
                ident = _ident(other, n)
                hits = kb.search("gdds", f"Scenario number {ident}: a unique test request {ident}.", k=1)
                if not hits or hits[0].id != f"gdd_{ident}":
                    errors.put(f"worker {which}: search for gdd_{ident} found {[h.id for h in hits]}")
                if kb.get("rules", f"rule_{ident}") is None:
                    errors.put(f"worker {which}: rule_{ident} not readable")
    except BaseException as exc:  # reported to the test instead of dying silently
        errors.put(f"worker {which}: {type(exc).__name__}: {exc}")
        raise


def test_concurrent_commits_from_worker_processes_leave_a_consistent_kb(tmp_path):
    root = tmp_path / "kb"
    KnowledgeBase(root)
    ctx = mp.get_context("spawn")
    barrier, errors = ctx.Barrier(WORKERS), ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(str(root), i, barrier, errors)) for i in range(WORKERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(240)
    problems = []
    while not errors.empty():
        problems.append(errors.get())
    assert problems == [] and [p.exitcode for p in procs] == [0] * WORKERS

    kb = KnowledgeBase(root)
    sources = {name: sorted(e.id for e in kb.list(name)) for name in COLLECTIONS}
    own = sorted(f"gdd_{_ident(w, n)}" for w in range(WORKERS) for n in range(OWN_COMMITS))
    races = sorted(["race"] + [f"race-{k}" for k in range(2, WORKERS * OWN_COMMITS + 1)])
    assert sources["gdds"] == sorted(own + races + ["gdd_shared"])
    assert sources["rules"] == sorted([f"rule_{_ident(w, n)}" for w in range(WORKERS) for n in range(OWN_COMMITS)]
                                      + ["rule_shared"])
    # the index holds exactly the source items, and each one is found by its own text
    assert {name: sorted(kb._index.collections[name].get()["ids"]) for name in COLLECTIONS} == sources
    for gdd_id in own:
        assert kb.search("gdds", kb.get("gdds", gdd_id).document, k=1)[0].id == gdd_id
    # no half-committed item: every rule folder is complete, no transaction left behind
    for rule_id in sources["rules"]:
        assert {p.name for p in (root / "rules" / rule_id).iterdir()} == {"meta.yaml", "rule.lua", "test.yaml"}
    assert not (root / ".txn").exists()
    # a rebuild from the sources gives the counts the incremental commits recorded
    counts = {name: len(ids) for name, ids in sources.items()}
    assert kb.rebuild() == counts
