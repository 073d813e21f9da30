"""The E2E baselines: the whole game in one pass with the pipeline's own agent skills.

One pass = designer.clarify -> designer.write_gdd -> developer.write_rule per GDD rule component ->
developer.assemble_level, writing brief.json, gdd.json, rules/*.lua and level.json. No analyst
review, no PM gates, no simulations: whatever the skills return is the game. Model calls go
through the same LLMClient as the pipeline (usage counted, transcript.jsonl kept).

E2E w/ verify adds the configuration's own verification after each pass (the level's schema and
placement checks, then one reference and one idle simulation judged by the pipeline's
`terminates` and `outcome_discrimination` checks) and regenerates with the failures as guidance
until it passes or the attempt budget is spent. The experiment's Playability metric comes from
the independent validator, never from this verification.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from genesis.agents.designer import Designer
from genesis.agents.developer import Developer
from genesis import scenario_files as F
from genesis.fileio import atomic_write_json, atomic_write_text
from genesis.llm.client import LLMClient
from genesis.llm.offline_provider import install_embedded_brain
from genesis.llm.transcript import Transcript
from genesis.models import GDD

VERIFY_BUDGET = 3
VERIFY_SEED = 0
VERIFY_TIMEOUT_S = 120.0


@dataclass
class Attempt:
    number: int
    level_written: bool
    seconds: float
    guidance: list[str] = field(default_factory=list)
    error: str | None = None
    level_sha256: str | None = None
    verified: bool | None = None          # None: no verification (plain E2E)
    failures: list[str] = field(default_factory=list)


@dataclass
class E2EOutcome:
    status: str                            # done | verified | unverified | failed | refused
    attempts: list[Attempt]
    generation_time_s: float | None        # wall time to success (level written / verification passed)
    elapsed_s: float                       # wall time spent, success or not
    usage: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def make_client(model_cli: dict[str, Any] | None, out_dir: Path) -> LLMClient:
    from genesis.llm.config import load_config

    install_embedded_brain()
    return LLMClient(load_config(model_cli or {}), Transcript(out_dir / F.TRANSCRIPT))


def one_pass(query: str, out_dir: Path, client: LLMClient, kb, guidance: list[str]) -> GDD | None:
    """Writes the four artifacts; returns the GDD, or None when the request was refused.
    Raises whatever a skill raises (a model error, an offline design it cannot place)."""
    from genesis.kb.library import artifact_from_draft, library_rule, library_summaries, worked_example

    designer, developer = Designer(client), Developer(client)
    brief = designer.clarify(query, [], guidance)
    atomic_write_json(out_dir / F.BRIEF, brief.model_dump(mode="json"))
    if not brief.is_game:
        return None
    similar = [{"id": h.id, "score": h.score, "summary": h.document[:200]} for h in kb.search("gdds", brief.summary, k=3)]
    gdd = designer.write_gdd(brief, similar, guidance, library_summaries(kb))
    atomic_write_json(out_dir / F.GDD_JSON, gdd.model_dump(mode="json"))
    arts, example = [], worked_example(kb)
    for comp in gdd.rule_components:
        entry = kb.get("rules", comp.library_rule) if comp.library_rule else None
        lib = library_rule(entry).model_dump(mode="json") if entry else None
        draft = developer.write_rule(comp, lib, guidance, example)
        arts.append(artifact_from_draft(draft.model_copy(update={"id": comp.id}), kb))
    for a in arts:
        atomic_write_text(out_dir / F.RULES_DIR / f"{a.id}.lua", a.source)
    level = developer.assemble_level(gdd, arts, guidance).model_dump(mode="json", exclude_none=True)
    level.setdefault("metadata", {})["generator"] = {"query": query, "configuration": "e2e",
                                                     "backend": client.backend_name("developer")}
    atomic_write_json(out_dir / F.LEVEL, level)
    return gdd


def verify(out_dir: Path, gdd: GDD) -> list[str]:
    """The E2E w/ verify configuration's own check of a pass; returns the failures (empty = passed)."""
    from genesis.checks.context import CheckContext
    from genesis.checks.level_checks import CHECKS, player_score
    from genesis.simulate import SimJob, run_many

    level_path = out_dir / F.LEVEL
    ctx = CheckContext(gdd=gdd, level=json.loads(level_path.read_text()), level_path=level_path)
    failures = []
    for name in ("schema", "placement"):
        try:
            ok, why = CHECKS[name](ctx)
        except Exception as exc:  # a broken level fails its check
            ok, why = False, f"{type(exc).__name__}: {exc}"
        if not ok:
            return [f"{name}: {why}"]
    ctx.runs = run_many([SimJob(str(level_path), VERIFY_SEED, "reference"), SimJob(str(level_path), VERIFY_SEED, "idle")],
                        timeout_s=VERIFY_TIMEOUT_S)
    for name in ("terminates", "outcome_discrimination"):
        ok, why = CHECKS[name](ctx)
        if not ok:
            failures.append(f"{name}: {why}")
    ref = [player_score(r) for r in ctx.runs if r.policy == "reference" and r.ok]
    idle = [player_score(r) for r in ctx.runs if r.policy == "idle" and r.ok]
    # the same plain-language direction a reviewer would give; the designer reads it as guidance
    if failures and ref and ref[0] < 0.5:
        failures.append("the reference player loses: make the enemy weaker")
    elif failures and idle and idle[0] >= 0.5:
        failures.append("an idle player does not lose: make the enemy stronger")
    return failures


def _sha(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def generate(query: str, out_dir: Path, kb_root: Path, *, model_cli: dict[str, Any] | None = None,
             verify_budget: int = 0) -> E2EOutcome:
    """Plain E2E with verify_budget=0; E2E w/ verify with verify_budget=N attempts."""
    from genesis.kb.store import KnowledgeBase

    out_dir.mkdir(parents=True, exist_ok=True)
    client = make_client(model_cli, out_dir)
    kb = KnowledgeBase(kb_root)
    t0 = time.perf_counter()
    attempts: list[Attempt] = []
    guidance: list[str] = []
    status, success_at = "failed", None
    for number in range(1, max(1, verify_budget) + 1):
        (out_dir / F.LEVEL).unlink(missing_ok=True)
        ta = time.perf_counter()
        attempt = Attempt(number, False, 0.0, guidance=list(guidance))
        attempts.append(attempt)
        try:
            gdd = one_pass(query, out_dir, client, kb, guidance)
        except Exception as exc:  # a failed pass: plain E2E stops, E2E w/ verify tries again
            attempt.error = f"{type(exc).__name__}: {exc}"[:600]
            attempt.seconds = time.perf_counter() - ta
            guidance = guidance + [f"the previous attempt failed: {attempt.error}"]
            continue
        if gdd is None:
            attempt.seconds = time.perf_counter() - ta
            status = "refused"
            break
        attempt.level_written, attempt.level_sha256 = True, _sha(out_dir / F.LEVEL)
        if not verify_budget:
            attempt.seconds = time.perf_counter() - ta
            status, success_at = "done", time.perf_counter()
            break
        attempt.failures = verify(out_dir, gdd)
        attempt.verified = not attempt.failures
        attempt.seconds = time.perf_counter() - ta
        if attempt.verified:
            status, success_at = "verified", time.perf_counter()
            break
        status = "unverified"
        guidance = guidance + attempt.failures
    elapsed = time.perf_counter() - t0
    outcome = E2EOutcome(status, attempts, round(success_at - t0, 3) if success_at else None, round(elapsed, 3),
                         client.usage.total())
    atomic_write_json(out_dir / "e2e.json", outcome.to_dict())
    return outcome
