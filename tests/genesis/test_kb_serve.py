"""`genesis kb serve` owns its chroma server: SIGTERM stops it, and so does the serve process dying."""
from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from genesis.batch.command import run_command
from genesis.kb.common import KBAuthError, KBUnavailableError
from genesis.kb.store import check_server
from genesis.kb.token_gate import Gate
from genesis.workspace import copy_seed


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _gone(pid: int, timeout_s: float = 20) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a zombie left for its (dead) parent's reaper counts as stopped
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                return True
        except OSError:
            return True
        time.sleep(0.2)
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, pytest.param(signal.SIGKILL, marks=pytest.mark.slow)])
def test_the_chroma_server_stops_with_kb_serve(tmp_path, sig):
    copy_seed(tmp_path)
    (tmp_path / "genesis.yaml").write_text("")
    env = {**os.environ, "GENESIS_WORKSPACE": str(tmp_path)}
    serve = subprocess.Popen([sys.executable, "-m", "genesis", "kb", "serve", "--port", str(_free_port())], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = ""
        deadline = time.monotonic() + 120
        while "served at" not in line:
            assert time.monotonic() < deadline and serve.poll() is None, line
            line = serve.stdout.readline()
        (chroma,) = _children(serve.pid)
        os.kill(serve.pid, sig)
        serve.wait(30)
        assert _gone(chroma), "the chroma server outlived kb serve"
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()


TOKEN = "t0ken-for-the-test-0123456789"


def _serve(workspace: Path, port: int) -> tuple[subprocess.Popen, str]:
    """`kb serve` on `port`, once it says it serves; returns it and what it printed."""
    env = {**os.environ, "GENESIS_WORKSPACE": str(workspace)}
    serve = subprocess.Popen([sys.executable, "-m", "genesis", "kb", "serve", "--port", str(port)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    printed, line = [], ""
    deadline = time.monotonic() + 120
    while "served at" not in line:
        assert time.monotonic() < deadline and serve.poll() is None, "".join(printed)
        line = serve.stdout.readline()
        printed.append(line)
    return serve, "".join(printed)


REPO = Path(__file__).resolve().parents[2]


def _genesis(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """`genesis ARGS` in `cwd`, from this checkout (not whichever one is installed), with only `env`'s settings."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GENESIS_")}
    clean["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "genesis", *args], cwd=cwd, env={**clean, **env},
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def gate():
    """The token gate on a free port, in front of a chroma server that is not running."""
    port = _free_port()
    gate = Gate(TOKEN, f"http://127.0.0.1:{_free_port()}", "127.0.0.1", port)
    gate.start(30)
    yield f"http://127.0.0.1:{port}"
    gate.stop()


def test_a_client_without_the_token_is_refused_in_one_line(tmp_path, gate, monkeypatch):
    copy_seed(tmp_path)
    (tmp_path / "genesis.yaml").write_text("")
    (tmp_path / "queries.txt").write_text("defend two fronts with staggered waves\n")
    without = _genesis("kb", "search", "defend two fronts", cwd=tmp_path, GENESIS_WORKSPACE=str(tmp_path),
                       GENESIS_KB_SERVER=gate)
    assert without.returncode == 2
    assert without.stderr.strip().splitlines() == [
        f"error: the KB's chroma server {gate} needs a token: set kb_token in genesis.yaml or GENESIS_KB_TOKEN "
        "to the token `genesis kb serve` was started with"]

    with pytest.raises(KBAuthError, match="refused the token in kb_token") as refused:
        check_server(gate, "not-the-token-0123456789")
    assert "not-the-token" not in str(refused.value)

    monkeypatch.setenv("GENESIS_WORKSPACE", str(tmp_path))
    monkeypatch.setenv("GENESIS_KB_SERVER", gate)
    monkeypatch.delenv("GENESIS_KB_TOKEN", raising=False)
    said = io.StringIO()
    assert run_command(tmp_path / "queries.txt", workers=1, out=None, model_cli={},
                       console=Console(file=said, width=400)) == 2
    assert "needs a token" in said.getvalue()


def test_behind_the_gate_a_chroma_server_that_is_down_is_an_outage_not_a_refusal(gate):
    """A chroma server killed behind the gate must turn queries into retried infra errors, as without a token."""
    with pytest.raises(KBUnavailableError, match="cannot reach"):
        check_server(gate, TOKEN)


@pytest.mark.slow
def test_a_served_kb_with_a_token_serves_clients_with_it(tmp_path):
    server_ws, client_ws = tmp_path / "server", tmp_path / "client"
    for ws in (server_ws, client_ws):
        copy_seed(ws)
    (server_ws / "genesis.yaml").write_text(f"kb_token: {TOKEN}\n")
    (client_ws / "genesis.yaml").write_text("")
    port = _free_port()
    address = f"http://127.0.0.1:{port}"
    serve, printed = _serve(server_ws, port)
    try:
        assert TOKEN not in printed and "t0…89 (29 characters)" in " ".join(printed.split())
        search = ("kb", "search", "defend two fronts")
        without = _genesis(*search, cwd=client_ws, GENESIS_WORKSPACE=str(client_ws), GENESIS_KB_SERVER=address)
        assert without.returncode == 2 and "needs a token" in without.stderr
        with_token = _genesis(*search, cwd=client_ws, GENESIS_WORKSPACE=str(client_ws), GENESIS_KB_SERVER=address,
                              GENESIS_KB_TOKEN=TOKEN)
        assert with_token.returncode == 0, with_token.stderr
        assert "staggered" in with_token.stdout
    finally:
        serve.terminate()
        serve.wait(30)


@pytest.mark.parametrize("token", ["short-token", "has a space in it ok"])
def test_kb_serve_refuses_a_weak_or_unsendable_token(tmp_path, token):
    copy_seed(tmp_path)
    (tmp_path / "genesis.yaml").write_text(f"kb_token: {token}\n")
    done = _genesis("kb", "serve", "--port", str(_free_port()), cwd=tmp_path, GENESIS_WORKSPACE=str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.startswith("error: kb_token ") and token not in done.stderr

