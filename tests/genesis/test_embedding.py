"""The offline MiniLM embedding function."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import numpy as np

from genesis.kb.embedding import DIMENSION, MiniLMEmbedding, embed


def test_vectors_are_deterministic_and_unit_length():
    texts = ["Defend the base against two waves.", "Produce ten tanks before the deadline.", ""]
    a, b = embed(texts), embed(list(reversed(texts)))[::-1]
    assert a.shape == (3, DIMENSION)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert np.allclose(a, b, atol=1e-6)  # independent of batch order and padding length
    assert np.array_equal(embed(texts[:1]), embed(texts[:1]))


def test_similar_texts_are_closer_than_dissimilar():
    query, near, far = embed([
        "defend two fronts",
        "protect your objectives from enemy attacks coming from two directions",
        "build metal extractors and produce a tank army",
    ])
    assert query @ near > query @ far + 0.2


def test_chromadb_protocol_round_trip():
    from chromadb.utils.embedding_functions import known_embedding_functions

    ef = MiniLMEmbedding(batch_size=8)
    assert not ef.is_legacy()
    assert known_embedding_functions[MiniLMEmbedding.name()] is MiniLMEmbedding
    rebuilt = MiniLMEmbedding.build_from_config(ef.get_config())
    assert rebuilt.get_config() == ef.get_config()
    vectors = ef(["hello", "world"])
    assert len(vectors) == 2 and len(vectors[0]) == DIMENSION
    assert ef.default_space() == "cosine"


def test_collection_create_and_reopen_without_warnings(tmp_path):
    import chromadb
    from chromadb.config import Settings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        client = chromadb.PersistentClient(path=str(tmp_path), settings=Settings(anonymized_telemetry=False))
        col = client.create_collection("things", embedding_function=MiniLMEmbedding())
        col.add(ids=["a"], documents=["an apple"])
        client.close()
        client = chromadb.PersistentClient(path=str(tmp_path), settings=Settings(anonymized_telemetry=False))
        col = client.get_collection("things", embedding_function=MiniLMEmbedding())
        assert col.query(query_texts=["fruit"], n_results=1)["ids"] == [["a"]]
        client.close()


OFFLINE_SCRIPT = textwrap.dedent("""
    import os, socket, warnings
    os.environ["HF_HUB_OFFLINE"] = "1"
    def refuse(*args, **kwargs):
        raise RuntimeError("network access attempted")
    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    warnings.simplefilter("error")
    from genesis.kb.embedding import embed
    vec = embed(["offline sentence"])
    print("ok", vec.shape)
""")


def test_works_with_network_disabled():
    proc = subprocess.run([sys.executable, "-c", OFFLINE_SCRIPT], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "ok (1, 384)" in proc.stdout
