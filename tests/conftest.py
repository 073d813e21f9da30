"""Suite-wide settings and safety net: every test runs against a throwaway workspace, never the per-user one, the
source tree's kb/ and rubrics/, or a workspace or model configuration of the machine running the tests."""
import os

import pytest

# The validity certificate adds ten to thirty simulations to every playable generation. Pipeline tests
# that do not look at it skip it (validation.json then says so); tests/genesis/test_certificate.py
# runs it directly and through one full generation.
os.environ.setdefault("GENESIS_CERTIFICATE", "off")

_OUTER = ("GENESIS_WORKSPACE", "GENESIS_KB_DIR", "GENESIS_RUBRICS_DIR", "GENESIS_CONFIG")


@pytest.fixture(scope="session", autouse=True)
def throwaway_workspace(tmp_path_factory):
    saved = {name: os.environ.pop(name, None) for name in _OUTER}
    root = tmp_path_factory.mktemp("workspace")
    os.environ["GENESIS_WORKSPACE"] = str(root)
    yield root
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session", autouse=True)
def shipped_seed_untouched():
    """No test may write into the shipped seed (the source tree's kb/ and rubrics/, ignored files included)."""
    from genesis.workspace import seed_kb, seed_rubrics
    from tests.genesis.pipeline_fixtures import tree_hash

    roots = (seed_kb(), seed_rubrics())
    before = [tree_hash(r) for r in roots]
    yield
    changed = [str(r) for r, h in zip(roots, before) if tree_hash(r) != h]
    assert not changed, f"the test session wrote into the shipped seed: {changed}"
