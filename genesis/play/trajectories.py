"""Trajectories as JSONL: one line per decision, usable as a fine-tuning / imitation dataset.

Line fields: seed, policy, team, decision (index within the episode), t (game seconds),
observation (the prompt text for the LLM agent, the JSON observation for scripted policies),
state (own units / hp / squads / visible enemies / resources), response (the model's raw reply or
null), actions (as executed, in order), results (one {index, ok, code, message} per action),
errors (the failed results, plus the reply-level error if the reply yielded no actions),
usage (tokens / latency of the model call or null).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from genesis.fileio import atomic_write_text
from genesis.play.episode import Episode


def _plain(value: Any) -> Any:
    """numpy scalars (from policies or the model's numbers) as Python numbers; anything else as text."""
    return value.item() if hasattr(value, "item") else str(value)


def episode_lines(ep: Episode, policy: str) -> list[str]:
    return [json.dumps({"seed": ep.seed, "policy": policy, "team": ep.team, **step.to_record()},
                       ensure_ascii=False, default=_plain) for step in ep.steps]


def write_trajectories(path: Path, lines: Iterable[str]) -> None:
    """Replace the file atomically (rewritten after each episode, so a crash keeps whole episodes)."""
    atomic_write_text(path, "".join(line + "\n" for line in lines))


def read_trajectories(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
