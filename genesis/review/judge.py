"""`--judge MODEL`: a model fills the review's results with its own judgements, labelled as such.

A litellm model is asked once per pair through the pipeline's LLMClient (retries, usage and a
transcript beside the page). The offline backend has no judgement of its own: for it a
deterministic heuristic answers (the playable side, then the larger share of verified
requirements), recorded as kind "heuristic" so no figure ever passes it off as a model's or a
human's preference.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from genesis.review.pairs import NOT_CHECKED, Entry, Pair, Review
from genesis.review.results import Judgement, ReviewResults, merge_into

PROMPT = Path(__file__).with_name("judge_prompt.j2")
ROLE, SKILL, STAGE = "analyst", "judge_preference", "review"
MAX_FIELD = 400
MAX_ITEMS = 20
TRANSCRIPT = "judge-transcript.jsonl"


class JudgeAnswer(BaseModel):
    choice: Literal["a", "b", "tie"] = Field(description="the scenario a human reviewer would prefer; tie when "
                                                         "neither is clearly better")
    rationale: str = Field(max_length=1500, description="one to three sentences naming the deciding differences")


def _cut(text: object) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= MAX_FIELD else text[:MAX_FIELD] + " …"


def _runs(e: Entry) -> list[str]:
    runs = (e.validation or {}).get("simulation_runs") or []
    return [_cut(f"{r.get('policy')} seed {r.get('seed')}: winners {r.get('winners')}, {r.get('reason')}, "
                 f"{r.get('duration')} s") for r in runs[:MAX_ITEMS] if isinstance(r, dict)]


def _validator(e: Entry) -> str:
    if not e.validator:
        return ""
    failed = [f"{c.get('id')}: {c.get('detail')}" for c in e.validator.get("criteria") or []
              if isinstance(c, dict) and not c.get("passed")]
    return _cut("playable" if e.validator.get("playable") else "not playable: " + "; ".join(failed))


def _side(letter: str, e: Entry) -> dict:
    b = e.brief
    return {"letter": letter.upper(), "query": e.query, "title": _cut(b.get("title")), "summary": _cut(b.get("summary")),
            "win": _cut("; ".join(map(str, b.get("win_conditions") or []))),
            "loss": _cut("; ".join(map(str, b.get("loss_conditions") or []))),
            "enemy": _cut("; ".join(map(str, b.get("enemy_behaviour") or []))),
            "verdict": e.verdict, "reason": _cut(e.reason), "validator": _validator(e), "runs": _runs(e),
            "requirements": [{"status": r.status, "text": _cut(r.text), "detail": _cut(r.detail)}
                             for r in e.requirements[:MAX_ITEMS]],
            "unsupported": _cut("; ".join(map(str, b.get("unsupported") or [])))}


def prompt_for(pair: Pair) -> str:
    from genesis.llm.prompts import render

    return render(PROMPT, query=pair.item.query, sides=[_side("a", pair.a), _side("b", pair.b)])


def _playable(e: Entry) -> bool | None:
    """The experiment's independent verdict, else the pipeline's; None when neither judged it."""
    if e.validator is not None:
        return bool(e.validator.get("playable"))
    return None if e.validation is None else e.verdict == "PLAYABLE"


def _verified_share(e: Entry) -> float | None:
    """Share of requirements the pipeline verified; None when it checked none (e.g. an E2E pass)."""
    reqs = [r for r in e.requirements if r.status != NOT_CHECKED]
    return sum(r.status == "verified" for r in reqs) / len(reqs) if reqs else None


def _share_text(share: float | None) -> str:
    return "requirements not checked" if share is None else f"{share:.0%} requirements verified"


def heuristic(pair: Pair) -> JudgeAnswer:
    """Playable beats not playable; then, when the pipeline checked both sides' requirements, the larger
    share verified; else a tie. What nobody checked (a verdict, requirements) counts for neither side."""
    pa, pb = _playable(pair.a), _playable(pair.b)
    va, vb = _verified_share(pair.a), _verified_share(pair.b)
    if pa is not None and pb is not None and pa != pb:
        choice = "a" if pa else "b"
    elif va is not None and vb is not None and va != vb:
        choice = "a" if va > vb else "b"
    else:
        choice = "tie"
    why = (f"heuristic, not a judgement of quality: A playable={pa}, {_share_text(va)}; "
           f"B playable={pb}, {_share_text(vb)}")
    return JudgeAnswer(choice=choice, rationale=why)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def judge(review: Review, results_file: Path, model: str, api_base: str | None = None,
          progress: Callable[[str], None] | None = None) -> tuple[ReviewResults, list[str]]:
    """Judge every pair with `model` and merge the judgements into `results_file`; returns the
    results and the pairs whose call failed (those stay unjudged). ConfigError for a bad model
    setting; ModelUnavailableError when the endpoint stays unreachable."""
    from genesis.llm.config import OFFLINE_MODEL

    say = progress or (lambda message: None)
    failures: list[str] = []
    judgements = []
    if model == OFFLINE_MODEL:
        kind = "heuristic"
        for pair in review.pairs:
            a = heuristic(pair)
            judgements.append(Judgement(key=pair.item.key, choice=a.choice, timestamp=_now(), reviewer=model,
                                        kind=kind, rationale=a.rationale))
    else:
        from genesis.llm.client import LLMClient, ModelCallError, ModelConfigurationError
        from genesis.llm.config import ConfigError, load_config
        from genesis.llm.preflight import check_models
        from genesis.llm.transcript import Transcript

        kind = "model"
        config = load_config({"model": model, "api_base": api_base})
        check_models(config)
        client = LLMClient(config, Transcript(Path(results_file).parent / TRANSCRIPT))
        for n, pair in enumerate(review.pairs, 1):
            try:
                a = client.complete(ROLE, SKILL, prompt_for(pair), JudgeAnswer, stage=STAGE,
                                    inputs={"key": pair.item.key, "a": str(pair.a.folder), "b": str(pair.b.folder)})
            except ModelConfigurationError as exc:
                raise ConfigError(str(exc)) from None
            except ModelCallError as exc:
                failures.append(f"{pair.item.key}: {exc}")
                say(f"query {n}/{len(review.pairs)}: the model gave no usable judgement ({exc})")
                continue
            judgements.append(Judgement(key=pair.item.key, choice=a.choice, timestamp=_now(), reviewer=model,
                                        kind=kind, rationale=a.rationale))
            say(f"query {n}/{len(review.pairs)}: {a.choice}")
    return merge_into(Path(results_file), model, kind, judgements), failures
