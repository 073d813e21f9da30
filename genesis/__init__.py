"""Genesis: turns free-form requests into validated RTS mini-games for the built-in engine."""
__version__ = "0.1.0"
