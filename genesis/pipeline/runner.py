"""Runs (or resumes) one generation: sets up the scenario folder, model client, checkpointer and graph."""
from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from genesis import rubric_store, workspace
from genesis.fileio import LockTimeout, atomic_write_json, atomic_write_text
from genesis.infra import InfraError
from genesis.llm.client import LLMClient, ModelUnavailableError
from genesis.llm.config import ModelConfig
from genesis.llm.offline_provider import set_offline_brain
from genesis.llm.transcript import Transcript
from genesis.offline.brain import OfflineBrain
from genesis.pipeline.context import RunContext
from genesis.pipeline.feedback import log_outcome
from genesis.pipeline.graph import build
from genesis.pipeline.state import checkpoint_serializer

RUN_FILE = "run.json"
MAX_QUERY_CHARS = 2000


class QueryError(ValueError):
    """The request cannot be processed at all (empty, too long)."""


class PipelineError(RuntimeError):
    """The pipeline broke on something unexpected; the scenario folder says what."""


INFRA_ERROR = "infra_error"


def _invoke(graph, payload, config, ctx: RunContext, run_id: str) -> bool:
    """Runs the graph; an unexpected failure is recorded in the scenario folder, never a bare traceback.
    Returns False when the model endpoint or another service the run needs (KB server or committer,
    a lock) stayed unavailable: the run is recorded as an infrastructure error (no verdict on the
    scenario) and can be resumed from its last checkpoint."""
    import traceback

    try:
        graph.invoke(payload, config)
    except KeyboardInterrupt:
        log_outcome(ctx, run_id, "interrupted", f"interrupted: continue with genesis resume {run_id}")
        raise
    except (ModelUnavailableError, InfraError, LockTimeout) as exc:
        log_outcome(ctx, run_id, INFRA_ERROR, str(exc))
        atomic_write_json(ctx.out_dir / "validation.json", {
            "playable": False, "status": INFRA_ERROR, "run_id": run_id,
            "reason": f"{exc}. This is no verdict on the scenario: continue with genesis resume {run_id}",
            "backend": {role: ctx.client.backend_name(role) for role in ctx.client.config.roles},
            "usage": ctx.client.usage.record()})
        return False
    except Exception as exc:
        atomic_write_text(ctx.out_dir / "error.log", traceback.format_exc())
        log_outcome(ctx, run_id, "error", f"{type(exc).__name__}: {exc}")
        atomic_write_json(ctx.out_dir / "validation.json", {
            "playable": False, "status": "error", "run_id": run_id,
            "reason": f"{type(exc).__name__}: {exc}",
            "backend": {role: ctx.client.backend_name(role) for role in ctx.client.config.roles},
            "usage": ctx.client.usage.record()})
        raise PipelineError(f"{type(exc).__name__}: {exc} (details in {ctx.out_dir / 'error.log'}; "
                            f"after fixing the cause, continue with: genesis resume {run_id})") from exc
    return True


def _infra_outcome(ctx: RunContext, run_id: str) -> Outcome:
    return Outcome(INFRA_ERROR, ctx.out_dir, run_id, json.loads((ctx.out_dir / "validation.json").read_text()))


def check_query(query: str) -> str:
    q = " ".join((query or "").split())
    if not q:
        raise QueryError("the query is empty: describe the scenario you want, e.g. "
                         "genesis new \"defend two fronts with staggered waves\"")
    if len(q) > MAX_QUERY_CHARS:
        raise QueryError(f"the query is {len(q):,} characters long; the limit is {MAX_QUERY_CHARS:,}. "
                         "Summarise the scenario in a few sentences")
    return q


def slugify(text: str) -> str:
    """A folder name for a query: its ASCII words, plus a short hash of the whole query when the
    words lose part of it (letters outside a-z such as accents or other scripts, or more than 60
    characters) or nothing is left, so different queries get different folders."""
    lowered = text.lower()
    words = re.sub(r"[^a-z0-9]+", "-", lowered).strip("-")
    lossy = not words or len(words) > 60 or any(ch.isalnum() and not ch.isascii() for ch in lowered)
    if not lossy:
        return words
    digest = hashlib.sha256(text.strip().encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{words[:51].rstrip('-') or 'scenario'}-{digest}"


@dataclass
class Outcome:
    status: str
    out_dir: Path
    run_id: str
    validation: dict[str, Any]
    questions: list[str] | None = None


def _client(model_cli: dict[str, Any], out_dir: Path, replay: Path | None) -> LLMClient:
    from genesis.llm.config import load_config

    set_offline_brain(OfflineBrain())
    config: ModelConfig = load_config(model_cli)
    transcript = Transcript(out_dir / "transcript.jsonl")
    return LLMClient(config, transcript, replay=Transcript.load(replay) if replay else None)


def _graph(ctx: RunContext, out_dir: Path):
    saver, conn = _checkpointer(out_dir)
    return build(ctx, saver), conn


def _checkpointer(out_dir: Path):
    """The `checkpointer` setting: sqlite (default; `checkpoints.sqlite` in the scenario folder) or a
    postgres:// URL (one database for every run, e.g. of a cluster; needs langgraph-checkpoint-postgres).
    Returns the saver and the connection to close."""
    from genesis.llm.config import ConfigError

    target = workspace.setting("checkpointer") or "sqlite"
    if target == "sqlite":
        conn = sqlite3.connect(out_dir / "checkpoints.sqlite", check_same_thread=False)
        return SqliteSaver(conn, serde=checkpoint_serializer()), conn
    if not target.startswith(("postgres://", "postgresql://")):
        raise ConfigError(f"checkpointer {target!r}: use sqlite or a postgres:// URL")
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg import Connection
        from psycopg.rows import dict_row
    except ImportError:
        raise ConfigError("a postgres checkpointer needs: pip install langgraph-checkpoint-postgres") from None
    try:  # the options PostgresSaver requires of a connection it does not open itself
        conn = Connection.connect(target, autocommit=True, prepare_threshold=0, row_factory=dict_row)
    except Exception as exc:  # psycopg.OperationalError and friends: the message says what is wrong
        raise ConfigError(f"cannot connect to the postgres checkpointer: {exc}") from None
    saver = PostgresSaver(conn, serde=checkpoint_serializer())
    saver.setup()  # creates or migrates its tables; idempotent
    return saver, conn


def _finish(graph, config, ctx: RunContext, run_id: str) -> Outcome:
    snapshot = graph.get_state(config)
    if snapshot.next:  # paused at an interrupt: questions for the user
        questions = []
        for task in snapshot.tasks:
            for intr in task.interrupts:
                questions += intr.value.get("questions", [])
        return Outcome("waiting", ctx.out_dir, run_id, {}, questions=questions)
    values = snapshot.values
    validation = json.loads((ctx.out_dir / "validation.json").read_text()) if (ctx.out_dir / "validation.json").exists() else {}
    return Outcome(values.get("status", "failed"), ctx.out_dir, run_id, validation)


def start(query: str, *, out: Path | None = None, model_cli: dict[str, Any] | None = None, seed: int = 0,
          interactive: bool = False, progress: Callable | None = None, kb_root: Path | None = None,
          rubrics_root: Path | None = None, options: dict[str, Any] | None = None,
          replay: Path | None = None, register: bool = True) -> Outcome:
    """Generates one scenario. With no `out`, `kb_root`, `rubrics_root` they come from the workspace
    (seeded on first use); `register` records the run in the workspace's run index for `resume`."""
    query = check_query(query)
    ws = workspace.current()
    if out is None or kb_root is None or rubrics_root is None:
        workspace.ensure(ws)
    kb_root, rubrics_root = Path(kb_root or ws.kb).resolve(), Path(rubrics_root or ws.rubrics).resolve()
    rubric_store.load_all(rubrics_root)  # a broken rubric is bad configuration: refuse before any work
    run_id = f"{slugify(query)[:40].rstrip('-')}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
    out_dir = (Path(out) if out else ws.generated / slugify(query)).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in ("validation.json", "transcript.jsonl", "checkpoints.sqlite"):
        (out_dir / stale).unlink(missing_ok=True)
    opts = {"seed": seed, "interactive": interactive, **(options or {})}
    atomic_write_json(out_dir / RUN_FILE, {"run_id": run_id, "query": query, "model_cli": model_cli or {},
                                           "options": opts, "kb_root": str(kb_root),
                                           "rubrics_root": str(rubrics_root)})
    if register:
        workspace.register_run(run_id, out_dir, ws)
    ctx = RunContext(_client(model_cli or {}, out_dir, replay), out_dir, kb_root, rubrics_root, progress)
    graph, conn = _graph(ctx, out_dir)
    config = {"configurable": {"thread_id": run_id}, "recursion_limit": 100}
    try:
        if not _invoke(graph, {"query": query, "run_id": run_id, "out_dir": str(out_dir), "options": opts,
                               "status": "running", "iterations": 0}, config, ctx, run_id):
            return _infra_outcome(ctx, run_id)
        return _finish(graph, config, ctx, run_id)
    finally:
        ctx.close()
        conn.close()


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


def resume(run_id_or_dir: str, *, answers: list[str] | None = None, progress: Callable | None = None) -> Outcome:
    out_dir = find_run(run_id_or_dir)
    meta = json.loads((out_dir / RUN_FILE).read_text())
    kb_root = Path(meta["kb_root"]) if meta.get("kb_root") else None
    rubrics_root = Path(meta["rubrics_root"]) if meta.get("rubrics_root") else None
    ctx = RunContext(_client(meta.get("model_cli", {}), out_dir, None), out_dir, kb_root, rubrics_root, progress)
    graph, conn = _graph(ctx, out_dir)
    config = {"configurable": {"thread_id": meta["run_id"]}, "recursion_limit": 100}
    try:
        snapshot = graph.get_state(config)
        if not snapshot.next and snapshot.values.get("status") not in (None, "running"):
            return _finish(graph, config, ctx, meta["run_id"])
        if not _invoke(graph, Command(resume=answers or []) if answers is not None else None, config, ctx,
                       meta["run_id"]):
            return _infra_outcome(ctx, meta["run_id"])
        return _finish(graph, config, ctx, meta["run_id"])
    finally:
        ctx.close()
        conn.close()
