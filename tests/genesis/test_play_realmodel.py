"""The LLM player against a real local model (SmolLM2-135M behind llama.cpp's OpenAI server).

Opt-in: `pytest -m realmodel tests/genesis/test_play_realmodel.py`; skips when llama-cpp-python or
the GGUF is missing (see realmodel_server.py). Such a tiny model plays badly: this proves the path
end to end (prompt fits, replies parsed or counted as invalid, the episode finishes), not skill.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from realmodel_server import MODEL_ALIAS, api_base  # noqa: F401 (fixture)

from genesis.play import play
from genesis.play.llm_agent import REPLY_ERRORS, LLMSettings
from genesis.play.trajectories import read_trajectories

pytestmark = pytest.mark.realmodel
MFD = Path(__file__).resolve().parents[2] / "kb" / "levels" / "MFD"


def test_real_model_plays_an_episode_to_its_end(api_base, tmp_path):
    settings = LLMSettings(model=f"openai/{MODEL_ALIAS}", api_base=api_base, max_tokens=200, timeout=120,
                           num_retries=0, vision=False)
    out = play(MFD, "llm", 1, decision_interval=50.0, llm_settings=settings, out=tmp_path)
    row = out.rows[0]
    assert row.outcome in ("win", "loss") and row.decisions >= 1
    assert row.llm["calls"] == 2 * row.decisions        # memory phase + decision phase
    lines = read_trajectories(out.trajectories_path)
    assert len(lines) == row.decisions
    for line in lines:
        # every decision either got a reply or is counted as a failed call
        assert line["response"] is not None or line["errors"][-1]["code"] == "llm_error"
    reply_errors = sum(n for code, n in row.invalid_by_code.items() if code in REPLY_ERRORS)
    assert reply_errors <= row.decisions and row.actions_invalid >= reply_errors
