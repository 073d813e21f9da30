"""The `genesis` command leaves without the interpreter's teardown, but after everything a normal exit does first."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from genesis.process_exit import exit_status

REPO = Path(__file__).resolve().parents[2]

# A thread still running, an atexit handler, text not yet flushed, and an object whose finaliser only the
# interpreter's teardown would call.
PROBE = """
import atexit, sys, threading, time
from genesis.cli import main

class Loud:
    def __del__(self):
        print("teardown", flush=True)

keep = Loud()
atexit.register(lambda: print("atexit ran", flush=True))
threading.Thread(target=lambda: (time.sleep(0.2), print("thread finished", flush=True))).start()
sys.stdout.write("buffered;")
sys.argv = ["genesis", *sys.argv[1:]]
if sys.argv[1] == "plain":
    sys.exit(0)
main()
"""


def _probe(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, timeout=120)


def test_a_plain_exit_runs_the_teardown_the_probe_detects():
    done = _probe("plain")
    assert done.returncode == 0 and done.stdout.split() == ["buffered;thread", "finished", "atexit", "ran",
                                                            "teardown"]


def test_the_command_joins_threads_runs_atexit_and_flushes_then_skips_the_teardown():
    done = _probe("version")
    assert done.returncode == 0 and "0.1.0\n" in done.stdout   # click writes it through a stream of its own
    assert done.stdout.replace("0.1.0\n", "").split() == ["buffered;thread", "finished", "atexit", "ran"]


def test_the_commands_exit_code_and_error_survive():
    done = _probe("new", "")
    assert done.returncode == 2 and done.stderr.startswith("error: the query is empty")
    assert "teardown" not in done.stdout and "atexit ran" in done.stdout


@pytest.mark.parametrize("code,status", [(None, 0), (0, 0), (4, 4), (True, 1)])
def test_exit_status_is_what_sys_exit_gives(code, status):
    assert exit_status(code) == status


def test_a_message_as_exit_code_is_printed_and_gives_1(capsys):
    assert exit_status("cannot go on") == 1
    assert capsys.readouterr().err == "cannot go on\n"
