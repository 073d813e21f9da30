"""Knowledge base of verified artifacts (GDDs, rule scripts, levels, lessons) with offline semantic search."""
from genesis.kb.embedding import MiniLMEmbedding, embed
from genesis.kb.store import (
    COLLECTIONS,
    Bundle,
    CommitResult,
    Entry,
    GddRecord,
    Hit,
    KBCommitError,
    KBConflictError,
    KBError,
    KBSourceError,
    KnowledgeBase,
    LessonRecord,
    LevelMeta,
    LevelSource,
    ParamSpec,
    RuleMeta,
    RuleSource,
)

__all__ = [
    "COLLECTIONS", "Bundle", "CommitResult", "Entry", "GddRecord", "Hit", "KBCommitError", "KBConflictError",
    "KBError", "KBSourceError", "KnowledgeBase", "LessonRecord", "LevelMeta", "LevelSource", "MiniLMEmbedding",
    "ParamSpec", "RuleMeta", "RuleSource", "embed",
]
