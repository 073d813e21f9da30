"""`genesis new` end to end through litellm against a real local model (SmolLM2-135M on llama.cpp).

Opt-in: `pytest -m realmodel tests/genesis/test_realmodel_pipeline.py -s` (setup in realmodel_server.py);
skips when llama-cpp-python or the GGUF is missing. A 135M model writes poor designs, so the run may
end either way: what must hold is a clean exit (0 playable, 1 not playable, never a traceback), a
verdict that says why, the real model named as the backend, every model call in transcript.jsonl,
and the repository's kb/ and rubrics/ untouched. Each test prints its wall time and call count.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml
from realmodel_server import MODEL_ALIAS, api_base  # noqa: F401 (fixture)

from genesis.workspace import copy_seed, seed_kb, seed_rubrics
from genesis.pipeline.nodes import TOTAL_BUDGET
from tests.genesis.pipeline_fixtures import tree_hash

pytestmark = [pytest.mark.realmodel, pytest.mark.timeout(3600)]

QUERY = "defend two fronts with staggered waves"
REAL = f"openai/{MODEL_ALIAS}"
RUN_TIMEOUT_S = 3000
# Settings for a 135M model on a busy 2-core machine: greedy decoding (reproducible), one retry per
# call, short replies, and a per-call timeout long enough for a ~2k-token prompt at ~15 tokens/s.
SMALL_MODEL_ENV = {"GENESIS_TEMPERATURE": "0", "GENESIS_MAX_RETRIES": "1", "GENESIS_MAX_TOKENS": "1024",
                   "GENESIS_TIMEOUT": "600"}


@pytest.fixture
def workdir():
    # Not tmp_path: a run takes minutes, and concurrent pytest sessions prune old basetemp folders.
    with tempfile.TemporaryDirectory(prefix="genesis-realmodel-") as tmp:
        yield Path(tmp)


@pytest.fixture
def repo_untouched(workdir):
    """The run works on a throwaway KB and rubrics: the repository's own must not change."""
    rubrics_before = tree_hash(seed_rubrics())
    yield
    assert tree_hash(seed_rubrics()) == rubrics_before, "the run changed the repo rubrics/"
    # kb/ is checked by provenance rather than by hash (people edit seed entries while tests run):
    # everything a run commits to a KB carries its run id.
    run_id = json.loads((workdir / "out" / "run.json").read_text())["run_id"]
    touched = [p for p in seed_kb().rglob("*") if p.is_file() and "chroma" not in p.parts
               and run_id.encode() in p.read_bytes()]
    assert not touched, f"the run wrote to the repo kb/: {touched[:3]}"


def run_cli(workdir: Path, args: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess, float]:
    """`genesis new QUERY --out OUT ARGS` in a clean environment on a copy of the seed KB and rubrics."""
    kb, rubrics = copy_seed(workdir / "seed")
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("GENESIS_")}
    # HOME and cwd in workdir: no user or project genesis.yaml leaks into the run.
    full_env = {**base_env, "HOME": str(workdir), "GENESIS_KB_DIR": str(kb), "GENESIS_RUBRICS_DIR": str(rubrics),
                **SMALL_MODEL_ENV, **env}
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", "from genesis.cli import main; main()", "new", QUERY,
                           "--out", str(workdir / "out"), *args],
                          cwd=workdir, env=full_env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    return proc, time.perf_counter() - started


def check_outcome(workdir: Path, proc: subprocess.CompletedProcess, wall_s: float, real_roles: set[str]) -> dict:
    out = workdir / "out"
    assert proc.returncode in (0, 1), f"exit {proc.returncode}\n{proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    validation = json.loads((out / "validation.json").read_text())
    assert isinstance(validation["playable"], bool)
    assert validation["playable"] == (proc.returncode == 0)
    if not validation["playable"]:
        assert isinstance(validation["reason"], str) and validation["reason"].strip()
        assert "NOT PLAYABLE" in proc.stderr or "REFUSED" in proc.stderr
    for role, backend in validation["backend"].items():
        assert backend == (REAL if role in real_roles else "offline"), (role, backend)
    # The total budget holds whatever the model says: no run takes more stage attempts, and the last
    # one only finishes (the level passed) or stops.
    decisions = validation.get("decisions", [])
    assert len(decisions) <= TOTAL_BUDGET
    for total, decision in enumerate(decisions, 1):
        if total >= TOTAL_BUDGET:
            assert decision["decision"] == "stop" or decision["target_stage"] == "done", decision

    records = [json.loads(line) for line in (out / "transcript.jsonl").read_text().splitlines() if line.strip()]
    total = validation["usage"]["total"]
    assert len(records) == total["calls"] >= 1
    assert sum(not r["ok"] for r in records) == total["failed_calls"]
    assert [r["call"] for r in records] == sorted(r["call"] for r in records)
    for r in records:
        assert r["role"] and r["skill"] and r["stage"] and r["messages"], r
        assert r["backend"] == (REAL if r["role"] in real_roles else "offline"), r
        assert (r["response_text"] is not None) or r["error"], r  # the response, or why there is none
        assert r["ok"] == (r["output"] is not None), r
    assert {r["role"] for r in records} & real_roles, "no call reached the real model"
    real = [r for r in records if r["role"] in real_roles]
    summary = {"wall_s": round(wall_s, 1), "exit": proc.returncode, "playable": validation["playable"],
               "reason": validation["reason"][:300], "calls": total["calls"], "real_calls": len(real),
               "failed_calls": total["failed_calls"], "prompt_tokens": total["prompt_tokens"],
               "completion_tokens": total["completion_tokens"],
               "model_latency_s": round(sum(r["latency_ms"] for r in real) / 1000, 1)}
    print("\nREALMODEL " + json.dumps(summary))
    return validation


def test_new_with_every_agent_on_the_real_model(api_base, workdir, repo_untouched):  # noqa: F811
    proc, wall = run_cli(workdir, ["--model", REAL, "--api-base", api_base], env={})
    check_outcome(workdir, proc, wall, real_roles={"pm", "designer", "developer", "analyst"})


@pytest.mark.parametrize("role", ["pm", "developer"])
def test_one_real_role_others_offline_via_config_file(api_base, workdir, repo_untouched, role):  # noqa: F811
    # Per-role settings from a config file: only one role talks to the model. The PM gates every
    # stage and runs the retrospective; the developer writes Lua rules and the level.
    config = workdir / "genesis.yaml"
    config.write_text(yaml.safe_dump({"roles": {role: {"model": REAL, "api_base": api_base}}}))
    proc, wall = run_cli(workdir, [], env={"GENESIS_CONFIG": str(config)})
    validation = check_outcome(workdir, proc, wall, real_roles={role})
    # Whoever decides, no failing stage is waved through: each stage's last gate decision follows its verdict.
    last = {d["stage"]: d for d in validation.get("decisions", [])}
    for stage, decision in last.items():
        if decision["decision"] == "advance":
            assert validation["stages"][stage]["passed"], decision
