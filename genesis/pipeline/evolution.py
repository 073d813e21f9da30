"""Self-evolution after a success: commit the verified artifacts to the KB, then the PM's retrospective
(proposals from the feedback log, adopted only when replayed on history)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from genesis import rubric_store
from genesis.fileio import parse_yaml
from genesis.kb.store import Bundle, GddRecord, LevelSource, RuleSource
from genesis.llm.client import ModelCallError, ModelUnavailableError
from genesis.kb.library import signature
from genesis.pipeline import feedback
from genesis.pipeline.proposals import (DEFAULT_MIN_OCCURRENCES, RubricProposal, candidate, problems, recurring,
                                        to_change)
from genesis.pipeline.replay import replay


def rubric_versions(root) -> dict[str, int]:
    return {stage: r.version for stage, r in rubric_store.load_all(root).items()}


def _bundle(ctx, state: dict) -> Bundle:
    brief, gdd, arts = state["brief"], state["gdd"], state["rules"]
    kb = ctx.kb
    # the scenario folder's name, so `genesis kb show <folder name>` finds what the run committed
    gdd_id = kb.unique_id("gdds", Path(ctx.out_dir).name)
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
                  **({"commit_key": key} if (key := (state.get("options") or {}).get("commit_key")) else {}),
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


def min_recurrence(options: dict[str, Any]) -> int:
    """How many runs must fail the same way before the retrospective proposes a change: the run's
    option (`genesis new --min-recurrence`), else `min_recurrence` in the workspace's genesis.yaml, else 2."""
    if options.get("min_recurrence"):
        return int(options["min_recurrence"])
    from genesis import workspace

    try:
        raw = parse_yaml(workspace.current().config_file.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError, workspace.WorkspaceError):
        raw = {}
    value = raw.get("min_recurrence") if isinstance(raw, dict) else None
    return int(value) if isinstance(value, int) and value >= 1 else DEFAULT_MIN_OCCURRENCES


def evolve(ctx, state: dict) -> dict[str, Any]:
    options = state.get("options", {})
    if options.get("frozen"):
        return {"committed": None, "rubric_updates": [], "note": "KB and rubrics frozen for this run"}
    out: dict[str, Any] = {"committed": None, "rubric_updates": []}
    if not state.get("fast_tracked"):
        with ctx.kb.writing():  # ids picked and committed under one lock: parallel runs never clash
            # an earlier attempt of this batch query that died after its commit (a killed worker, an
            # outage) already added the scenario: a retry must not add it again under new ids
            earlier = ctx.kb.with_provenance("gdds", "commit_key", options["commit_key"]) \
                if options.get("commit_key") else []
            if earlier:
                out["committed"] = {"gdd": earlier[0], "new_rules": [], "added": [], "by_earlier_attempt": True}
            else:
                bundle = _bundle(ctx, state)
                result = ctx.kb.commit(bundle)
                out["committed"] = {"gdd": bundle.gdd.id, "new_rules": [r.id for r in bundle.rules],
                                    "added": [f"{c}/{i}" for c, i in result.added]}
    out.update(retrospective(ctx, min_recurrence(options)))
    return out


def retrospective(ctx, min_occurrences: int = DEFAULT_MIN_OCCURRENCES) -> dict[str, Any]:
    """The PM proposes from the feedback log; each valid proposal is replayed on history and
    adopted only when the replay proves it. Returns the summary and one entry per proposal."""
    records = feedback.read(ctx.rubrics_root)
    rubrics = rubric_store.load_all(ctx.rubrics_root)
    recurring_keys = recurring(records, min_occurrences)
    if not recurring_keys:
        # a proposal must target a recurring signature: with none, any answer would be rejected unread
        return {"retrospective": f"no failure signature recurs {min_occurrences}+ times in the feedback log: "
                                 "nothing to propose (the PM was not asked)", "rubric_updates": []}
    try:
        answer = ctx.pm.retrospective(records, rubrics, recurring_keys, min_occurrences)
    except (ModelCallError, ModelUnavailableError) as exc:  # the scenario is verified and committed; only the rubric update is lost
        return {"retrospective": f"retrospective failed: {exc}", "rubric_updates": []}
    updates = []
    for proposal in answer.proposals:
        updates.append(_adopt(ctx, proposal, records, recurring_keys))
    return {"retrospective": answer.summary, "rubric_updates": updates}


def _adopt(ctx, proposal: RubricProposal, records, recurring_keys: dict[str, int]) -> dict[str, Any]:
    """Validate, replay, then apply one proposal; every outcome is reported, none raises."""
    rubrics = rubric_store.load_all(ctx.rubrics_root)   # an earlier proposal of this retrospective may have landed
    head = {"stage": proposal.stage, "action": proposal.action, "criterion": proposal.criterion_id,
            "targets": proposal.targets}
    unknown = [t for t in proposal.targets if t not in recurring_keys]
    wrong = problems(proposal, rubrics) + ([f"targets {unknown} do not recur in the feedback log"] if unknown else [])
    if wrong:
        return {**head, "error": "rejected: " + "; ".join(wrong)}
    criterion = candidate(proposal, rubrics)
    report = replay(proposal.stage, criterion, proposal.targets, records, Path(rubric_store.rubrics_root(ctx.rubrics_root)),
                    ctx.kb, judge=_judge(ctx))
    if not report.accepted:
        return {**head, "error": f"rejected by replay: {report.why_rejected()}", "conflicts": report.conflicts}
    try:
        new = rubric_store.apply_update(proposal.stage, [to_change(proposal, rubrics, report.evidence())],
                                        root=ctx.rubrics_root)
    except rubric_store.RubricError as exc:
        return {**head, "error": str(exc)}
    return {**head, "version": new.version, "rationale": proposal.rationale, "evidence": report.evidence()}


def _judge(ctx):
    """Replays a judged criterion through the analyst (only GDD criteria are judged)."""
    analyst = getattr(ctx, "analyst", None)
    if analyst is None:
        return None

    def judge(criterion, brief, gdd) -> bool:
        if brief is None:
            raise LookupError("no brief recorded for the analyst")
        review = analyst.judge_gdd(brief, gdd, [criterion.model_dump(include={"id", "text", "kind", "mandatory"})])
        result = next((r for r in review.results if r.id == criterion.id), None)
        if result is None:
            raise LookupError("the analyst returned no judgement")
        return result.passed
    return judge
