"""suite.json: the certified scenarios of a batch folder as tasks (what `genesis eval` plays), the
others rejected with why."""
import json

from genesis.batch.records import QueryRecord
from genesis.batch.summary import BatchSummary, write_summary
from genesis.eval import evaluate
from genesis.eval.runner import versions
from genesis.validation_cache import level_hash
from tests.genesis.test_eval import make_suite

CERT = {"valid": True, "seeds": [0, 1, 2], "difficulty": "medium", "ladder": {"idle": 0.0, "rush": 0.33},
        "flags": [], "checks": {"reference_wins": {"passed": True, "detail": ""}, "idle_loses": {"passed": True, "detail": ""}}}
FAILED = {**CERT, "valid": False, "checks": {**CERT["checks"], "rush_wins": {"passed": False, "detail": "rush won 3/3"}}}


def record(index: int, slug: str, **fields) -> QueryRecord:
    return QueryRecord(index=index, query=f"request {index}", slug=slug, status=fields.pop("status", "playable"),
                       report=f"{slug}/report.html", **fields)


def test_batch_writes_a_suite_manifest_that_eval_plays(tmp_path):
    batch = make_suite(tmp_path / "batch")                     # FS-F and MFD as two scenario folders
    (batch / "FS-F" / "validation.json").write_text(json.dumps({"certificate": CERT}))
    (batch / "MFD" / "validation.json").write_text(json.dumps({"certificate": FAILED}))
    queries = [record(0, "FS-F", playable=True, certified=True, verdict="CERTIFIED", competency="opponent modelling",
                      difficulty="medium", backend="offline"),
               record(1, "MFD", playable=True, verdict="NOT CERTIFIED", reason="a cheap policy wins",
                      competency="spatial & temporal reasoning"),
               record(2, "cake", playable=False, status="refused", reason="not a game", verdict="NOT PLAYABLE"),
               record(3, "later", playable=False, status="infra_error", reason="endpoint down")]
    summary = BatchSummary(name="batch", file="q.txt", status="complete", started="now", workers=1, model="offline",
                           total_queries=5, queries=queries, pending=["request 4"])
    write_summary(summary, batch)

    suite = json.loads((batch / "suite.json").read_text())
    assert suite["genesis_version"] == versions()["genesis_version"]
    assert suite["engine_version"] == versions()["engine_version"]
    assert suite["backend"] == "local · offline" and suite["pending"] == 2     # not finished + no verdict yet
    [task] = suite["tasks"]
    assert task["id"] == "FS-F" and task["path"] == "FS-F" and task["request"] == "request 0"
    assert task["difficulty"] == "medium" and task["seeds"] == [0, 1, 2] and task["backend"] == "offline"
    assert task["level_hash"] == level_hash(batch / "FS-F" / "level.json")
    assert task["certificate"]["checks_passed"] == ["idle_loses", "reference_wins"]
    rejected = {r["id"]: r["why"] for r in suite["rejected"]}
    assert rejected == {"MFD": "a cheap policy wins (failed checks: rush_wins)", "cake": "not a game"}
    assert suite["coverage"]["opponent modelling"] == {"queries": 1, "playable": 1, "certified": 1}

    out = evaluate(batch, ["idle"], 1, out=tmp_path / "eval")
    assert [t.id for t in out.results.tasks] == ["FS-F"]          # the manifest's certified tasks only
