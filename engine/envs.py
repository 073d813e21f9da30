"""The Gymnasium ids of the engine's environment, registered on `import engine`, so that

    import gymnasium, engine
    env = gymnasium.make("genesis/Scenario-v0", level_path="kb/levels/MFD/level.json")

needs no engine module imported by hand (Gymnasium 1.x loads no plugins by entry point).

Registering needs Gymnasium's registry, and importing Gymnasium costs every engine import (the
simulator, the CLI) a few tenths of a second: when it is not imported yet, a one-shot import hook
registers the ids right after it is, whichever of the two is imported first.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import sys

ENTRY_POINT = "engine.agent.gym_env:RTSEnv"
ENV_IDS = ("genesis/Scenario-v0", "genesis-rts/Level-v0")     # the second: its earlier name


def register() -> None:
    import gymnasium as gym

    for env_id in ENV_IDS:
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=ENTRY_POINT)


class _ThenRegister(importlib.abc.Loader):
    """Gymnasium's own loader, registering the ids once the package has run."""

    def __init__(self, loader, hook):
        self.loader, self.hook = loader, hook

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        if self.hook in sys.meta_path:
            sys.meta_path.remove(self.hook)
        register()

    def __getattr__(self, name):
        return getattr(self.loader, name)


class _OnGymnasiumImport(importlib.abc.MetaPathFinder):
    """Hands out Gymnasium's spec with the loader above; stays installed until Gymnasium has run
    (a mere `find_spec("gymnasium")` elsewhere imports nothing)."""

    searching = False

    def find_spec(self, name, path=None, target=None):
        if name != "gymnasium" or self.searching:
            return None
        self.searching = True           # the search below asks every finder again, this one too
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self.searching = False
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenRegister(spec.loader, self)
        return spec


def register_when_imported() -> None:
    if "gymnasium" in sys.modules:
        register()
    elif importlib.util.find_spec("gymnasium") is not None and \
            not any(isinstance(f, _OnGymnasiumImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _OnGymnasiumImport())
