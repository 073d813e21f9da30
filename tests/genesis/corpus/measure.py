"""The aligned fraction of the corpus: generate every request (the batch runner, offline backend) and
check each scenario folder with the independent checker.

    PYTHONPATH=tests/genesis python -m corpus.measure BATCH_DIR [BATCH_DIR ...] [--run] [--workers 2]
        [--finished-only] [--json OUT] [--family F ...] [--ids ID,ID]

Without --run it checks a batch folder that already holds the corpus's scenarios (as written by
`genesis batch` on the corpus's queries); with --run it generates them there first.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import BaseModel

from corpus.artifacts import ArtifactError
from corpus.check import Verdict, check_entry
from corpus.schema import Entry, load_corpus

TARGET = 0.9


class Row(BaseModel):
    id: str
    family: str
    request: str
    aligned: bool
    playable: bool
    silent: bool
    failures: dict[str, str]
    reported: list[str]


class Summary(BaseModel):
    total: int
    aligned: int
    fraction: float
    silent: int
    silent_playable: int
    by_family: dict[str, str]
    rows: list[Row]

    def table(self) -> str:
        lines = [f"{'id':28} {'family':18} aligned  reason"]
        for r in self.rows:
            reason = "" if r.aligned else ("; ".join(f"{k}: {v}" for k, v in r.failures.items()))[:160]
            flag = "yes" if r.aligned else ("SILENT" if r.silent else "no")
            lines.append(f"{r.id:28} {r.family:18} {flag:8} {reason}")
        lines.append("by family: " + ", ".join(f"{k} {v}" for k, v in self.by_family.items()))
        lines.append(f"aligned {self.aligned}/{self.total} = {self.fraction:.0%}; silent substitutions {self.silent} "
                     f"(of which called playable: {self.silent_playable})")
        return "\n".join(lines)


def queries_file(entries: list[Entry], path: Path) -> Path:
    path.write_text("".join(f"{e.request}\n" for e in entries), encoding="utf-8")
    return path


def generate(entries: list[Entry], batch_dir: Path, workers: int = 2, kb_root: Path | None = None,
             rubrics_root: Path | None = None) -> None:
    """Every request through the pipeline with the batch runner (one shared KB, as a user's batch)."""
    from genesis.batch.runner import BatchSettings, run_batch

    batch_dir.mkdir(parents=True, exist_ok=True)
    run_batch(queries_file(entries, batch_dir.parent / f"{batch_dir.name}-queries.txt"),
              BatchSettings(workers=workers, out=batch_dir, kb_root=kb_root, rubrics_root=rubrics_root))


def folders(batch_dir: Path) -> dict[str, Path]:
    """Request -> its finished scenario folder, from the batch's batch.json."""
    data = json.loads((batch_dir / "batch.json").read_text(encoding="utf-8"))
    return {q["query"]: batch_dir / q["slug"] for q in data.get("queries") or []}


def finished(batch_dirs: list[Path]) -> dict[str, Path]:
    """Request -> its scenario folder over several batch folders (e.g. two halves of one corpus run
    side by side); the first batch that finished a request wins."""
    out: dict[str, Path] = {}
    for d in batch_dirs:
        for query, folder in folders(d).items():
            out.setdefault(query, folder)
    return out


def _missing(entry: Entry, why: str) -> Verdict:
    return Verdict(request=entry.request, folder="", aligned=False, playable=False, refused=False,
                   failures={"generated": why}, reported=[], silent=True)


def measure(entries: list[Entry], batch_dir: Path | list[Path], finished_only: bool = False) -> Summary:
    """The corpus checked over the batch folder(s); with finished_only, entries not generated yet are
    left out of the count instead of counting as not aligned."""
    where = finished(batch_dir if isinstance(batch_dir, list) else [batch_dir])
    if finished_only:
        entries = [e for e in entries if " ".join(e.request.split()) in where]
    rows = []
    for e in entries:
        folder = where.get(" ".join(e.request.split()))
        try:
            v = check_entry(e, folder) if folder and folder.is_dir() else _missing(e, "no scenario folder in the batch")
        except ArtifactError as err:
            v = _missing(e, str(err))
        rows.append(Row(id=e.id, family=e.family, request=e.request, aligned=v.aligned, playable=v.playable,
                        silent=v.silent, failures=v.failures, reported=v.reported))
    families: dict[str, list[bool]] = {}
    for r in rows:
        families.setdefault(r.family, []).append(r.aligned)
    aligned = sum(r.aligned for r in rows)
    return Summary(total=len(rows), aligned=aligned, fraction=aligned / len(rows) if rows else 0.0,
                   silent=sum(r.silent for r in rows), silent_playable=sum(r.silent and r.playable for r in rows),
                   by_family={k: f"{sum(v)}/{len(v)}" for k, v in families.items()}, rows=rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="corpus.measure", description=__doc__.splitlines()[0])
    parser.add_argument("batch_dir", type=Path, nargs="+")
    parser.add_argument("--finished-only", action="store_true",
                        help="count only the requests the batch folders have finished (a partial run)")
    parser.add_argument("--run", action="store_true", help="generate the corpus into BATCH_DIR first")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write the summary here")
    parser.add_argument("--family", action="append", default=[], help="only the entries of this family (repeatable)")
    parser.add_argument("--ids", help="only these entry ids, comma-separated")
    args = parser.parse_args(argv)
    entries = load_corpus()
    if args.family or args.ids:
        ids = set((args.ids or "").split(","))
        entries = [e for e in entries if e.family in args.family or e.id in ids]
    if args.run:
        generate(entries, args.batch_dir[0], args.workers)
    try:
        summary = measure(entries, args.batch_dir, args.finished_only)
    except (OSError, ValueError) as err:
        print(f"corpus.measure: {str(err).splitlines()[0]}", file=sys.stderr)
        return 2
    print(summary.table())
    if args.json:
        args.json.write_text(summary.model_dump_json(indent=1), encoding="utf-8")
    return 0 if summary.fraction >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
