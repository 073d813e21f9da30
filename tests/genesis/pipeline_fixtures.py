"""Fixtures for pipeline tests: throwaway copies of the shipped seed knowledge base and rubrics."""
import hashlib
from pathlib import Path

import pytest

from genesis.workspace import copy_seed


def tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and "chroma" not in p.parts and not p.name.endswith(".lock"):
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.fixture
def seed_dirs(tmp_path):
    return copy_seed(tmp_path)
