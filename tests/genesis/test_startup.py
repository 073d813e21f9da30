"""`genesis --help` stays fast: the CLI loads no heavy library until a command needs it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("chromadb", "litellm", "langgraph", "onnxruntime", "tokenizers", "numpy", "lupa", "PIL", "engine")


def _loaded_after(code: str) -> list[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_the_cli_loads_no_heavy_library():
    assert _loaded_after("import genesis.cli") == []


def test_help_of_every_command_loads_no_heavy_library():
    code = ("from genesis.cli import app\n"
            "for args in (['--help'], ['kb', '--help'], ['rubrics', '--help'], ['new', '--help'], ['batch', '--help']):\n"
            "    try:\n        app(args)\n    except SystemExit:\n        pass")
    assert _loaded_after(code) == []
