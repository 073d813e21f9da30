"""Agents playing scenarios: seeded episodes, RTSGameBench metrics, JSONL trajectories, an LLM agent."""
from genesis.play.runner import PlayError, PlayOutcome, play

__all__ = ["PlayError", "PlayOutcome", "play"]
