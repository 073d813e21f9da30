"""Runs (or resumes) one generation: sets up the scenario folder, model client, checkpointer and graph."""
from __future__ import annotations

import json
import shutil
import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from genesis import workspace
from genesis.fileio import LockTimeout, atomic_write_json, atomic_write_text
from genesis.infra import InfraError
from genesis.llm.client import LLMClient, ModelConfigurationError, ModelUnavailableError
from genesis.llm.config import ConfigError, ModelConfig, load_config
from genesis.llm.preflight import check_models
from genesis.llm.offline_provider import install_embedded_brain
from genesis.llm.transcript import ReplayMismatch, Transcript
from genesis.pipeline.context import RunContext
from genesis.pipeline.feedback import log_outcome
from genesis.pipeline.folder_lock import sole_writer
from genesis.pipeline.graph import build
from genesis.pipeline.query import MAX_QUERY_CHARS, QueryError, check_query, slugify  # noqa: F401 (re-exported)
from genesis.pipeline.run_checks import checked_config
from genesis.pipeline.runs import RUN_FILE, find_run, record_refusal  # noqa: F401 (re-exported)
from genesis.pipeline.state import checkpoint_serializer


class ReplayError(ValueError):
    """The `--replay` transcript does not fit the run (bad input: no resume can fix it)."""


class PipelineError(RuntimeError):
    """The pipeline broke on something unexpected; the scenario folder says what."""


INFRA_ERROR = "infra_error"
CONFIG_ERROR = "config_error"   # the provider refused the model settings: no verdict


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
    except ReplayMismatch as exc:
        log_outcome(ctx, run_id, "error", f"--replay: {exc}")
        atomic_write_json(ctx.out_dir / "validation.json", {
            "playable": False, "status": "error", "run_id": run_id, "reason": f"--replay: {exc}",
            "backend": {role: ctx.client.backend_name(role) for role in ctx.client.config.roles},
            "usage": ctx.client.usage.record()})
        raise ReplayError(f"--replay: {exc}") from None
    except ModelConfigurationError as exc:
        atomic_write_json(ctx.out_dir / "validation.json", {
            "playable": False, "status": CONFIG_ERROR, "run_id": run_id,
            "reason": f"{exc}. This is no verdict on the scenario: fix the model settings, then continue with "
                      f"genesis resume {run_id}",
            "backend": {role: ctx.client.backend_name(role) for role in ctx.client.config.roles},
            "usage": ctx.client.usage.record()})
        raise ConfigError(f"{exc}; after fixing it, continue with: genesis resume {run_id}") from None
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


@dataclass
class Outcome:
    status: str
    out_dir: Path
    run_id: str
    validation: dict[str, Any]
    questions: list[str] | None = None
    record: Path | None = None     # a refusal's line in the workspace's refusals log (its folder is removed)


def _client(config: ModelConfig, out_dir: Path, replay: Path | None) -> LLMClient:
    install_embedded_brain()
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


def _first_state(query: str, run_id: str, out_dir: Path, options: dict[str, Any]) -> dict[str, Any]:
    return {"query": query, "run_id": run_id, "out_dir": str(out_dir), "options": options, "status": "running",
            "iterations": 0}


def start(query: str, *, out: Path | None = None, model_cli: dict[str, Any] | None = None, seed: int = 0,
          interactive: bool = False, progress: Callable | None = None, kb_root: Path | None = None,
          rubrics_root: Path | None = None, options: dict[str, Any] | None = None,
          replay: Path | None = None, register: bool = True, config: ModelConfig | None = None) -> Outcome:
    """Generates one scenario. With no `out`, `kb_root`, `rubrics_root` they come from the workspace
    (seeded on first use); `register` records the run in the workspace's run index for `resume`; `config`:
    what `checked_config` returned for this run (the CLI checks before loading the pipeline), else checked here."""
    query = check_query(query)
    ws = workspace.current()
    if out is None or kb_root is None or rubrics_root is None:
        workspace.ensure(ws)
    kb_root, rubrics_root = Path(kb_root or ws.kb).resolve(), Path(rubrics_root or ws.rubrics).resolve()
    if config is None:   # a broken rubric or model setting is bad configuration: refused before any work
        config = checked_config(model_cli or {}, replay, rubrics_root)
    run_id = f"{slugify(query)[:40].rstrip('-')}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
    out_dir = (Path(out) if out else ws.generated / slugify(query)).resolve()
    fresh = not out_dir.exists()
    with sole_writer(out_dir):  # refused before this run writes anything into a folder another one writes
        out_dir.mkdir(parents=True, exist_ok=True)
        for stale in ("validation.json", "transcript.jsonl", "checkpoints.sqlite"):
            (out_dir / stale).unlink(missing_ok=True)
        shutil.rmtree(out_dir / "play", ignore_errors=True)   # games of the level this run replaces
        opts = {"seed": seed, "interactive": interactive, **(options or {})}
        atomic_write_json(out_dir / RUN_FILE, {"run_id": run_id, "query": query, "model_cli": model_cli or {},
                                               "options": opts, "kb_root": str(kb_root),
                                               "rubrics_root": str(rubrics_root)})
        if register:
            workspace.register_run(run_id, out_dir, ws)
        ctx = RunContext(_client(config, out_dir, replay), out_dir, kb_root, rubrics_root, progress)
        graph, conn = _graph(ctx, out_dir)
        graph_config = {"configurable": {"thread_id": run_id}, "recursion_limit": 100}
        try:
            if not _invoke(graph, _first_state(query, run_id, out_dir, opts), graph_config, ctx, run_id):
                return _infra_outcome(ctx, run_id)
            outcome = _finish(graph, graph_config, ctx, run_id)
        finally:
            ctx.close()
            conn.close()
    if outcome.status == "refused" and fresh:
        outcome.record = record_refusal(ws, outcome, query)
        if out is None:   # a folder the caller named (a batch's per-query record) stays
            shutil.rmtree(out_dir, ignore_errors=True)
            workspace.forget_run(run_id, ws)
    return outcome


def resume(run_id_or_dir: str, *, answers: list[str] | None = None, progress: Callable | None = None) -> Outcome:
    out_dir = find_run(run_id_or_dir)
    with sole_writer(out_dir):
        meta = json.loads((out_dir / RUN_FILE).read_text())
        kb_root = Path(meta["kb_root"]) if meta.get("kb_root") else None
        rubrics_root = Path(meta["rubrics_root"]) if meta.get("rubrics_root") else None
        config = load_config(meta.get("model_cli", {}))
        check_models(config)
        ctx = RunContext(_client(config, out_dir, None), out_dir, kb_root,
                         rubrics_root, progress)
        graph, conn = _graph(ctx, out_dir)
        config = {"configurable": {"thread_id": meta["run_id"]}, "recursion_limit": 100}
        try:
            snapshot = graph.get_state(config)
            if not snapshot.next and snapshot.values.get("status") not in (None, "running"):
                return _finish(graph, config, ctx, meta["run_id"])
            if not snapshot.values and not snapshot.next:
                # killed before its first checkpoint: nothing to continue, so the run starts over
                payload: Any = _first_state(meta["query"], meta["run_id"], out_dir, meta.get("options") or {})
            else:
                payload = Command(resume=answers or []) if answers is not None else None
            if not _invoke(graph, payload, config, ctx, meta["run_id"]):
                return _infra_outcome(ctx, meta["run_id"])
            return _finish(graph, config, ctx, meta["run_id"])
        finally:
            ctx.close()
            conn.close()
