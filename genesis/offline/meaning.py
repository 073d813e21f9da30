"""Which scenario family a request means, by sentence meaning rather than by words.

The reader's word patterns pick a family from trigger words; when a request says its goal in words of its own
they can land on the wrong one (a production goal read as a defence because attacks are mentioned). Here each
part of the request is compared, as MiniLM sentence vectors, with examples of every family's goal
(`family_examples.yaml`); a family scores its best match over the request's parts.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import yaml

_EXAMPLES = Path(__file__).with_name("family_examples.yaml")
# a part shorter than this says too little to compare ("Ten minutes.")
_MIN_WORDS = 3
_PARTS = re.compile(r"(?<=[.;!?])\s+|:\s+|,\s+(?:and\s+|but\s+|while\s+)?")


@dataclass(frozen=True)
class FamilyReading:
    scores: dict[str, float]    # family -> best cosine similarity of any part with any of its examples
    nearest: dict[str, str]     # family -> its example closest to the request

    @property
    def best(self) -> str:
        return max(self.scores, key=self.scores.__getitem__)

    def lead(self, over: set[str]) -> float:
        """How far the best family scores above the best of `over`."""
        return self.scores[self.best] - max(self.scores[f] for f in over)


@lru_cache(maxsize=1)
def _examples() -> tuple[list[str], np.ndarray, np.ndarray]:
    from genesis.kb.encoder import embed

    data = yaml.safe_load(_EXAMPLES.read_text())
    families = [f for f, examples in data.items() for _ in examples]
    texts = [e for examples in data.values() for e in examples]
    return texts, np.array(families), embed(texts)


def parts(text: str) -> list[str]:
    """The request's sentences and clauses, and the request whole."""
    pieces = [p.strip() for p in _PARTS.split(text) if len(p.split()) >= _MIN_WORDS]
    return [*pieces, text]


def read_family(text: str) -> FamilyReading:
    from genesis.kb.encoder import embed

    texts, families, vectors = _examples()
    similarity = embed(parts(text)) @ vectors.T
    best_per_example = similarity.max(axis=0)
    scores, nearest = {}, {}
    for family in dict.fromkeys(families):
        mine = np.flatnonzero(families == family)
        top = mine[int(best_per_example[mine].argmax())]
        scores[family], nearest[family] = float(best_per_example[top]), texts[top]
    return FamilyReading(scores, nearest)
