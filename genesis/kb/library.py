"""KB concepts the pipeline shares: a design's concept signature and the library rules a developer reuses."""
from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from genesis.models import Concepts, RuleArtifact, RuleDraft, RuleTest
from genesis.rule_recipe import RuleRecipe, recipe_params

# A stored design fast-tracks a request with the same concept signature when their texts are at least
# this similar. Calibrated on paraphrase pairs and near-misses (tests/genesis/test_fast_track_calibration.py):
# same-signature requests for another game score at most ~0.38, paraphrases at least ~0.52.
FAST_TRACK_MIN_SCORE = 0.45

# The rule shown to the developer as a complete worked example of a verified rule with its tests.
WORKED_EXAMPLE_RULE = "resource_income"


def signature(concepts: dict | Concepts) -> str:
    """What must match for a stored design to serve a new request unchanged: every concept the reader
    took from the request (named sides and flanks, their times, deadlines, hold times, raid targets, the
    protected unit, growth, ...), so a design is never reused for a request that asked something else;
    a concept added later counts as soon as it exists. Order-free lists are compared sorted."""
    c = concepts if isinstance(concepts, Concepts) else Concepts.model_validate(concepts)
    d = c.model_dump(mode="json")
    d["wave_times"] = sorted(float(t) for t in c.wave_times)   # 180 and 180.0 are the same moment
    d["target_composition"] = dict(sorted(c.target_composition.items()))
    return json.dumps(d, sort_keys=True)


class LibraryRule(BaseModel):
    """A verified KB rule as the developer sees it: its source, metadata and typed tests."""

    id: str
    source: str
    meta: dict[str, Any]
    tests: list[RuleTest]


def library_rule(entry) -> LibraryRule:
    meta = entry.data["meta"] if isinstance(entry.data["meta"], dict) else entry.data["meta"].model_dump()
    tests = entry.data.get("tests") or {}
    return LibraryRule(id=entry.id, source=entry.data["lua"], meta=meta,
                       tests=tests.get("tests", []) if isinstance(tests, dict) else [])


def composed_rule(kb, recipe: RuleRecipe, params: dict[str, Any]):
    """A verified rule composed earlier for a recipe of the same shape (its concepts hold the recipe's
    signature) that declares every param of the recipe and every one of `params`, else None: composed
    rules read every value as a param, so it serves this recipe too."""
    sig, needed = recipe.signature(), set(recipe_params(recipe)) | set(params)
    for e in kb.list("rules"):
        meta = library_rule(e).meta
        if sig in (meta.get("concepts") or []) and needed <= set(meta.get("params") or {}):
            return e
    return None


class UnknownLibraryRule(ValueError):
    """A draft reuses a library rule the KB does not hold."""


def artifact_from_draft(draft: RuleDraft, kb) -> RuleArtifact:
    """The rule artifact a draft stands for: a reused library rule keeps its verified source and tests."""
    if draft.reuse is None:
        assert draft.source is not None and draft.meta is not None  # RuleDraft's validator guarantees both
        return RuleArtifact(id=draft.id, source=draft.source, params=draft.params, tests=draft.tests,
                            meta=draft.meta.model_dump(mode="json"))
    entry = kb.get("rules", draft.reuse)
    if entry is None:
        known = ", ".join(e.id for e in kb.list("rules"))
        raise UnknownLibraryRule(f"rule {draft.id}: no library rule {draft.reuse!r} (the library has: {known})")
    lib = library_rule(entry)
    return RuleArtifact(id=draft.id, source=lib.source, params=draft.params, tests=lib.tests, meta=lib.meta,
                        reused_from=lib.id)


# The library rules the designer reads in full (the rest one line each): the ones the KB finds closest
# to the brief.
LIBRARY_IN_FULL = 4


def _gist(description: str) -> str:
    """A description's first sentence (or clause before a ';'), never cut inside brackets."""
    text = " ".join(description.split())
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch in "([{") - (ch in ")]}")
        if depth <= 0 and ch in ".;" and (i + 1 == len(text) or text[i + 1] == " "):
            return text[:i + 1]
    return text


def library_summaries(kb, relevant_to: str = "") -> list[dict[str, Any]]:
    """Every library rule as the designer sees it: id, description, its first sentence (`gist`) and
    declared params; `relevant` marks the LIBRARY_IN_FULL rules the KB finds closest to `relevant_to`
    (every rule when it is empty)."""
    close = {h.id for h in kb.search("rules", relevant_to, k=LIBRARY_IN_FULL)} if relevant_to else None
    out = []
    for e in kb.list("rules"):
        meta = library_rule(e).meta
        description = meta.get("description", "")
        out.append({"id": e.id, "description": description, "gist": _gist(description),
                    "params": meta.get("params") or {}, "relevant": close is None or e.id in close})
    return out


def worked_example(kb) -> dict[str, Any] | None:
    """One verified rule with its first test, shown to the developer as a complete example."""
    entry = kb.get("rules", WORKED_EXAMPLE_RULE)
    if entry is None or not library_rule(entry).tests:
        return None
    lib = library_rule(entry)
    meta = {k: lib.meta.get(k) for k in ("title", "description", "params", "concepts")}
    test = lib.tests[0].model_dump(mode="json", exclude_none=True)
    if isinstance(test.get("level"), dict) and not test["level"].get("rules"):
        test["level"].pop("rules", None)      # a test level has no rules: the harness adds the one under test
    return {"id": lib.id, "source": lib.source, "meta": meta, "test": test}
