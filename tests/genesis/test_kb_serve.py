"""`genesis kb serve` owns its chroma server: SIGTERM stops it, and so does the serve process dying."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

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
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
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
