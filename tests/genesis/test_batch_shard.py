"""Slurm-style arrays: `genesis batch FILE --shard i/n` runs every n-th query; `genesis batch merge`
gathers the shards into one report and refuses folders that do not belong together (exit 2)."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from batch_fakes import RecordingPool

from genesis.batch import BatchFileError, BatchSettings, read_queries, run_batch
from genesis.batch import runner
from genesis.batch.merge import MergeError, merge
from genesis.batch.records import QueryRecord
from genesis.batch.shard import parse_shard, queries_digest
from genesis.batch.summary import BatchSummary, write_summary
from genesis.cli import app

QUERIES = ["hold the bridge", "defend two fronts", "raid the base", "capture the centre", "survive five minutes"]


@pytest.mark.parametrize("text,index,count", [("0/4", 0, 4), ("3/4", 3, 4), (" 1 / 2 ", 1, 2), ("0/1", 0, 1)])
def test_parse_shard(text, index, count):
    shard = parse_shard(text)
    assert (shard.index, shard.count, shard.folder) == (index, count, f"shard-{index}-of-{count}")


@pytest.mark.parametrize("text", ["4/4", "1/0", "-1/3", "a/b", "2", "", "1/2/3"])
def test_bad_shard_is_a_clear_error(text):
    with pytest.raises(BatchFileError, match="--shard"):
        parse_shard(text)


@pytest.fixture()
def batch_file(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "WorkerPool", RecordingPool)
    RecordingPool.jobs = []
    file = tmp_path / "queries.txt"
    file.write_text("# five queries\n" + "\n".join(QUERIES) + "\n")
    return file


def _run_shard(file, tmp_path, label):
    return run_batch(file, BatchSettings(workers=1, out=tmp_path / "array", kb_root=tmp_path, rubrics_root=tmp_path,
                                         shard=parse_shard(label)))


def test_a_shard_runs_every_nth_query_in_its_own_folder(batch_file, tmp_path):
    summary, folder = _run_shard(batch_file, tmp_path, "1/2")
    assert folder == tmp_path / "array" / "shard-1-of-2"
    assert [j.query for j in RecordingPool.jobs] == [QUERIES[1], QUERIES[3]]
    assert all(j.out_dir.parent == folder for j in RecordingPool.jobs)
    data = json.loads((folder / "batch.json").read_text())
    assert data["shard"] == "1/2" and data["total_queries"] == 5 and [q["index"] for q in data["queries"]] == [1, 3]
    assert data["queries_digest"] == queries_digest(read_queries(batch_file))


def test_merge_gathers_the_shards_into_one_report(batch_file, tmp_path):
    for label in ("0/2", "1/2"):
        _run_shard(batch_file, tmp_path, label)
    res = CliRunner().invoke(app, ["batch", "merge", str(tmp_path / "array" / "shard-0-of-2"),
                                   str(tmp_path / "array" / "shard-1-of-2")])
    assert res.exit_code == 1, res.output  # every query "crashed" in the fake pool: not playable
    data = json.loads((tmp_path / "array" / "batch.json").read_text())
    assert [q["index"] for q in data["queries"]] == [0, 1, 2, 3, 4] and data["status"] == "complete"
    assert data["aggregate"]["finished"] == 5 and data["aggregate"]["playable"] == 0
    assert len(data["merged_from"]) == 2 and (tmp_path / "array" / "batch.html").is_file()


def _summary(folder, shard, indices, *, digest="d1", model="offline", playable=True, status="complete", kb="/ws/kb"):
    records = [QueryRecord(index=i, query=QUERIES[i], slug=f"q{i}", status="playable" if playable else "failed",
                           playable=playable, generation_time_s=2.0, report=f"q{i}/report.html") for i in indices]
    summary = BatchSummary(name=folder.name, file="queries.txt", status=status, started="2026-01-01T00:00:00",
                           workers=1, model=model, total_queries=len(QUERIES), queries=records, shard=shard,
                           queries_digest=digest, kb=kb)
    folder.mkdir(parents=True)
    write_summary(summary, folder)
    return folder


def test_merged_links_point_into_the_shard_folders(tmp_path):
    a = _summary(tmp_path / "a", "0/2", [0, 2, 4])
    b = _summary(tmp_path / "b", "1/2", [1, 3])
    merged = merge([a, b], tmp_path / "out")
    assert merged.status == "complete" and merged.aggregates()["playability"] == 1.0
    assert [q.report for q in merged.queries] == ["../a/q0/report.html", "../b/q1/report.html", "../a/q2/report.html",
                                                  "../b/q3/report.html", "../a/q4/report.html"]


def test_merge_of_a_missing_or_unfinished_shard_is_incomplete(tmp_path):
    a = _summary(tmp_path / "a", "0/3", [0, 3])
    b = _summary(tmp_path / "b", "1/3", [1, 4], status="interrupted")
    merged = merge([a, b], tmp_path / "out")
    assert merged.status == "incomplete" and len(merged.queries) == 4


@pytest.mark.parametrize("make,message", [
    (lambda t: [_summary(t / "a", "0/2", [0, 2]), _summary(t / "b", "1/2", [1, 3], digest="other")], "ran other queries"),
    (lambda t: [_summary(t / "a", "0/2", [0, 2]), _summary(t / "b", "0/2", [4])], "both shard 0/2"),
    (lambda t: [_summary(t / "a", "0/2", [0, 2]), _summary(t / "b", "1/3", [1])], "merge the shards of one array"),
    (lambda t: [_summary(t / "a", None, [0, 1]), _summary(t / "b", None, [1, 2])], "recorded in both"),
    (lambda t: [_summary(t / "a", "0/2", [0]), _summary(t / "b", "1/2", [1], model="openai/gpt-4o")], "verdicts do not compare"),
    (lambda t: [_summary(t / "a", "0/2", [0]), _summary(t / "b", "1/2", [1], kb="/other/kb")], "used the KB /other/kb"),
    (lambda t: [_summary(t / "a", "0/2", [0]), t / "missing"], "no readable batch.json"),
    (lambda t: [_summary(t / "a", "0/2", [0]), t / "a"], "given twice"),
])
def test_merge_refuses_inconsistent_folders_with_exit_2(tmp_path, make, message):
    folders = make(tmp_path)
    with pytest.raises(MergeError, match=message):
        merge(folders, tmp_path / "out")
    res = CliRunner().invoke(app, ["batch", "merge", *map(str, folders), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2 and message in " ".join(res.output.split()) and "Traceback" not in res.output
    assert not (tmp_path / "out" / "batch.json").exists()


def test_merge_of_a_malformed_batch_json_is_exit_2(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "batch.json").write_text('{"name": 3}')
    res = CliRunner().invoke(app, ["batch", "merge", str(tmp_path / "a")])
    assert res.exit_code == 2 and "not a batch summary (name: Input should be a valid string)" in " ".join(res.output.split())


def test_extra_arguments_without_merge_are_exit_2(tmp_path):
    res = CliRunner().invoke(app, ["batch", str(tmp_path / "q.txt"), str(tmp_path / "x")])
    assert res.exit_code == 2 and "unexpected arguments" in res.output


def test_merge_never_overwrites_a_batch_or_shard_record(tmp_path):
    a = _summary(tmp_path / "array" / "a", "0/2", [0, 2, 4])
    b = _summary(tmp_path / "array" / "b", "1/2", [1, 3])
    before = (a / "batch.json").read_text()
    for out, message in ((a, "one of the folders being merged"), (_summary(tmp_path / "plain", None, [0]), "not a merge")):
        res = CliRunner().invoke(app, ["batch", "merge", str(a), str(b), "--out", str(out)])
        assert res.exit_code == 2 and message in " ".join(res.output.split()), res.output
    assert (a / "batch.json").read_text() == before
    merge([a, b], tmp_path / "array")
    assert merge([a, b], tmp_path / "array").status == "complete"  # an earlier merge may be replaced
