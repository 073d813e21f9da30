"""Everything a check may look at; stages fill in what they have."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genesis.models import GDD, Brief, RuleArtifact, VisualVerdict
from genesis.simulate import SimRun


@dataclass
class CheckContext:
    brief: Brief | None = None
    gdd: GDD | None = None
    rules: list[RuleArtifact] = field(default_factory=list)
    level: dict[str, Any] | None = None
    level_path: Path | None = None
    runs: list[SimRun] = field(default_factory=list)
    rule_test_results: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    visual: VisualVerdict | None = None
    known_rules: set[str] = field(default_factory=set)
    params: dict[str, float] = field(default_factory=dict)   # the running criterion's thresholds
    kb_root: Path | None = None      # where library rules live (a GDD-stage preview runs them)
    certificate: dict[str, Any] | None = None   # the level's validity certificate (genesis.certificate)
    difficulty: str | None = None               # the band the request or --difficulty asks for
    difficulty_search: dict[str, Any] | None = None   # the knob search for that band (genesis.difficulty)
