"""Automated rubric checks. Each check is named `check:<name>` in the rubrics and returns a CriterionResult."""
from genesis.checks.context import CheckContext
from genesis.checks.registry import CHECKS, run_criteria

__all__ = ["CHECKS", "CheckContext", "run_criteria"]
