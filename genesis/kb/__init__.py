"""Knowledge base of verified artifacts (GDDs, rule scripts, levels, lessons) with offline semantic search.

Names are imported on first use: the embedding loads chromadb, which `genesis --help` must not pay for.
"""
from __future__ import annotations

import importlib
from typing import Any

_EMBEDDING = ("MiniLMEmbedding", "embed")
_STORE = ("COLLECTIONS", "Bundle", "CommitResult", "Entry", "GddRecord", "Hit", "KBCommitError", "KBConflictError",
          "KBError", "KBSourceError", "KnowledgeBase", "LessonRecord", "LevelMeta", "LevelSource", "ParamSpec",
          "RuleMeta", "RuleSource")

__all__ = [*_STORE, *_EMBEDDING]


def __getattr__(name: str) -> Any:
    if name in _EMBEDDING:
        return getattr(importlib.import_module("genesis.kb.embedding"), name)
    if name in _STORE:
        return getattr(importlib.import_module("genesis.kb.store"), name)
    raise AttributeError(f"module 'genesis.kb' has no attribute {name!r}")
