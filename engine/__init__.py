"""Genesis RTS engine: a deterministic, headless real-time-strategy simulator for mini-games.

    from engine import load_level, Simulation
    level = load_level("level.json")
    result = Simulation(level, seed=0).run()
"""
from engine.level import Level, load_level
from engine.result import RunResult
from engine.sim import Simulation

__all__ = ["Level", "RunResult", "Simulation", "load_level"]
