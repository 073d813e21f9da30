"""Genesis RTS engine: a deterministic, headless real-time-strategy simulator for mini-games.

    from engine import load_level, Simulation
    level = load_level("level.json")
    result = Simulation(level, seed=0).run()
"""
from engine.envs import register_when_imported
from engine.level import Level, load_level
from engine.result import RunResult
from engine.sim import Simulation

__all__ = ["Level", "RunResult", "Simulation", "load_level"]

register_when_imported()        # gymnasium.make("genesis/Scenario-v0", ...) without importing the env module
