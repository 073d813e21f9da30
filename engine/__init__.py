"""Genesis RTS engine: a deterministic, headless real-time-strategy simulator for mini-games.

    from engine import load_level, Simulation
    level = load_level("level.json")
    result = Simulation(level, seed=0).run()
"""
import importlib

from engine.envs import register_when_imported

__all__ = ["Level", "RunResult", "Simulation", "load_level"]
# Loaded on first use: importing a light submodule (engine.errors, for a CLI's error message) must not load
# the simulator and NumPy.
_HOME = {"Level": "engine.level", "load_level": "engine.level", "RunResult": "engine.result", "Simulation": "engine.sim"}


def __getattr__(name: str):
    if name in _HOME:
        return getattr(importlib.import_module(_HOME[name]), name)
    raise AttributeError(f"module 'engine' has no attribute {name!r}")

register_when_imported()        # gymnasium.make("genesis/Scenario-v0", ...) without importing the env module
