"""`genesis eval`: evaluate agents on a suite of scenarios, with a results file and a leaderboard."""
from genesis.eval.agents import AgentSpecError, resolve_agent
from genesis.eval.runner import EvalError, evaluate

__all__ = ["AgentSpecError", "EvalError", "evaluate", "resolve_agent"]
