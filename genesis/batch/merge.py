"""`genesis batch merge DIR...`: one report from the shards of a Slurm-style array (or any batch
folders of one batch file), refusing folders that do not belong together."""
from __future__ import annotations

import os
import time
from pathlib import Path

from pydantic import ValidationError

from genesis.batch.queries import BatchFileError
from genesis.batch.records import QueryRecord
from genesis.batch.summary import BatchSummary, write_summary


class MergeError(BatchFileError):
    """The folders cannot be merged (missing or malformed batch.json, different batches, overlaps)."""


def read_summary(folder: Path) -> BatchSummary:
    path = Path(folder) / "batch.json"
    try:
        return BatchSummary.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise MergeError(f"{folder}: no readable batch.json ({err.strerror or err})") from None
    except ValidationError as err:
        first = err.errors()[0]
        raise MergeError(f"{path}: not a batch summary ({'.'.join(map(str, first['loc']))}: {first['msg']})") from None


def merge(folders: list[Path], out: Path) -> BatchSummary:
    """Gathers the folders' records into `out`/batch.json and batch.html; returns the merged summary."""
    if not folders:
        raise MergeError("give at least one batch folder to merge")
    parts = [(Path(f).resolve(), read_summary(f)) for f in folders]
    _check_consistent(parts)
    _check_out(Path(out), parts)
    first = parts[0][1]
    records: dict[int, QueryRecord] = {}
    shards: set[str] = set()
    for folder, s in parts:
        if s.shard:
            shards.add(s.shard)
        for q in s.queries:
            link = os.path.relpath(folder / q.report, out) if q.report else None
            records[q.index] = q.model_copy(update={"report": link})
    count = int(first.shard.split("/")[1]) if first.shard else 1
    every_shard = len(shards) == count if first.shard else True
    complete = every_shard and all(s.status == "complete" for _, s in parts) and len(records) == first.total_queries
    pending = [p for _, s in parts for p in s.pending]
    merged = BatchSummary(
        name=out.name, file=first.file, status="complete" if complete else "incomplete", started=min(s.started for _, s in parts),
        finished=time.strftime("%Y-%m-%dT%H:%M:%S"), workers=sum(s.workers for _, s in parts), model=first.model,
        wall_s=max((s.wall_s or 0.0) for _, s in parts), total_queries=first.total_queries,
        queries=[records[i] for i in sorted(records)], pending=pending, queries_digest=first.queries_digest,
        merged_from=[str(f) for f, _ in parts], kb=first.kb)
    out.mkdir(parents=True, exist_ok=True)
    write_summary(merged, out)
    return merged


def _check_out(out: Path, parts: list[tuple[Path, BatchSummary]]) -> None:
    """The merged report may replace an earlier merge, never a batch's or shard's own batch.json."""
    if out.resolve() in {folder for folder, _ in parts}:
        raise MergeError(f"--out {out} is one of the folders being merged: its batch.json would be overwritten")
    if (out / "batch.json").exists():
        try:
            existing = read_summary(out)
        except MergeError:
            raise MergeError(f"{out}/batch.json exists and is not a merged report: choose another --out") from None
        if not existing.merged_from:
            raise MergeError(f"{out}/batch.json is the record of a batch run, not a merge: choose another --out")


def _check_consistent(parts: list[tuple[Path, BatchSummary]]) -> None:
    (first_dir, first), seen_dirs = parts[0], set()
    owner: dict[int, Path] = {}
    shard_dirs: dict[str, Path] = {}
    for folder, s in parts:
        if folder in seen_dirs:
            raise MergeError(f"{folder} is given twice")
        seen_dirs.add(folder)
        if s.merged_from:
            raise MergeError(f"{folder} is itself a merge: merge the shard folders instead")
        if s.queries_digest != first.queries_digest or s.total_queries != first.total_queries:
            raise MergeError(f"{folder} ran other queries ({s.file}) than {first_dir} ({first.file})")
        if s.kb and first.kb and s.kb != first.kb:
            raise MergeError(f"{folder} used the KB {s.kb}, {first_dir} used {first.kb}: their scenarios learned from "
                             "different knowledge, so the shards are not one batch")
        if s.model != first.model:
            raise MergeError(f"{folder} used model {s.model}, {first_dir} used {first.model}: verdicts do not compare")
        if bool(s.shard) != bool(first.shard) or (s.shard and s.shard.split("/")[1] != first.shard.split("/")[1]):
            raise MergeError(f"{folder} is shard {s.shard or 'none'}, {first_dir} is shard {first.shard or 'none'}: "
                             "merge the shards of one array")
        if s.shard:
            if s.shard in shard_dirs:
                raise MergeError(f"{folder} and {shard_dirs[s.shard]} are both shard {s.shard}")
            shard_dirs[s.shard] = folder
        for q in s.queries:
            if q.index in owner:
                raise MergeError(f"query {q.index + 1} ({q.query[:60]!r}) is recorded in both {owner[q.index]} and {folder}")
            owner[q.index] = folder
