"""Offline sentence embeddings for the knowledge base.

The vectors are `genesis.kb.encoder`'s (all-MiniLM-L6-v2, int8 ONNX, nothing downloaded): chromadb's default
embedding function fetches a model at first use, so every collection the KB opens is given `MiniLMEmbedding`
explicitly.
"""
from __future__ import annotations

from typing import Any

from chromadb.api.types import Documents, EmbeddingFunction, Embeddings, Space
from chromadb.utils.embedding_functions import register_embedding_function

from genesis.kb.encoder import DIMENSION, MAX_TOKENS, MODEL_ID, EmbeddingModelMissing, embed, model_files

__all__ = ["DIMENSION", "MAX_TOKENS", "MODEL_ID", "EmbeddingModelMissing", "MiniLMEmbedding", "embed", "model_files"]


@register_embedding_function
class MiniLMEmbedding(EmbeddingFunction[Documents]):
    """chromadb embedding function; registered so persisted collections reopen by name offline."""

    def __init__(self, batch_size: int = 32) -> None:
        self.batch_size = int(batch_size)

    def __call__(self, input: Documents) -> Embeddings:
        return list(embed(list(input), self.batch_size))

    @staticmethod
    def name() -> str:
        return "genesis_minilm_int8"

    def get_config(self) -> dict[str, Any]:
        return {"batch_size": self.batch_size, "model": MODEL_ID}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> "MiniLMEmbedding":
        return MiniLMEmbedding(batch_size=config.get("batch_size", 32))

    @staticmethod
    def validate_config(config: dict[str, Any]) -> None:
        if config.get("model", MODEL_ID) != MODEL_ID:
            raise ValueError(f"collection was embedded with {config.get('model')!r}, not {MODEL_ID!r}")

    def default_space(self) -> Space:
        return "cosine"

    def supported_spaces(self) -> list[Space]:
        return ["cosine", "l2", "ip"]
