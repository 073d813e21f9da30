"""Self-evolution after a success: commit the verified artifacts to the KB, then the PM's retrospective."""
from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from genesis import rubric_store
from genesis.fileio import FileLock
from genesis.kb.store import Bundle, GddRecord, LevelSource, RuleSource
from genesis.llm.client import ModelCallError, ModelUnavailableError
from genesis.kb.library import signature

FEEDBACK_LOG = "feedback_log.jsonl"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48] or "scenario"


def rubric_versions(root) -> dict[str, int]:
    return {stage: r.version for stage, r in rubric_store.load_all(root).items()}


def _bundle(ctx, state: dict) -> Bundle:
    brief, gdd, arts = state["brief"], state["gdd"], state["rules"]
    kb = ctx.kb
    gdd_id = kb.unique_id("gdds", _slug(brief.title))
    rules, rule_ids, scripts = [], [], {}
    for a in arts:
        if a.reused_from and kb.get("rules", a.reused_from) is not None:
            rid = a.reused_from
        else:
            rid = kb.unique_id("rules", f"{gdd_id}-{a.id}")
            meta = {"id": rid, "title": a.id.replace("_", " "), "description": a.meta.get("description", a.id),
                    "params": a.meta.get("params", {}), "concepts": a.meta.get("concepts", []),
                    "provenance": {"run_id": state["run_id"], "query": state["query"]}}
            rules.append(RuleSource(id=rid, lua=a.source, meta=meta,
                                    tests={"tests": [t.file_form() for t in a.tests]}))
        rule_ids.append(rid)
        scripts[a.id] = f"../../rules/{rid}/rule.lua"
    level = json.loads(json.dumps(state["level"]))
    for r in level.get("rules", []):
        r["script"] = scripts.get(r["id"], r["script"])
    provenance = {"query": state["query"], "run_id": state["run_id"],
                  "backend": ctx.client.backend_name("designer"),
                  "rubric_versions": rubric_versions(ctx.rubrics_root),
                  "evidence": {e["id"]: e["passed"] for e in state.get("evidence", [])}}
    c = brief.concepts
    concepts = [c.archetype] + [k for k in ("staggered", "escalating", "random_side", "air", "raids") if getattr(c, k)]
    text = f"{state['query']}\n{brief.summary}\n{gdd.agent_description}"
    record = GddRecord(id=gdd_id, title=gdd.title, summary=gdd.summary, text=text, concepts=concepts,
                       rule_ids=rule_ids, level_id=gdd_id, provenance=provenance,
                       gdd=gdd.model_dump(mode="json"), signature=signature(c))
    return Bundle(gdd=record, rules=rules, level=LevelSource(id=gdd_id, level=level,
                                                           meta={"title": gdd.title, "provenance": provenance}))


def read_feedback_log(root) -> list[dict[str, Any]]:
    path = rubric_store.rubrics_root(root) / FEEDBACK_LOG
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _append_feedback(root, entries: list[dict]) -> None:
    base = rubric_store.rubrics_root(root)
    with FileLock(base / ".feedback.lock"):
        with open(base / FEEDBACK_LOG, "a", encoding="utf-8") as fh:
            for e in entries:
                fh.write(json.dumps(e, sort_keys=True) + "\n")


def evolve(ctx, state: dict) -> dict[str, Any]:
    options = state.get("options", {})
    if options.get("frozen"):
        return {"committed": None, "rubric_updates": [], "note": "KB and rubrics frozen for this run"}
    out: dict[str, Any] = {"committed": None, "rubric_updates": []}
    if not state.get("fast_tracked"):
        with ctx.kb.writing():  # ids picked and committed under one lock: parallel runs never clash
            bundle = _bundle(ctx, state)
            result = ctx.kb.commit(bundle)
        out["committed"] = {"gdd": bundle.gdd.id, "new_rules": [r.id for r in bundle.rules],
                            "added": [f"{c}/{i}" for c, i in result.added]}
    if state.get("feedback"):
        _append_feedback(ctx.rubrics_root, state["feedback"])
    log = read_feedback_log(ctx.rubrics_root)
    rubrics = {s: [c.model_dump() for c in r.criteria] for s, r in rubric_store.load_all(ctx.rubrics_root).items()}
    try:
        retro = ctx.pm.retrospective(log, rubrics)
    except (ModelCallError, ModelUnavailableError) as exc:  # the scenario is verified and committed; only the rubric update is lost
        out["retrospective"] = f"retrospective failed: {exc}"
        return out
    out["retrospective"] = retro.summary
    by_stage: dict[str, list] = {}
    for ch in retro.changes:
        crit, stage = ch.criterion, str(ch.criterion.get("stage", retro.stage))
        try:  # a model may propose a malformed criterion: record it, keep the well-formed ones
            change = rubric_store.Change(op=ch.op, id=crit.get("id"), text=crit.get("text"), kind=crit.get("kind"),
                                         mandatory=crit.get("mandatory"), rationale=ch.rationale)
        except ValidationError as exc:
            out["rubric_updates"].append({"stage": stage, "error": f"malformed change {crit!r:.200}: "
                                                                   f"{exc.errors()[0]['msg']}"})
            continue
        by_stage.setdefault(stage, []).append(change)
    for stage, changes in by_stage.items():
        try:
            new = rubric_store.apply_update(stage, changes, root=ctx.rubrics_root)
        except rubric_store.RubricError as exc:
            out["rubric_updates"].append({"stage": stage, "error": str(exc)})
            continue
        out["rubric_updates"].append({"stage": stage, "version": new.version,
                                      "changes": [f"{c.op} {c.id}: {c.rationale}" for c in changes]})
    return out
