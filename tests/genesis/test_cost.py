"""Every scenario records its tokens, calls and an estimated cost: litellm's price, "unknown" for a model
without one, and nothing for the offline backend, which says so."""
from __future__ import annotations

import pytest

from genesis.llm.config import OFFLINE_MODEL
from genesis.llm.cost import MAP_BASIS, OFFLINE_BASIS, cost_estimate, cost_text
from genesis.llm.usage import Usage


def test_a_priced_model_is_estimated_from_litellms_cost_map():
    import litellm

    prompt, completion = litellm.cost_per_token(model="gpt-4o-mini", prompt_tokens=1000, completion_tokens=200)
    cost = cost_estimate({"gpt-4o-mini": {"calls": 2, "prompt_tokens": 1000, "completion_tokens": 200}})
    assert cost["usd"] == pytest.approx(prompt + completion) and cost["usd"] > 0
    assert cost["basis"] == MAP_BASIS and cost["by_model"]["gpt-4o-mini"]["calls"] == 2


def test_a_model_without_a_price_is_unknown_not_free():
    cost = cost_estimate({"openai/my-local-model": {"calls": 1, "prompt_tokens": 10, "completion_tokens": 5},
                          OFFLINE_MODEL: {"calls": 3, "prompt_tokens": 0, "completion_tokens": 0}})
    assert cost["usd"] is None and "openai/my-local-model" in cost["basis"]
    assert cost_text(cost).startswith("unknown (")


def test_the_offline_backend_costs_nothing_and_says_so():
    usage = Usage()
    usage.record_call("gdd", ok=True, prompt_tokens=5, completion_tokens=7, model=OFFLINE_MODEL)
    record = usage.record()
    assert record["total"]["calls"] == 1 and record["total"]["prompt_tokens"] == 5
    assert record["cost"]["usd"] == 0.0 and record["cost"]["basis"] == OFFLINE_BASIS
    assert cost_text(record["cost"]) == f"$0.0000 ({OFFLINE_BASIS})"


def test_the_batch_sums_known_costs_and_counts_the_unknown(tmp_path):
    from genesis.batch.records import _cost

    assert _cost({"usage": {"cost": {"usd": None, "basis": "unknown: x"}}}) == {"cost_usd": None,
                                                                               "cost_basis": "unknown: x"}
    assert _cost({"usage": {"total": {"cost_usd": 0.5}}})["cost_usd"] == 0.5
