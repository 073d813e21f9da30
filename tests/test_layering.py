"""Package boundaries: the engine stands alone, and the offline backend is a model provider like any other."""
import ast
from pathlib import Path

import pytest

from genesis.models import UNIT_KINDS
from genesis.offline.vocabulary import UNIT_KIND_TRIGGERS

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _importers(package: str, *, under: str) -> list[str]:
    found = []
    for path in sorted((ROOT / under).rglob("*.py")):
        if any(n == package or n.startswith(package + ".") for n in _imports(path)):
            found.append(str(path.relative_to(ROOT)))
    return found


def test_the_engine_never_imports_genesis():
    assert _importers("genesis", under="engine") == []


def test_only_the_provider_registration_imports_the_offline_backend():
    outside = [p for p in _importers("genesis.offline", under="genesis") if not p.startswith("genesis/offline/")]
    assert outside == ["genesis/llm/offline_provider.py"]


@pytest.mark.parametrize("kind", sorted(set(UNIT_KINDS) | set(UNIT_KIND_TRIGGERS)))
def test_every_unit_kind_a_brief_may_name_has_offline_phrases_and_back(kind):
    assert kind in UNIT_KINDS and kind in UNIT_KIND_TRIGGERS
