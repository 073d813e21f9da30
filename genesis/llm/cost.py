"""What a scenario's model calls cost: litellm's cost map priced per model, "unknown" for a model the
map has no price for, and nothing for the offline backend (which says so)."""
from __future__ import annotations

from typing import Any

from genesis.llm.config import OFFLINE_MODEL

OFFLINE_BASIS = "offline backend: no model is paid for"
MAP_BASIS = "estimated from litellm's cost map"


def model_cost(model: str, prompt_tokens: int, completion_tokens: int) -> tuple[float | None, str]:
    """(USD or None when unknown, how it was priced) for one model's tokens."""
    if model == OFFLINE_MODEL:
        return 0.0, OFFLINE_BASIS
    import litellm

    try:
        prompt_usd, completion_usd = litellm.cost_per_token(model=model, prompt_tokens=prompt_tokens,
                                                            completion_tokens=completion_tokens)
    except Exception:  # litellm raises for a model its map does not price (local servers, new models)
        return None, f"unknown: litellm's cost map has no price for {model}"
    return round(float(prompt_usd) + float(completion_usd), 6), MAP_BASIS


def cost_estimate(by_model: dict[str, dict[str, float]]) -> dict[str, Any]:
    """The scenario's cost: `usd` (None when a model's price is unknown), `basis` in words, and per model its
    calls, tokens, `usd` and `basis`."""
    models = {}
    for model, row in sorted(by_model.items()):
        usd, basis = model_cost(model, int(row.get("prompt_tokens", 0)), int(row.get("completion_tokens", 0)))
        models[model] = {**{k: row.get(k, 0) for k in ("calls", "prompt_tokens", "completion_tokens")},
                         "usd": usd, "basis": basis}
    unknown = [m for m, row in models.items() if row["usd"] is None]
    if not models:
        return {"usd": 0.0, "basis": "no model calls", "by_model": {}}
    if unknown:
        basis = f"unknown: litellm's cost map has no price for {', '.join(unknown)}"
    elif all(m == OFFLINE_MODEL for m in models):
        basis = OFFLINE_BASIS
    else:
        basis = MAP_BASIS + (" (the offline backend's calls cost nothing)" if OFFLINE_MODEL in models else "")
    return {"usd": None if unknown else round(sum(r["usd"] for r in models.values()), 6), "basis": basis,
            "by_model": models}


def cost_text(cost: dict[str, Any] | None) -> str:
    """One line for reports: `$0.0123 (estimated from litellm's cost map)`, `unknown (...)`."""
    if not cost:
        return "not recorded"
    usd = cost.get("usd")
    return (f"${usd:.4f}" if usd is not None else "unknown") + f" ({cost.get('basis', '')})"
