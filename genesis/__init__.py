"""Genesis: turns free-form requests into validated RTS mini-games for the built-in engine."""
import os

# litellm fetches a price map from the network at import unless told to use its local copy.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__version__ = "0.1.0"
