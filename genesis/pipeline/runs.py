"""Finding a run's folder from its id or the folder itself (for `genesis resume`), without loading the pipeline."""
from __future__ import annotations

import json
import time
from pathlib import Path

from genesis import workspace

RUN_FILE = "run.json"


def find_run(run_id_or_dir: str) -> Path:
    """A run's folder from the folder itself or its run id: the workspace's run index (runs written
    anywhere with --out), then the workspace's generated/ tree (scenarios and batches)."""
    candidate = Path(run_id_or_dir).expanduser()
    if (candidate / RUN_FILE).is_file():
        return candidate.resolve()
    ws = workspace.current()
    registered = workspace.registered_run(run_id_or_dir, ws)
    if registered is not None and _run_id_of(registered) == run_id_or_dir:
        return registered
    for run_file in _run_files(ws.generated):
        if _run_id_of(run_file.parent) == run_id_or_dir:
            return run_file.parent
    raise FileNotFoundError(f"no run {run_id_or_dir!r}: not a scenario folder, not in the run index of the workspace "
                            f"{ws.describe()} nor under {ws.generated}/ (give the scenario folder, or the run id "
                            "from its run.json)")


def _run_files(root: Path):
    """run.json files of scenarios (generated/<slug>/) and of batch queries (generated/batches/<name>/<slug>/)."""
    yield from root.glob(f"*/{RUN_FILE}")
    yield from root.glob(f"batches/*/*/{RUN_FILE}")


def _run_id_of(folder: Path) -> str | None:
    try:
        meta = json.loads((folder / RUN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta.get("run_id") if isinstance(meta, dict) else None


REFUSALS_LOG = "refusals.jsonl"


def record_refusal(ws: workspace.Workspace, outcome, query: str) -> Path:
    """A refused request leaves one line in the workspace's refusals log instead of a scenario folder."""
    path = ws.root / REFUSALS_LOG
    validation = outcome.validation or {}
    line = json.dumps({"time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "run_id": outcome.run_id,
                        "query": query, "reason": validation.get("reason", ""),
                        "backend": validation.get("backend")}, ensure_ascii=False)
    with path.open("a", encoding="utf-8") as f:   # one write per line: concurrent runs do not interleave
        f.write(line + "\n")
    return path


class OutFolderError(ValueError):
    """--out names a folder holding files that are not a scenario of the same request."""


def check_out_folder(out_dir: Path, query: str) -> None:
    """An empty or missing folder, or one holding a scenario of this same request (a re-run), may be written;
    anything else would be overwritten without a word, so it is refused (the CLI's --force skips this)."""
    out_dir = Path(out_dir).expanduser()
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise OutFolderError(f"--out {out_dir} is a file, not a folder")
    if not any(out_dir.iterdir()):
        return
    try:
        meta = json.loads((out_dir / RUN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        meta = None
    if isinstance(meta, dict) and meta.get("query") == query:
        return
    what = (f"a scenario of another request ({str(meta.get('query'))[:80]!r})" if isinstance(meta, dict)
            else "files that are not a scenario")
    raise OutFolderError(f"--out {out_dir} holds {what}: choose an empty or new folder, or add --force to write "
                         "the scenario into it anyway (files of the same names are replaced)")
