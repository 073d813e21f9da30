"""`genesis kb ...`: inspect and rebuild the workspace's knowledge base (or $GENESIS_KB_DIR)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from genesis.cli_output import fail, out, print_json, print_table
from genesis.fileio import LockTimeout
from genesis.kb.common import COLLECTIONS, KBAuthError, KBError, KBSourceError

app = typer.Typer(help="Search and maintain the knowledge base of verified games.", no_args_is_help=True,
                  rich_markup_mode=None)


def _open():
    from genesis.kb.embedding import EmbeddingModelMissing
    from genesis.kb.store import KnowledgeBase
    from genesis.workspace import WorkspaceError

    try:
        return KnowledgeBase()
    except (WorkspaceError, KBSourceError, KBAuthError) as e:  # bad configuration: workspace, source or token
        fail(str(e), code=2)
    except (KBError, LockTimeout, EmbeddingModelMissing) as e:
        fail(str(e))


def _check_collection(collection: str | None) -> list[str]:
    if collection is None:
        return list(COLLECTIONS)
    if collection not in COLLECTIONS:
        fail(f"unknown collection {collection!r} (one of: {', '.join(COLLECTIONS)})", code=2)
    return [collection]


JSON_HELP = "print the result as JSON (full ids, every metadata field)"


@app.command("list")
def list_items(collection: Optional[str] = typer.Argument(None, help=f"one of {', '.join(COLLECTIONS)}; all when omitted"),
               as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """List the items of one collection, or of all."""
    names = _check_collection(collection)
    kb = _open()
    try:
        entries = [entry for name in names for entry in kb.list(name)]
    except (KBError, LockTimeout) as e:
        fail(str(e))
    if as_json:
        print_json([{"collection": e.collection, "id": e.id, "metadata": e.metadata} for e in entries])
        return
    table = Table("collection", "id", "title", "concepts", title=f"knowledge base {kb.root}")
    for entry in entries:
        meta = entry.metadata
        table.add_row(entry.collection, entry.id, str(meta.get("title", meta.get("stage", ""))),
                      str(meta.get("concepts", meta.get("tags", ""))))
    if table.row_count:
        print_table(table)
    else:
        out.print("the knowledge base is empty")


@app.command()
def search(text: str = typer.Argument(..., help="what to look for, in plain words"),
           collection: Optional[str] = typer.Option(None, "--collection", "-c", help="search one collection only"),
           k: int = typer.Option(5, "--k", "-k", min=1, help="results per collection"),
           as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Find the items closest in meaning to TEXT (similarity 0..1)."""
    names = _check_collection(collection)
    kb = _open()
    started = time.perf_counter()
    try:
        hits = sorted((h for name in names for h in kb.search(name, text, k=k)), key=lambda h: -h.score)
    except (KBError, LockTimeout, ValueError) as e:
        fail(str(e))
    if as_json:
        print_json([{"score": round(h.score, 4), "collection": h.collection, "id": h.id, "metadata": h.metadata,
                     "document": h.document} for h in hits])
        return
    table = Table("score", "collection", "id", "title", "document", title=f"{len(hits)} hits ({(time.perf_counter() - started) * 1000:.0f} ms)")
    for h in hits:
        table.add_row(f"{h.score:.3f}", h.collection, h.id, str(h.metadata.get("title", "")), h.document[:90])
    print_table(table)


def _scenario_item(item_id: str) -> str:
    """ID, or, when ID is a scenario folder's path, the KB item its run committed or reused (fast-tracked)."""
    try:
        validation = json.loads((Path(item_id).expanduser() / "validation.json").read_text(encoding="utf-8"))
        found = [((validation.get("evolution") or {}).get("committed") or {}).get("gdd"),
                 (validation.get("kb_match") or {}).get("id")]
    except (OSError, ValueError, AttributeError):
        return item_id
    return next((i for i in found if isinstance(i, str) and i), item_id)


@app.command()
def show(item_id: str = typer.Argument(..., metavar="ID", help="an id as `kb list` prints it (a scenario's folder "
                                                                 "name), or a scenario folder's path"),
         collection: Optional[str] = typer.Option(None, "--collection", "-c", help="only this collection"),
         as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Show an item: its indexed text, metadata, files and content."""
    names = _check_collection(collection)
    kb = _open()
    item_id = _scenario_item(item_id)
    try:
        entries = [e for name in names if (e := kb.get(name, item_id)) is not None]
    except (KBError, LockTimeout) as e:
        fail(str(e))
    if not entries:
        fail(f"no item {item_id!r} in {', '.join(names)} (`genesis kb list` prints the ids)")
    if as_json:
        print_json([{"collection": e.collection, "id": e.id, "document": e.document, "metadata": e.metadata,
                     "files": {key: str(path) for key, path in e.files.items()}, "data": e.data} for e in entries])
        return
    for entry in entries:
        out.rule(f"{entry.collection}/{entry.id}")
        out.print(f"[bold]indexed text:[/bold] {entry.document}", highlight=False)
        for key, value in sorted(entry.metadata.items()):
            out.print(f"[bold]{key}:[/bold] {value}", highlight=False)
        for key, path in entry.files.items():
            out.print(f"[bold]file {key}:[/bold] {path}", highlight=False)
        if entry.collection == "rules":
            out.print(entry.data["lua"], markup=False, highlight=False)
        else:
            out.print_json(json.dumps(entry.data, ensure_ascii=False))


@app.command()
def rebuild() -> None:
    """Rebuild the search index from the source files."""
    kb = _open()
    started = time.perf_counter()
    try:
        counts = kb.rebuild()
    except (KBError, LockTimeout) as e:
        fail(str(e))
    summary = ", ".join(f"{n} {name}" for name, n in counts.items())
    out.print(f"rebuilt {kb.chroma_dir}: {summary} in {time.perf_counter() - started:.2f} s")


# chromadb's own `chroma` command, run with this interpreter so the server is the installed chromadb
_CHROMA = "import sys; from chromadb.cli.cli import app; sys.argv[0] = 'chroma'; sys.exit(app())"
SERVER_START_S = 60.0


@app.command()
def serve(host: str = typer.Option("localhost", "--host", help="interface to listen on (0.0.0.0: every machine)"),
          port: int = typer.Option(8000, "--port", min=1, max=65535),
          path: Optional[Path] = typer.Option(None, "--path", help="where the server keeps the index "
                                              "(default <workspace>/.genesis/chroma-server)")) -> None:
    """Serve the knowledge base's index from a chroma server (`chroma run`) until Ctrl-C.

    Processes with kb_server set (genesis.yaml, or GENESIS_KB_SERVER=http://HOST:PORT) search it
    instead of their own embedded index; the KB's source files stay the truth. With kb_token set
    (genesis.yaml, or GENESIS_KB_TOKEN) every request must carry that token."""
    from genesis import workspace
    from genesis.kb.token_gate import Gate, TokenError, check_token, masked

    try:
        ws = workspace.ensure()
        token = workspace.setting("kb_token")
        if token:
            check_token(token)
    except (workspace.WorkspaceError, TokenError) as e:
        fail(str(e), code=2)
    data = path or ws.root / ".genesis" / "chroma-server"
    address = f"http://{'localhost' if host in ('0.0.0.0', '::') else host}:{port}"
    # with a token chroma listens on loopback only, behind the gate that checks it
    chroma_host, chroma_port = ("127.0.0.1", _free_loopback_port()) if token else (host, port)
    # chroma logs every request at INFO: that would flood the terminal `kb serve &` shares with the batch
    env = {**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "warn")}
    proc = subprocess.Popen([sys.executable, "-c", _CHROMA, "run", "--path", str(data), "--host", chroma_host,
                             "--port", str(chroma_port)], preexec_fn=_die_with_parent, env=env)
    gate = Gate(token, f"http://127.0.0.1:{chroma_port}", host, port) if token else None
    # a service manager's SIGTERM (or a closed terminal) stops the server like Ctrl-C: never an orphan
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)
    try:
        if gate is not None:
            try:
                gate.start(SERVER_START_S)
            except OSError as e:
                fail(f"{e} (is port {port} in use?)")
        _index_on(ws.kb, address, proc)
        access = f"; every request needs the token kb_token {masked(token)}" if token else ""
        out.print(f"knowledge base {ws.kb} served at {address} (index in {data}{access}); set kb_server: {address} in "
                  f"genesis.yaml or GENESIS_KB_SERVER={address} where the workers run. Ctrl-C stops it.", highlight=False)
        code = proc.wait()
    except KeyboardInterrupt:
        code = 0
    finally:
        if gate is not None:
            gate.stop()
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    raise typer.Exit(code)


def _free_loopback_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _die_with_parent() -> None:
    """In the chroma server before it starts: Linux sends it SIGTERM when `kb serve` dies, even by SIGKILL."""
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _index_on(kb_root: Path, address: str, proc: subprocess.Popen) -> None:
    """Waits for the server, then brings its index up to date with the KB's sources."""
    from genesis.kb.store import KnowledgeBase

    deadline = time.monotonic() + SERVER_START_S
    while True:
        if proc.poll() is not None:
            fail(f"the chroma server exited with code {proc.returncode} (is port {address.rsplit(':', 1)[1]} in use?)")
        try:
            KnowledgeBase(kb_root, server=address)
            return
        except KBError as e:
            if time.monotonic() > deadline or "cannot reach" not in str(e):
                fail(str(e))
            time.sleep(0.5)
