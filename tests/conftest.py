"""Suite-wide settings."""
import os

# The validity certificate adds about ten simulations to every playable generation. Pipeline tests
# that do not look at it skip it (validation.json then says so); tests/genesis/test_certificate.py
# runs it directly and through one full generation.
os.environ.setdefault("GENESIS_CERTIFICATE", "off")
