"""Fixtures for pipeline tests: throwaway copies of the seed knowledge base and rubrics."""
import hashlib
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and "chroma" not in p.parts and not p.name.endswith(".lock"):
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.fixture
def seed_dirs(tmp_path):
    kb, rubrics = tmp_path / "kb", tmp_path / "rubrics"
    shutil.copytree(REPO / "kb", kb, ignore=shutil.ignore_patterns("chroma", "*.lock", ".txn"))
    shutil.copytree(REPO / "rubrics", rubrics)
    return kb, rubrics
