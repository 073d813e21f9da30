"""Writes the scenario folder's verdict files: validation.json, the rule test records
(rules/<id>.tests.json), map.png and report.html (rendered by genesis.report from the folder)."""
from __future__ import annotations

import time
from typing import Any

from engine.errors import EngineError
from genesis import scenario_files as F
from genesis.certificate import scenario_certificate
from genesis.checks import clause_audit
from genesis.difficulty import band_of
from genesis.fileio import atomic_write_json, atomic_write_text
from genesis.models import Brief
from genesis.pipeline.docs import gdd_markdown
from genesis.pipeline.evolution import rubric_versions
from genesis.pipeline.feedback import log_outcome
from genesis.pipeline.shipped import design_assumptions, level_changes, shipped_facts
from genesis.report import write_report
from genesis.validation_record import ValidationRecord
from genesis.report.map_picture import write_map_picture
from genesis.report.scenario import MAP_PICTURE, rule_tests_path


PLAYS = ("playable", "not_certified")      # statuses of a level that plays


def verdict_label(status: str | None, certificate: dict | None) -> str:
    """The one-phrase verdict a user reads first."""
    if status in PLAYS:
        if certificate and certificate.get("skipped"):
            return "PLAYABLE (certificate skipped)"
        return "CERTIFIED" if status == "playable" and certificate and certificate.get("valid") else "NOT CERTIFIED"
    return "REFUSED" if status == "refused" else "NOT PLAYABLE"


def difficulty_record(state: dict, certificate: dict | None) -> dict[str, Any] | None:
    """The band asked for (request words or --difficulty), the certificate's band and the knob search."""
    brief = state.get("brief")
    asked = (state.get("options") or {}).get("difficulty") or (brief.concepts.difficulty if brief else None)
    band = band_of(certificate)
    if not asked and band is None:
        return None
    return {"asked": asked, "band": band, "search": state.get("difficulty_search")}


def _missed_difficulty(state: dict, certificate: dict | None) -> list[str]:
    """A difficulty asked for and not reached is a clause not honoured, said so, never silently replaced."""
    record = difficulty_record(state, certificate)
    if not record or not record["asked"] or record["band"] in (None, record["asked"]):
        return []
    search = record.get("search") or {}
    return [f"difficulty {record['asked']}: not reached; the certificate's ladder puts the level at {record['band']}"
            + (f" ({search['note']})" if search.get("note") else "")]


def shipped_design(state: dict) -> dict[str, Any] | None:
    """The last GDD as the last level plays it, or None when no level was assembled."""
    gdd, level = state.get("gdd"), state.get("level")
    if not level:
        return None
    return {"title": level.get("name") or (gdd.title if gdd else ""), **shipped_facts(level),
            "level_changes": level_changes(gdd, level) if gdd else []}


def audited_sources(rules: list, level: dict) -> list[str]:
    """What of each rule's script the clause audit reads as the level's content: a rule written for this
    scenario whole; a reused library rule only through the defaults of the params the level leaves unset (its
    source names every type it could spawn, the level's params choose the one it does)."""
    set_params = {r.get("id"): set((r.get("params") or {})) for r in level.get("rules") or [] if isinstance(r, dict)}
    out = []
    for r in rules:
        if not r.reused_from:
            out.append(r.source)
            continue
        declared = (r.meta or {}).get("params") or {}
        defaults = [spec.get("default") for name, spec in declared.items()
                    if isinstance(spec, dict) and name not in set_params.get(r.id, set())]
        out.append(" ".join(f'"{d}"' if isinstance(d, str) else str(d) for d in defaults
                            if isinstance(d, (str, int, float)) and not isinstance(d, bool)))
    return out


def clause_records(state: dict, certificate: dict | None = None) -> list[dict[str, Any]]:
    """The brief's clauses, each with the evidence status of the requirements that check it. A clause the
    brief calls honoured whose requirement failed in the validation runs is on record as partial: the
    level did not show it, and so is one naming a unit type, a switch, a time, a count or a number of sides
    the shipped level lacks (`clause_audit`). A clause the design builds less of takes the status its GDD's
    `clause_changes` gives it; one it raises to honoured is honoured when the requirements it names were
    verified. A run that delivered no level that plays honoured nothing: its brief's plan is on record as not
    honoured."""
    brief = state.get("brief")
    status = {e["id"]: e["status"] for e in state.get("evidence") or []}
    text = {r.id: r.text for r in brief.requirements} if brief else {}
    delivered = state.get("status") in PLAYS or not brief or not brief.is_game
    level = state.get("level") if delivered else None
    facts = clause_audit.LevelFacts.of(level, audited_sources(state.get("rules") or [], level)) if level else None
    missed = _missed_difficulty(state, certificate) if delivered else []
    gdd = state.get("gdd")
    changes = {ch.clause.strip(): ch for ch in gdd.clause_changes} if gdd else {}
    out = []
    for c in (brief.clauses if brief else []):
        change = changes.get(c.text.strip())
        if change is not None and change.status == "honoured":
            # the design builds what the brief could not: honoured when every requirement it names was shown
            if change.requirement_ids and all(status.get(rid) == "verified" for rid in change.requirement_ids):
                c = c.model_copy(update={"status": "honoured", "requirement_ids": change.requirement_ids,
                                         "built": "", "why": change.why})
        elif change is not None:        # the design builds less than the brief planned
            c = c.model_copy(update={"status": change.status, "built": change.built, "why": change.why})
        record = {**c.model_dump(include={"text", "status", "requirement_ids", "built", "why"}),
                  "evidence": {rid: status[rid] for rid in c.requirement_ids if rid in status}}
        failed = [rid for rid, s in record["evidence"].items() if s == "failed"]
        if not delivered and c.status != "not_honoured":
            record.update(status="not_honoured", built="", why="; ".join(filter(None, [
                c.why, f"planned ({', '.join(c.requirement_ids) or 'no requirement'}), but the run delivered no "
                       "level that plays"])))
        elif c.status == "honoured" and record["evidence"] and set(record["evidence"].values()) == {"untestable"}:
            shown = clause_audit.shown_by_level(c.text, facts) if facts and not clause_audit.missing(c.text, facts) \
                else []
            if shown:           # a switch or the map: no run shows it, the shipped level does
                record.update(why="; ".join(filter(None, [c.why, "shown by the shipped level: " + ", ".join(shown)])))
            else:               # nothing a run could show checks it: built as described, never shown
                record.update(status="partial", built=c.built or "; ".join(text.get(r, r) for r in c.requirement_ids),
                              why="; ".join(filter(None, [c.why, "no validation run shows it: every requirement that "
                                                                 "checks it is marked untestable"])))
        elif c.status in ("honoured", "assumed") and failed:
            shown = [rid for rid in c.requirement_ids if rid not in failed]
            record.update(status="partial", built="; ".join(text.get(rid, rid) for rid in shown) or "nothing shown",
                          why="; ".join(filter(None, [c.why, "the validation runs failed " + ", ".join(
                              f"{rid} ({text.get(rid, rid)})" for rid in failed)])))
        elif c.status == "honoured" and "difficulty" in c.requirement_ids and missed:
            record.update(status="partial", built=c.built or "the level as certified", why="; ".join(filter(None, [
                c.why, *missed])))
        elif c.status == "honoured" and facts and (lacks := clause_audit.missing(c.text, facts)):
            record.update(status="partial", built=c.built or "; ".join(text.get(r, r) for r in c.requirement_ids),
                          why="; ".join(filter(None, [c.why, "the level shipped has " + "; ".join(lacks)])))
        out.append(record)
    return out


CLAUSE_STATUSES = ("honoured", "partial", "assumed", "not_honoured")


def clause_tally(clauses: list[dict[str, Any]]) -> dict[str, int]:
    """How many of the request's clauses are in each status (validation.json's `clauses`)."""
    return {s: n for s in CLAUSE_STATUSES if (n := sum(c.get("status") == s for c in clauses))}


def clause_tally_text(tally: dict[str, int]) -> str:
    """"3 of 5 clauses honoured (1 partial, 1 not honoured)"; "" when the request had no clauses."""
    total = sum(tally.values())
    if not total:
        return ""
    rest = ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in tally.items() if s != "honoured")
    return f"{tally.get('honoured', 0)} of {total} clauses honoured" + (f" ({rest})" if rest else "")


def _unshown(state: dict, clauses: list[dict[str, Any]]) -> list[str]:
    """The "Not honoured" lines of the clauses the validation runs took down to partial, and of those the
    design took down (its `clause_changes`)."""
    brief, gdd = state.get("brief"), state.get("gdd")
    changed = {ch.clause.strip() for ch in gdd.clause_changes} if gdd else set()
    return [f"\"{r['text'].strip(' ,;:.!?')}\": {r['why']}" for r, c in zip(clauses, brief.clauses if brief else [])
            if r["status"] != c.status and r["status"] != "honoured"
            and (r["status"] == "partial" or c.text.strip() in changed)]


def _still_unsupported(state: dict, clauses: list[dict[str, Any]]) -> list[str]:
    """The brief's "Not honoured" lines but those of clauses the design raised to honoured (and showed)."""
    brief = state.get("brief")
    if brief is None:
        return []
    raised = [c.text.strip(" ,;:.!?") for r, c in zip(clauses, brief.clauses)
              if r["status"] == "honoured" and c.status != "honoured"]
    return [u for u in brief.unsupported if not any(u.startswith(f"\"{t}\"") for t in raised)]


def write_design_files(out, state: dict) -> None:
    """gdd.json and gdd.md of the last GDD, gdd.md with where the shipped level departs from it."""
    gdd, level = state.get("gdd"), state.get("level")
    if gdd is None:
        return
    atomic_write_json(out / F.GDD_JSON, gdd.model_dump(mode="json"))
    atomic_write_text(out / F.GDD_MD, gdd_markdown(gdd, level_changes(gdd, level) if level else None))


def validation_record(ctx, state: dict) -> dict[str, Any]:
    """validation.json's content, checked against its model before it is written."""
    usage = ctx.client.usage
    status = state.get("status")
    certificate = state.get("certificate") or scenario_certificate(
        ctx.out_dir, state, cache_dir=ctx.validation_cache.root, started=ctx.certificate_games)
    verdict = verdict_label(status, certificate)
    clauses = clause_records(state, certificate)
    return ValidationRecord.model_validate({
        "playable": status in PLAYS,
        "certified": verdict == "CERTIFIED",
        "verdict": verdict,
        "status": status,
        "reason": state.get("stop_reason") or ("all stage verdicts passed" if status == "playable" else ""),
        "query": state.get("query"),
        "run_id": state.get("run_id"),
        "backend": {role: ctx.client.backend_name(role) for role in ("pm", "designer", "developer", "analyst", "vlm")},
        "rubric_versions": rubric_versions(ctx.rubrics_root),
        "fast_tracked": bool(state.get("fast_tracked")),
        "kb_match": state.get("kb_match"),
        "stages": state.get("verdicts", {}),
        "decisions": state.get("decisions", []),
        "simulation_runs": state.get("runs", []),
        "validation_simulations": state.get("simulation", []),
        "requirements": state.get("evidence", []),
        "visual_review": state.get("visual", {}),
        "certificate": certificate,
        "difficulty": difficulty_record(state, certificate),
        "assumptions": design_assumptions(state.get("brief"), state.get("gdd")),
        "design": shipped_design(state),
        "unsupported": _still_unsupported(state, clauses) + _missed_difficulty(state, certificate)
        + _unshown(state, clauses),
        "clauses": clauses,
        "evolution": state.get("evolution"),
        "stage_times_s": state.get("stage_times", {}),
        "generation_time_s": round(sum((state.get("stage_times") or {}).values()), 2),
        "usage": usage.record(),
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }).model_dump(mode="json")


def rule_test_record(rule: dict, results: list[dict] | None, fast_tracked: bool) -> dict[str, Any]:
    """One rule's test cases next to their results (None when not run in this generation)."""
    meta = rule.get("meta") or {}
    by_name = {r.get("name"): r for r in results or []}
    tests = [{**{k: t.get(k) for k in ("name", "params", "seed", "until", "policies", "expect")},
              "result": by_name.pop(t.get("name"), None)} for t in rule.get("tests", [])]
    # results that match no case (e.g. "(all)" when the whole test job failed) are kept visible
    tests += [{"name": name, "params": {}, "expect": [], "result": r} for name, r in by_name.items()]
    note = None
    if results is None:
        note = ("Not re-run: fast-tracked from the knowledge base, where the rule was verified when committed."
                if fast_tracked else "Tests were not run in this generation.")
    return {"id": rule.get("id"), "title": meta.get("title"), "description": meta.get("description"),
            "reused_from": rule.get("reused_from"), "declared_params": meta.get("params") or {},
            "note": note, "tests": tests}


def write_rule_test_records(out, state: dict) -> None:
    results = state.get("rule_tests") or {}
    for rule in state.get("rules") or []:
        record = rule_test_record(rule.model_dump(mode="json"), results.get(rule.id), bool(state.get("fast_tracked")))
        atomic_write_json(rule_tests_path(out, rule.id), record)


def write_outputs(ctx, state: dict) -> dict[str, Any]:
    out = ctx.out_dir
    # what does not need the certificate first, while its last games may still run
    write_rule_test_records(out, state)
    write_design_files(out, state)
    (out / MAP_PICTURE).unlink(missing_ok=True)   # a picture of an earlier attempt's level would mislead
    if (out / F.LEVEL).exists():
        try:
            write_map_picture(out / F.LEVEL, out / MAP_PICTURE)
        except EngineError:   # the level stage's schema criterion already reports why it does not load
            pass
    if ctx.replay_gif is not None and state.get("status") in PLAYS:
        ctx.replay_gif.write(out / F.REPLAY_GIF, timeout_s=float((state.get("options") or {}).get("sim_timeout", 120)))
    record = validation_record(ctx, state)
    atomic_write_json(out / F.VALIDATION, record)
    write_final_brief(out, state.get("brief"), record.get("clauses") or [])
    write_report(out, map_picture=False)
    log_outcome(ctx, state.get("run_id", ""), run_outcome(state), record["reason"])
    return record


def write_final_brief(out, brief: Brief | None, records: list[dict[str, Any]]) -> None:
    """brief.json with the request's clauses as the run delivered them (validation.json's clause records:
    what the design took down, what the runs did not show, what the shipped level lacks), so no file of the
    scenario still calls honoured a clause the level does not build."""
    if brief is None or len(records) != len(brief.clauses):
        return
    final = [c.model_copy(update={k: r[k] for k in ("status", "built", "why", "requirement_ids") if k in r})
             for c, r in zip(brief.clauses, records)]
    atomic_write_json(out / F.BRIEF, brief.model_copy(update={"clauses": final}).model_dump(mode="json"))


def run_outcome(state: dict) -> str:
    """How the run ended, as the feedback log names it."""
    if state.get("status") in ("playable", "not_certified"):
        return state["status"]
    return "stopped" if str(state.get("stop_reason", "")).startswith("stopped at stage") else "failed"
