"""Competency scores and decision analysis of played episodes (DSGBench-style diagnostics).

Competency: read from the scenario (meta.yaml next to the level, else gdd.json, else the level's
metadata), and scored with the paper's metrics for it (Table 4): resource management WR + AT,
spatial & temporal reasoning WR + DE, opponent modelling RS + DE, collaboration WR + DE,
adversarial planning WR + AT.

Decision analysis, from the recorded decisions:
- valid-action rate over time: valid / (valid + invalid) actions per quarter of the time limit
  (a reply that yielded no actions counts as one invalid action, as in the metrics);
- correction after an invalid action: of the decisions that follow a decision with an invalid
  action, the share that repeat none of its error codes;
- action mix: how often each action kind was issued (valid or not).
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from genesis.fileio import parse_yaml, read_json_object
from genesis.play.episode import Episode

COMPETENCY_METRICS = {
    "resource_management": ("win_rate", "avg_time_to_objective_s"),
    "spatial_temporal_reasoning": ("win_rate", "damage_efficiency"),
    "opponent_modelling": ("rank_score", "damage_efficiency"),
    "collaboration": ("win_rate", "damage_efficiency"),
    "adversarial_planning": ("win_rate", "avg_time_to_objective_s"),
}
TIME_BINS = 4


def _canonical(name: str) -> str:
    key = name.strip().lower().replace("&", " ").replace("-", " ")
    key = "_".join(w for w in key.split() if w != "and")
    return {"opponent_modeling": "opponent_modelling", "spatial_temporal": "spatial_temporal_reasoning"}.get(key, key)


def competency_of(level_path: Path, metadata: dict) -> str | None:
    """The competency the scenario targets, as one of COMPETENCY_METRICS' keys (None if unknown)."""
    folder = Path(level_path).parent
    candidates = [(_meta_yaml(folder / "meta.yaml") or {}).get("competency"),
                  (read_json_object(folder / "gdd.json") or {}).get("competency"), metadata.get("competency")]
    for c in candidates:
        if isinstance(c, str) and _canonical(c) in COMPETENCY_METRICS:
            return _canonical(c)
    return None


def _meta_yaml(path: Path) -> dict | None:
    """meta.yaml as a mapping; None when missing or damaged (the competency is only a label: a damaged
    file must not stop the games)."""
    try:
        data = parse_yaml(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def competency_score(competency: str | None, summary: dict) -> dict[str, Any] | None:
    if competency is None:
        return None
    primary, auxiliary = COMPETENCY_METRICS[competency]
    return {"competency": competency, "primary": {"metric": primary, "value": summary.get(primary)},
            "auxiliary": {"metric": auxiliary, "value": summary.get(auxiliary)}}


def _decision_errors(step) -> list[str]:
    codes = [r["code"] for r in step.results if not r["ok"]]
    return codes + ([step.error_code] if step.error_code else [])


def decision_analysis(episodes: list[Episode], time_limit: float) -> dict[str, Any]:
    valid = [0] * TIME_BINS
    invalid = [0] * TIME_BINS
    mix: Counter[str] = Counter()
    followed = corrected = 0
    for ep in episodes:
        previous: list[str] | None = None
        for step in ep.steps:
            b = min(int(step.t / time_limit * TIME_BINS), TIME_BINS - 1) if time_limit > 0 else 0
            errors = _decision_errors(step)
            invalid[b] += len(errors)
            valid[b] += sum(1 for r in step.results if r["ok"])
            mix.update(a.get("action") if isinstance(a, dict) and isinstance(a.get("action"), str) else "malformed"
                       for a in step.actions)
            if previous:
                followed += 1
                corrected += not set(previous) & set(errors)
            previous = errors
    total = sum(mix.values())
    return {
        "valid_action_rate_by_quarter": [round(v / (v + i), 4) if v + i else None for v, i in zip(valid, invalid)],
        "after_invalid": {"decisions": followed, "corrected": corrected,
                          "correction_rate": round(corrected / followed, 4) if followed else None},
        "action_mix": {k: {"count": n, "share": round(n / total, 4)} for k, n in sorted(mix.items())},
    }
