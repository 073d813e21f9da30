"""The pipeline's nodes. Each reads the typed state and returns a partial update."""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from langgraph.types import interrupt
from pydantic import ValidationError

from engine.errors import EngineError
from engine.maps import load_map
from engine.schema.level import LevelConfig, MapRef
from genesis import rubric_store
from genesis.certificate import (CertificateGames, cached_certificate, certificate_enabled, certify_cached, prior_keys,
                                 scenario_certificate)
from genesis.difficulty import HELD, MAX_FACTOR, PAST, REBALANCE_FACTOR, SHORT, tuning_target
from genesis.checks import CheckContext, run_criteria
from genesis.checks.messages import bounded_join, shorten
from genesis.evidence import requirement_evidence
from genesis import scenario_files as F
from genesis.fileio import atomic_write_json, atomic_write_text, dump_yaml
from genesis.llm.client import ModelCallError
from genesis.level_assembly import assemble_level
from genesis.kb.library import (FAST_TRACK_MIN_SCORE, UnknownLibraryRule, composed_rule, library_rule,
                                library_summaries, signature, worked_example)
from genesis.models import (MAX_RULES_PER_CALL, GDD, Brief, Clarification, Guidance, MetaFeedback, Requirement,
                            RetryContext, RuleArtifact, RuleComponent, RuleDraft, Verdict, VisualVerdict)
from genesis.pipeline.context import RunContext
from genesis.pipeline.docs import gdd_markdown
from genesis.pipeline.feedback import append as append_feedback
from genesis.pipeline.feedback import run_hints, save_artifacts, verdict_record
from genesis.pipeline.previous import previous_text
from genesis.pipeline.pm_bounds import NEXT_STAGE, STAGE_ORDER, bound_decision, settled_decision
from genesis.pipeline.rule_keep import NothingToKeep, component_key, keep_or_build, kept_unchanged, verified_rules
from genesis.pipeline.smoke import smoke_test
from genesis.simulate import (DEFAULT_TIMEOUT_S, REFERENCE_SEEDS, SimJob, SimRun, full_game_key, generation_processes,
                              run_parallel, run_rule_tests_job, seed_leaders, validation_jobs)
from genesis.replay_gif import ReplayGif
from genesis.report.replay_widget import REPLAY_FILE
from genesis.validation_cache import CachedBatch

MAX_RETRY_ERRORS = 20        # check errors shown to a retrying writer
MAX_ERROR_CHARS = 800
STAGE_BUDGET = 3
TOTAL_BUDGET = 11   # three full gdd-rules-level passes and two retries: a certificate failure rolls back to the design
DETERMINISM_PREFIX_S = 60.0   # game seconds of the first reference game replayed
CERTIFICATE_KIND = "check:certificate"
CERTIFIED_KINDS = (CERTIFICATE_KIND, "check:difficulty")     # judged on the certificate, once the level plays
MAX_QUESTION_ROUNDS = 3  # interactive Stage 1: first questions, then re-asks of answers that cannot be used


class Nodes:
    def __init__(self, ctx: RunContext):
        self.ctx = ctx
        self._judged_frames: dict[str, VisualVerdict] = {}   # visual verdicts of this process, by what was judged

    # ---- helpers ------------------------------------------------------------------------------
    @property
    def out(self) -> Path:
        return self.ctx.out_dir

    def _timed(self, stage: str, t0: float) -> dict[str, float]:
        return {stage: round(time.perf_counter() - t0, 3)}

    def _rubric(self, stage: str):
        return rubric_store.load(stage, root=self.ctx.rubrics_root)

    def _criteria(self, *stages: str) -> list[dict]:
        """The rubric criteria a writer is judged by, as its prompt lists them."""
        return [{"stage": s, "id": c.id, "text": c.text} for s in stages for c in self._rubric(s).criteria]

    def _fail_verdict(self, stage: str, criterion: str, reason: str, unrecoverable: str = "") -> Verdict:
        return Verdict(stage=stage, passed=False, feedback=[reason], unrecoverable=unrecoverable,  # type: ignore[arg-type]
                       criteria=[{"id": criterion, "passed": False, "reason": reason, "kind": "model",
                                  "mandatory": True}])

    # ---- stage 1 ------------------------------------------------------------------------------
    def clarify(self, state: dict) -> dict:
        t0 = time.perf_counter()
        self.ctx.say("brief", "clarifying the request")
        query = state["query"]
        clar = [Clarification.model_validate(c) for c in state.get("clarifications") or []]
        if state["options"].get("interactive") and not clar:
            questions = self.ctx.designer.questions(query)
            for _ in range(MAX_QUESTION_ROUNDS):  # until the designer can use every answer, or stops asking
                if not questions:
                    break
                answers = interrupt({"questions": questions})
                clar += [Clarification(question=q, answer=a) for q, a in zip(questions, answers)]
                questions = self.ctx.designer.questions(query, clar)
        try:
            brief = self.ctx.designer.clarify(query, clar, stage_guidance(state, "brief"),
                                              self._retry(state, "brief"))
        except ModelCallError as exc:
            return {"status": "failed", "stop_reason": f"stage 1 (brief): {exc}", "route": "finalize",
                    "stage_times": self._timed("brief", t0)}
        brief = with_difficulty(brief, state["options"].get("difficulty"))
        atomic_write_json(self.out / F.BRIEF, brief.model_dump(mode="json"))
        update: dict[str, Any] = {"brief": brief, "clarifications": [c.model_dump() for c in clar],
                                  "stage_times": self._timed("brief", t0)}
        if not brief.is_game:
            return {**update, "status": "refused", "stop_reason": brief.refusal or "not a game request",
                    "route": "finalize"}
        return {**update, "route": "kb_match"}

    def kb_match(self, state: dict) -> dict:
        t0 = time.perf_counter()
        brief: Brief = state["brief"]
        if state["options"].get("no_fast_track"):
            return {"kb_match": None, "fast_tracked": False, "route": "write_gdd"}
        sig = signature(brief.concepts)
        for hit in self.ctx.kb.search("gdds", f"{brief.query}\n{brief.summary}", k=5):
            entry = self.ctx.kb.get("gdds", hit.id)
            if entry is None or hit.score < FAST_TRACK_MIN_SCORE or entry.data.get("signature") != sig:
                continue
            stored = entry.data
            rules = []
            for rid in stored.get("rule_ids", []):
                rule = self.ctx.kb.get("rules", rid)
                if rule is None:
                    break
                rules.append(rule)
            else:
                gdd = GDD.model_validate(stored["gdd"])
                arts = self._artifacts_from_kb(gdd, rules)
                self.ctx.say("kb", f"fast-track: reusing {hit.id} (similarity {hit.score:.2f})")
                self._write_gdd_files(gdd)
                self._write_rule_files(arts)
                return {"kb_match": {"id": hit.id, "score": hit.score}, "fast_tracked": True,
                        "gdd": gdd, "rules": arts, "route": "assemble_level", "stage_times": self._timed("kb_match", t0)}
        return {"kb_match": None, "fast_tracked": False, "route": "write_gdd", "stage_times": self._timed("kb_match", t0)}

    def _artifacts_from_kb(self, gdd: GDD, rule_entries: list) -> list[RuleArtifact]:
        by_id = {e.id: e for e in rule_entries}
        arts = []
        for k, comp in enumerate(gdd.rule_components):
            # a rule written for the design was committed under a new id, in component order
            e = by_id.get(comp.library_rule or comp.id) or (rule_entries[k] if k < len(rule_entries) else None)
            if e is None:
                continue
            lib = library_rule(e)
            arts.append(RuleArtifact(id=comp.id, source=lib.source, params=comp.params, tests=lib.tests,
                                     meta=lib.meta, reused_from=e.id))
        return arts

    # ---- stage 2 ------------------------------------------------------------------------------
    def write_gdd(self, state: dict) -> dict:
        t0 = time.perf_counter()
        self.ctx.say("gdd", "writing the game design document")
        brief: Brief = state["brief"]
        similar = [{"id": h.id, "score": h.score, "summary": h.document[:200]}
                   for h in self.ctx.kb.search("gdds", brief.summary, k=3)]
        try:
            gdd = self.ctx.designer.write_gdd(brief, similar, stage_guidance(state, "gdd"),
                                              library_summaries(self.ctx.kb, brief.summary), self._retry(state, "gdd"),
                                              self._criteria("gdd", "level"))
        except ModelCallError as exc:
            return {"verdicts": {"gdd": self._fail_verdict("gdd", "model", str(exc), exc.permanent)}, "route": "gate_gdd",
                    "stage_times": self._timed("gdd", t0)}
        except Exception as exc:  # the offline designer could not place the design on its map
            return {"verdicts": {"gdd": self._fail_verdict("gdd", "design", f"{type(exc).__name__}: {exc}")},
                    "route": "gate_gdd", "stage_times": self._timed("gdd", t0)}
        self._write_gdd_files(gdd)
        return {"gdd": gdd, "route": "review_gdd", "stage_times": self._timed("gdd", t0)}

    def _write_gdd_files(self, gdd: GDD) -> None:
        atomic_write_json(self.out / F.GDD_JSON, gdd.model_dump(mode="json"))
        atomic_write_text(self.out / F.GDD_MD, gdd_markdown(gdd))

    def review_gdd(self, state: dict) -> dict:
        t0 = time.perf_counter()
        brief, gdd = state["brief"], state["gdd"]
        rubric = self._rubric("gdd")
        judged_crits = [c.model_dump() for c in rubric.criteria if not c.kind.startswith("check:")]
        try:
            review = self.ctx.analyst.judge_gdd(brief, gdd, judged_crits)
        except ModelCallError as exc:
            return {"verdicts": {"gdd": self._fail_verdict("gdd", "analyst", str(exc), exc.permanent)}, "route": "gate_gdd"}
        ctx = CheckContext(brief=brief, gdd=gdd, known_rules={e.id for e in self.ctx.kb.list("rules")},
                           kb_root=self.ctx.kb.root)
        results = run_criteria("gdd", rubric.criteria, ctx, {r.id: r for r in review.results})
        verdict = Verdict(stage="gdd", passed=all(r.passed for r in results if r.mandatory), criteria=results,
                          feedback=list(review.feedback), judged_by=self.ctx.client.backend_name("analyst"))
        return {"verdicts": {"gdd": verdict}, "route": "gate_gdd",
                "stage_times": self._timed("gdd_review", t0)}

    # ---- stage 3 ------------------------------------------------------------------------------
    def write_rules(self, state: dict) -> dict:
        t0 = time.perf_counter()
        gdd: GDD = state["gdd"]
        guidance = stage_guidance(state, "rules")
        example, criteria = worked_example(self.ctx.kb), self._criteria("rules")
        # call plan 4 also keeps a verified rule whose component changed only params the rule declares
        kept = kept_unchanged(state, gdd.rule_components, new_params=self.ctx.client.call_plan >= 4)
        verified = verified_rules(state)
        offers = {c.id: self._library_offer(c) for c in gdd.rule_components if c.id not in kept}
        try:
            drafted = self._draft_together(state, gdd, offers, verified, guidance, example, criteria, sorted(kept))
            arts = []
            for comp in gdd.rule_components:
                if comp.id in kept:
                    self.ctx.say("rules", f"rule {comp.id}: kept (its tests passed)")
                    arts.append(kept[comp.id])
                    continue
                self.ctx.say("rules", f"rule {comp.id}")
                draft = drafted.get(comp.id) or self._draft_one(state, comp, offers[comp.id], verified, guidance,
                                                                example, criteria, sorted(kept))
                # the level names the rule by its component id, whatever id the draft gave
                art = keep_or_build(draft.model_copy(update={"id": comp.id}), verified.get(comp.id), self.ctx.kb)
                arts.append(art.model_copy(update={"written_for": component_key(comp)}))
        except ModelCallError as exc:
            return {"verdicts": {"rules": self._fail_verdict("rules", "developer", str(exc), exc.permanent)},
                    "route": "gate_rules", "rules": [], "stage_times": self._timed("rules", t0)}
        except (UnknownLibraryRule, NothingToKeep) as exc:
            return {"verdicts": {"rules": self._fail_verdict("rules", "developer", str(exc))},
                    "route": "gate_rules", "rules": [], "stage_times": self._timed("rules", t0)}
        self._write_rule_files(arts)
        return {"rules": arts, "route": "test_rules",
                "stage_times": self._timed("rules", t0)}

    def _library_offer(self, comp: RuleComponent) -> dict | None:
        """The verified rule offered for reuse: the component's library rule, or one composed and verified
        before for a recipe of the same shape."""
        if comp.library_rule:
            entry = self.ctx.kb.get("rules", comp.library_rule)
        else:
            entry = composed_rule(self.ctx.kb, comp.recipe, comp.params) if comp.recipe is not None else None
        return library_rule(entry).model_dump(mode="json") if entry is not None else None

    def _draft_together(self, state: dict, gdd: GDD, offers: dict, verified: dict, guidance, example, criteria,
                        kept: list[str]) -> dict[str, RuleDraft]:
        """One call for the components that need a new rule and have nothing of their own to reuse, keep or
        fix; a component the answer leaves out, answers twice or answers with keep / write_new (nothing to keep,
        no library rule offered) is asked on its own after."""
        fresh = [c for c in gdd.rule_components if c.id in offers and offers[c.id] is None
                 and c.id not in verified and self._rule_retry(state, c.id, None) is None]
        if len(fresh) < 2 or self.ctx.client.call_plan < 2:
            return {}
        drafts: dict[str, RuleDraft] = {}
        for i in range(0, len(fresh), MAX_RULES_PER_CALL):
            part = fresh[i:i + MAX_RULES_PER_CALL]
            self.ctx.say("rules", f"writing {len(part)} rules in one call: {', '.join(c.id for c in part)}")
            answered = self.ctx.developer.write_rules(part, gdd, guidance, example, criteria, kept)
            ids = [d.id for d in answered]
            drafts.update({d.id: d for d in answered if ids.count(d.id) == 1 and d.id in {c.id for c in part}
                           and not (d.write_new or d.keep)})
        return drafts

    def _draft_one(self, state: dict, comp: RuleComponent, lib: dict | None, verified: dict, guidance, example,
                   criteria, kept: list[str]) -> RuleDraft:
        retry = self._rule_retry(state, comp.id, verified.get(comp.id))
        if self._named_library_fits(comp, lib) and retry is None and comp.id not in verified:
            # the designer chose this verified rule and gave only params it declares: nothing left to decide
            self.ctx.say("rules", f"rule {comp.id}: reuses the library rule {lib['id']} the GDD names (no call)")
            return RuleDraft(id=comp.id, reuse=lib["id"], params=comp.params)
        draft = self.ctx.developer.write_rule(comp, lib, guidance, example, retry, criteria, state["gdd"],
                                              verified=verified.get(comp.id), kept=kept)
        if draft.write_new:   # the library rule cannot do it: ask for a new rule, with the rule API
            declined = [f"the library rule {lib['id'] if lib else comp.library_rule} cannot do what this "
                        "component needs (your own judgement): write a new rule"]
            draft = self.ctx.developer.write_rule(comp, None, Guidance(guidance + declined, guidance.earlier), example,
                                                  retry, criteria, state["gdd"], verified=verified.get(comp.id),
                                                  kept=kept)
        return draft

    def _named_library_fits(self, comp: RuleComponent, lib: dict | None) -> bool:
        declared = ((lib or {}).get("meta") or {}).get("params") or {}
        return (lib is not None and comp.library_rule == lib["id"] and set(comp.params) <= set(declared)
                and self.ctx.client.call_plan >= 3)

    def _write_rule_files(self, arts: list[RuleArtifact]) -> None:
        for a in arts:
            atomic_write_text(self.out / F.RULES_DIR / f"{a.id}.lua", a.source)

    def test_rules(self, state: dict) -> dict:
        t0 = time.perf_counter()
        arts: list[RuleArtifact] = state["rules"]
        self.ctx.say("rules", f"testing {len(arts)} rule(s) in simulation")
        gdd: GDD = state["gdd"]
        dirs, owners = [], []
        for a in arts:
            tests = [t.file_form() for t in a.tests]
            dirs.append(self._rule_test_dir(self.out / F.RULE_TESTS_DIR / a.id, a, tests))
            owners.append(a.id)
            if a.reused_from is None:  # new scripts only: a library rule was verified by its own tests
                dirs.append(self._rule_test_dir(self.out / F.RULE_TESTS_DIR / f"{a.id}.smoke", a, [smoke_test(gdd, a)]))
                owners.append(a.id)
        cache = self.ctx.validation_cache
        results = [cache.rule_tests(d) for d in dirs]
        todo = [i for i, r in enumerate(results) if r is None]
        fresh = run_parallel(run_rule_tests_job, [dirs[i] for i in todo], timeout_s=120, pool=self._pool(state),
                             on_timeout=lambda d: [{"name": "(all)", "passed": False, "details": [],
                                                    "error": "rule tests killed after 120 s"}])
        for i, result in zip(todo, fresh):
            results[i] = result
            cache.put_rule_tests(dirs[i], result)
        rule_tests: dict[str, list[dict]] = {a.id: [] for a in arts}
        for owner, result in zip(owners, results):
            rule_tests[owner] += result
        ctx = CheckContext(rules=arts, rule_test_results=rule_tests)
        crit = run_criteria("rules", self._rubric("rules").criteria, ctx)
        verdict = Verdict(stage="rules", passed=all(r.passed for r in crit if r.mandatory), criteria=crit,
                          judged_by="automated checks")
        return {"rule_tests": rule_tests, "verdicts": {"rules": verdict},
                "route": "gate_rules", "stage_times": self._timed("rules_test", t0)}

    def _rule_test_dir(self, folder: Path, rule: RuleArtifact, tests: list[dict]) -> str:
        atomic_write_text(folder / "rule.lua", rule.source)
        atomic_write_text(folder / "meta.yaml", dump_yaml({**rule.meta, "id": rule.id}, sort_keys=False))
        atomic_write_text(folder / "test.yaml", dump_yaml({"tests": tests}, sort_keys=False))
        return str(folder)

    # ---- stage 4 ------------------------------------------------------------------------------
    def assemble_level(self, state: dict) -> dict:
        t0 = time.perf_counter()
        gdd, arts = state["gdd"], state["rules"]
        guidance, retry = stage_guidance(state, "level"), self._retry(state, "level")
        config = self._level_from_gdd(gdd, arts) if not guidance.latest and retry is None else None
        self.ctx.say("level", "assembling the level" + (" from the GDD (no model call)" if config else ""))
        try:
            config = config or self.ctx.developer.assemble_level(gdd, arts, guidance, retry, self._criteria("level"))
        except ModelCallError as exc:
            return {"verdicts": {"level": self._fail_verdict("level", "developer", str(exc), exc.permanent)}, "route": "gate_level"}
        level = config.model_dump(mode="json", exclude_none=True)
        search_reset = {"difficulty_search": None}      # a new level gets its own knob search
        # the certificate reads what the seed varies and the design's exploit probes from the level itself
        level.setdefault("metadata", {})["variation"] = gdd.variation.model_dump(mode="json")
        level["metadata"]["generator"] = {
            "query": state["query"], "run_id": state["run_id"],
            "backend": self.ctx.client.backend_name("developer")}
        atomic_write_json(self.out / F.LEVEL, level)
        return {"level": level, **search_reset, "route": "validate_level", "stage_times": self._timed("level", t0)}

    def _level_from_gdd(self, gdd: GDD, arts: list[RuleArtifact]) -> LevelConfig | None:
        """A level's first assembly is the GDD's, word for word (call plan 4): a model is asked only to correct a
        level the gate sent back with guidance, or when the GDD does not make a valid level."""
        if self.ctx.client.call_plan < 4:
            return None
        try:
            return LevelConfig.model_validate(assemble_level(gdd, [{"id": r.id, "params": r.params} for r in arts]))
        except ValidationError:
            return None

    def validate_level(self, state: dict) -> dict:
        t0 = time.perf_counter()
        gdd: GDD = state["gdd"]
        level_path = self.out / "level.json"
        rubric = self._rubric("level")
        ctx = CheckContext(gdd=gdd, level=state["level"], level_path=level_path)
        schema_ok = run_criteria("level", [c for c in rubric.criteria if c.kind == "check:schema"], ctx)[0].passed
        runs: list[SimRun] = []
        sim_record: list[dict] = []
        if schema_ok:
            frames_dir = self.out / "frames"
            for old in frames_dir.glob("*.png") if frames_dir.exists() else []:
                old.unlink()
            (self.out / F.REPLAY_GIF).unlink(missing_ok=True)
            self.ctx.replay_gif = None
            prefix_s = min(DETERMINISM_PREFIX_S, gdd.time_limit)
            jobs = validation_jobs(str(level_path), gdd.requirements, first=SimJob(
                str(level_path), REFERENCE_SEEDS[0], "reference", frames_dir=str(frames_dir),
                replay_path=str(self.out / REPLAY_FILE), prefix_s=prefix_s))
            rushed = " and rush" if any(j.policy == "rush" for j in jobs) else ""
            self.ctx.say("level", f"running full simulations (reference, idle{rushed} policies)")
            # determinism: a second run of the first game's opening must leave the same trace
            jobs.append(SimJob(str(level_path), REFERENCE_SEEDS[0], "reference", prefix_s=prefix_s, prefix_only=True))
            cache = self.ctx.validation_cache
            hits, t_sim = cache.stats.hits, time.perf_counter()
            # an earlier level's certificate games go before this level's runs are queued: dropping them closes
            # the pool, which would take queued runs down with it
            self.ctx.drop_certificate_games()
            batch = CachedBatch(jobs, cache, self._pool(state), seed_leaders(jobs, full_game_key))
            self._start_certificate(state, level_path, jobs)
            runs = batch.results(timeout_s=float(state["options"].get("sim_timeout", 180)))
            if self.ctx.certificate_games is not None and runs[0].ok:
                self.ctx.certificate_games.tape(runs[0].events)
            sim_record = [{"wall_s": round(time.perf_counter() - t_sim, 3), "runs": len(runs),
                           "cache_hits": cache.stats.hits - hits}]
            replay = runs.pop()
            runs[0].replay_prefix_hash = replay.prefix_hash if replay.ok else f"replay failed: {replay.error}"
            ctx.runs = runs
            m = load_map(MapRef.model_validate(state["level"]["map"]), self.out)
            ctx.evidence = requirement_evidence(gdd.requirements, runs, (m.width, m.height), level_path)
            ctx.visual = self._visual(state, gdd, runs[0])
        gated = [c for c in rubric.criteria if c.kind in CERTIFIED_KINDS]
        results = run_criteria("level", [c for c in rubric.criteria if c.kind not in CERTIFIED_KINDS], ctx)
        certificate = None
        plays = all(r.passed for r in results if r.mandatory)
        if plays:
            self.ctx.say("level", "certifying: the ladder of cheap policies and the blind replay over every seed")
            ctx.certificate = certificate = self._certificate(state, runs)
        ctx.difficulty, ctx.difficulty_search = _asked_difficulty(state), state.get("difficulty_search")
        failing = {r.kind for r in results if r.mandatory and not r.passed}
        unproven = _failed_requirements(gdd, ctx.evidence)
        target = None if ctx.difficulty_search is not None or not schema_ok else tuning_target(
            ctx.difficulty, certificate, failing, state["level"], gdd.variation.knob,
            careless_unpunished=bool(unproven) and all(r.on != "reference" for r in unproven))
        if target:
            self.ctx.drop_certificate_games()       # the level is about to change: its certificate's games are moot
            self._save_traces(runs)
            return {"runs": [r.summary() for r in runs], "certificate": certificate, "simulation": sim_record,
                    "evidence": ctx.evidence, "difficulty_target": [target[0], *target[1]],
                    "route": "tune_difficulty", "stage_times": self._timed("level_validate", t0)}
        results += run_criteria("level", gated, ctx)
        passed = all(r.passed for r in results if r.mandatory)
        if not passed:
            self.ctx.drop_certificate_games()
        if plays and (self.out / REPLAY_FILE).is_file():
            self.ctx.replay_gif = ReplayGif(self.out / REPLAY_FILE, self._pool(state), self.ctx.validation_cache)
        visual = ctx.visual
        feedback = [f"visual reviewer ({visual.judged_by}): {p}" for p in visual.problems] if visual else []
        search_record = ctx.difficulty_search or {}
        if not passed and search_record and not search_record.get("found"):
            start = search_record.get("start_band")
            because = search_record.get("because") or SEARCHED_BECAUSE.get(start, f"the level as built played {start}")
            feedback.append(f"balance knob search ({because}): {search_record.get('note')}")
        verdict = Verdict(stage="level", passed=passed, criteria=results, feedback=feedback,
                          judged_by="automated checks + " + (ctx.visual.judged_by if ctx.visual else "no visual review"),
                          unrecoverable="" if passed or not ctx.visual else ctx.visual.unrecoverable)
        self._save_traces(runs)
        return {"verdicts": {"level": verdict}, "runs": [r.summary() for r in runs], "certificate": certificate,
                "simulation": sim_record,
                "evidence": ctx.evidence, "visual": ctx.visual.model_dump(mode="json") if ctx.visual else {},
                "route": "gate_level", "stage_times": self._timed("level_validate", t0)}

    def _certificate(self, state: dict, runs: list[SimRun]) -> dict | None:
        """The level's certificate, from the games started behind the validation runs (or cached)."""
        return scenario_certificate(self.out, {"status": "playable", "runs": [r.summary() for r in runs],
                                               "options": state.get("options") or {}},
                                    cache_dir=self.ctx.validation_cache.root, started=self.ctx.certificate_games)

    def tune_difficulty(self, state: dict) -> dict:
        """Scales the design's balance knob until the certificate's band is the one asked for, or any certified
        band when none was asked and the reference lost a seed or a cheap policy won them all (see
        genesis.difficulty); a tuned level is validated again from the start, an untuned one goes to the gate
        with the search on record."""
        from genesis.difficulty import search

        t0 = time.perf_counter()
        gdd = state["gdd"]
        start, *want = state["difficulty_target"]
        self.ctx.say("level", f"tuning {gdd.variation.knob or 'no knob'}: the level plays {start}, "
                              f"searching for a certified {' or '.join(want)} level")
        timeout = float(state["options"].get("sim_timeout", DEFAULT_TIMEOUT_S))
        pool = self._pool(state)

        def certify_trial(path: Path) -> dict:
            return certify_cached(path, self.ctx.validation_cache.root, pool, timeout_s=timeout).model_dump()

        # a trial that certifies ships only if every requirement holds on it: still failing only those that failed
        # before, it has not gone far enough; failing one that held before, too far
        before = {r.id for r in _failed_requirements(gdd, state.get("evidence"))}
        checked = [r for r in gdd.requirements if r.testable and r.expect]
        size = load_map(MapRef.model_validate(state["level"]["map"]), self.out)     # the knob never moves the map

        def requirements_on(path: Path) -> tuple[str, str]:
            runs = CachedBatch(validation_jobs(str(path), checked), self.ctx.validation_cache, pool).results(
                timeout_s=timeout)
            failed = sorted(e["id"] for e in requirement_evidence(checked, runs, (size.width, size.height), path)
                            if e["status"] != "verified")
            said = "requirements failed: " + ", ".join(failed)
            return (HELD, "") if not failed else (PAST, said) if set(failed) - before else (SHORT, said)

        record, tuned, _ = search(self.out / F.LEVEL, start, tuple(want), gdd.variation.knob, certify_trial,
                                  holds=requirements_on if checked else None, harder=gdd.variation.knob_harder,
                                  widest=MAX_FACTOR if _asked_difficulty(state) else REBALANCE_FACTOR)
        record.because = _search_cause(start, sorted(before))
        update: dict[str, Any] = {"difficulty_search": record.model_dump(mode="json"),
                                  "stage_times": self._timed("difficulty", t0)}
        if tuned is None:      # the gate judges the level as it is, with the search on record
            return {**update, "route": "validate_level"}
        atomic_write_json(self.out / F.LEVEL, tuned)
        return {**update, "level": tuned, "route": "validate_level"}

    def _pool(self, state: dict):
        return self.ctx.sim_pool(int((state.get("options") or {}).get("sim_processes") or generation_processes()))

    def _start_certificate(self, state: dict, level_path: Path, validation_jobs: list[SimJob]) -> None:
        """Queues the certificate's games behind the validation runs, so they use the workers those
        leave idle while the pipeline goes on; dropped if the level is rejected. The full games of
        the validation are the prior runs the certificate reuses. The caller has dropped an earlier level's
        games before queuing the runs (dropping closes the pool)."""
        if not certificate_enabled() or cached_certificate(self.ctx.validation_cache.root, level_path) is not None:
            return
        full = [{"policy": j.policy, "seed": j.seed} for j in validation_jobs if not j.prefix_only]
        try:
            self.ctx.certificate_games = CertificateGames(
                level_path, self._pool(state), reused=prior_keys(full),
                timeout_s=float(state["options"].get("sim_timeout", DEFAULT_TIMEOUT_S)))
        except EngineError:       # the validation runs report why the level does not load
            pass

    def _save_traces(self, runs: list[SimRun]) -> None:
        for r in runs:
            if r.events:
                lines = "\n".join(json.dumps(e, sort_keys=True) for e in r.events)
                atomic_write_text(self.out / "runs" / f"{r.policy}_seed{r.seed}.jsonl", lines + "\n")

    def _visual(self, state: dict, gdd: GDD, run: SimRun) -> VisualVerdict:
        from genesis.report.replay_widget import read_replay
        from genesis.visual import review, review_context, review_frames

        frames = review_frames(self.out / "frames")
        cfg = self.ctx.client.config
        # a VLM judges unless the offline backend answers (live, or in a replay of an offline run)
        if self.ctx.client.backend_name("vlm") not in ("offline", "replay of offline"):
            seen = _frames_key(state, [f.path for f in frames])
            if seen in self._judged_frames and self.ctx.client.call_plan >= 2:
                return self._judged_frames[seen]     # the same frames of the same level: the reviewer is not asked again
            try:
                # the level's own description: a level retry may have changed the design the GDD states
                verdict = self.ctx.analyst.visual_review(state["query"], state["level"]["description"],
                                                         [f.path for f in frames],
                                                         context=review_context(frames, read_replay(self.out / REPLAY_FILE)))
                self._judged_frames[seen] = verdict
                return verdict
            except ModelCallError as exc:
                return VisualVerdict(playable=False, aligned=False, observations=[], problems=[str(exc)],
                                     judged_by=f"VLM {cfg.for_role('vlm').model} (failed)", unrecoverable=exc.permanent)
        from engine import load_level, Simulation

        snap = Simulation(load_level(self.out / "level.json"), seed=0, policies={}).snapshot()
        fronts = state["brief"].concepts.fronts if gdd.reference_strategy == "defend" else None
        return review(frames, snap.team_colors, player=0, fronts=fronts)

    # ---- the PM's gates -----------------------------------------------------------------------
    def gate(self, stage: str):
        def node(state: dict) -> dict:
            update = decide(state)
            if stage == "level" and update.get("route") != "evolve":   # the level will not be kept as it is
                self.ctx.drop_certificate_games()
            return update

        def decide(state: dict) -> dict:
            verdict: Verdict = state["verdicts"][stage]
            attempts = state.get("attempts", {}).get(stage, 0) + 1
            total = state.get("iterations", 0) + 1
            entry = None if verdict.passed else self._feedback_entry(state, stage, verdict)
            self._log_verdict(state, stage, verdict, total)
            mf = settled_decision(stage, verdict)
            try:
                mf = mf or self.ctx.pm.gate(stage, verdict, state.get("decisions", []), attempts, STAGE_BUDGET, total,
                                      TOTAL_BUDGET, entry["signatures"] if entry else [],
                                      evidence=state.get("evidence") if stage == "level" else None,
                                      runs=state.get("runs") if stage == "level" else None,
                                      query=state.get("query", ""),
                                      summary=_summary_at(state, stage))
            except ModelCallError as exc:
                return {"status": "failed", "stop_reason": f"PM failed at {stage}: {exc}", "route": "finalize"}
            mf, override = bound_decision(stage, verdict, mf, attempts=attempts, stage_budget=STAGE_BUDGET,
                                          total=total, total_budget=TOTAL_BUDGET)
            decision = {"stage": stage, "attempt": attempts, "iteration": total, **mf.model_dump(mode="json"),
                        **({"override": override} if override else {})}
            update: dict[str, Any] = {"attempts": {stage: attempts}, "iterations": total, "decisions": [decision]}
            if entry:
                update["feedback"] = [entry]
            self.ctx.say(stage, f"PM: {mf.decision} -> {mf.target_stage} ({mf.reason})")
            if mf.decision == "stop":
                update.update(status=_stopped_status(stage, verdict, state), route="finalize",
                              stop_reason=f"stopped at stage {stage}: {mf.reason}. Failing: " + bounded_join(mf.guidance, 800))
                return update
            target = {"advance": NEXT_STAGE[stage], "retry": stage}.get(mf.decision, mf.target_stage)
            if target == "done":
                return {**update, "route": "evolve"}
            if mf.decision == "advance":   # the next stage starts a new visit with its own budget
                update["attempts"] = {stage: attempts, target: 0}
            elif mf.decision == "rollback":  # so does every stage from the rollback target on
                update["attempts"] = {s: 0 for s in STAGE_ORDER[STAGE_ORDER.index(target):]}
            if mf.guidance:  # guidance accumulates so repeated corrections (e.g. "stronger") add up
                update["guidance"] = {target: state.get("guidance", {}).get(target, []) + mf.guidance}
            # what this gate said is the target's latest guidance (none is none: an earlier visit's guidance is shown
            # as earlier); after a rollback, so is the later stages' guidance from before it
            update["guidance_latest"] = {target: len(mf.guidance)}
            if mf.decision == "rollback":
                update["guidance_latest"].update({s: 0 for s in STAGE_ORDER[STAGE_ORDER.index(target) + 1:]})
            if mf.decision != "advance":
                later = STAGE_ORDER[STAGE_ORDER.index(target) + 1:]  # their artifacts will be rewritten
                update["retry"] = {**{s: None for s in later}, target: self._retry_context(state, stage, verdict, target)}
            update["route"] = {"brief": "clarify", "gdd": "write_gdd", "rules": "write_rules",
                               "level": "assemble_level"}[target]
            return update
        return node

    def _retry_context(self, state: dict, stage: str, verdict: Verdict, target: str) -> RetryContext:
        """What the writer of `target` sees next: its rejected artifact, the raw errors and every judge's words."""
        where = "" if stage == target else f"[stage {stage}] "
        errors = [f"{where}{c.id}: {c.reason}"[:MAX_ERROR_CHARS] for c in verdict.criteria if not c.passed]
        feedback = list(verdict.feedback)  # the analyst's (GDD) or the visual reviewer's (level) words
        return RetryContext(previous=previous_text(target, state.get(target), state.get("rules")),
                            errors=errors[:MAX_RETRY_ERRORS], judge_feedback=list(dict.fromkeys(feedback))[:MAX_RETRY_ERRORS])

    def _retry(self, state: dict, stage: str) -> RetryContext | None:
        return (state.get("retry") or {}).get(stage)

    def _rule_retry(self, state: dict, comp_id: str, verified: RuleArtifact | None) -> RetryContext | None:
        """The rules retry as one component's writer sees it: its own rejected rule only (the others are
        asked, or kept, on their own), and none when the verified rule shown beside it is that same rule."""
        retry = self._retry(state, "rules")
        if retry is None or not retry.previous:
            return retry
        own = [r for r in state.get("rules") or [] if r.id == comp_id]
        if verified is not None and all(r.source == verified.source for r in own):
            own = []
        return retry.model_copy(update={"previous": previous_text("rules", own)})

    def _feedback_entry(self, state: dict, stage: str, verdict: Verdict) -> dict:
        failed = [c for c in verdict.criteria if not c.passed]
        sigs = [c.kind.split(":")[-1] for c in failed] + run_hints(stage, state.get("runs") or [])
        return {"run_id": state["run_id"], "query": state["query"], "stage": stage,
                "failed": [shorten(f"{c.id}: {c.reason}", 300) for c in failed], "signatures": sorted(set(sigs)),
                "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}

    def _log_verdict(self, state: dict, stage: str, verdict: Verdict, iteration: int) -> None:
        """Every verdict reaches the workspace's feedback log at once, passed or failed."""
        artifact = None if verdict.passed else save_artifacts(self.ctx.rubrics_root, state, stage, self.out)
        append_feedback(self.ctx.rubrics_root, [verdict_record(state, stage, verdict, iteration, artifact)])

    # ---- self-evolution -----------------------------------------------------------------------
    def evolve(self, state: dict) -> dict:
        from genesis.pipeline.evolution import evolve

        t0 = time.perf_counter()
        self.ctx.say("evolve", "committing to the knowledge base and running the retrospective")
        result = evolve(self.ctx, state)
        return {"evolution": result, "status": "playable", "route": "finalize", "stage_times": self._timed("evolve", t0)}

    def finalize(self, state: dict) -> dict:
        from genesis.pipeline.finalize import write_outputs

        status = state.get("status") or "failed"
        write_outputs(self.ctx, {**state, "status": status})
        return {"status": status}


def stage_guidance(state: dict, stage: str) -> Guidance:
    """The stage's accumulated PM guidance, the last gate's items marked as the latest (a state from before
    the count was kept reads as all latest)."""
    items = state.get("guidance", {}).get(stage, [])
    latest = state.get("guidance_latest", {}).get(stage, len(items))
    return Guidance(items, earlier=len(items) - latest)


def _frames_key(state: dict, paths: list) -> str:
    """What a visual review judged: the request, the level's description and every frame's bytes."""
    digest = hashlib.sha256(f"{state['query']}\0{state['level']['description']}".encode())
    for p in paths:
        digest.update(Path(p).read_bytes())
    return digest.hexdigest()


def _stopped_status(stage: str, verdict: Verdict, state: dict) -> str:
    """`not_certified` when the level plays and only its certificate fails (at the level gate, or at an
    earlier gate after a rollback from a level that played but was not certified), else `failed`."""
    failing = {c.kind for c in verdict.criteria if c.mandatory and not c.passed}
    if stage == "level":
        return "not_certified" if failing and failing <= set(CERTIFIED_KINDS) else "failed"
    return "not_certified" if state.get("certificate") and (state.get("verdicts") or {}).get("level") else "failed"


# why a search ran, by the band the level as built played (the feedback a failed search leaves)
SEARCHED_BECAUSE = {"impossible": "the reference lost a seed of the level as built: searched easier",
                    "trivial": "the level as built was too easy: a cheap policy won every seed: searched harder"}


def _summary_at(state: dict, stage: str) -> str:
    """What the PM is told the scenario is: the design's summary once the design stands (a rules or level gate;
    the design may have changed units or the map since the brief), else the brief's."""
    gdd, brief = state.get("gdd"), state.get("brief")
    if stage in ("rules", "level") and gdd is not None:
        return gdd.summary
    return brief.summary if brief else ""


def _search_cause(start: str, failed: list[str]) -> str:
    """Why the knob search ran: the requirements a careless run did not fail as they say, else the band."""
    if failed and start == "trivial":
        return (f"requirement(s) {', '.join(failed)} failed on the level as built, each on a careless run (idle, rush, "
                "a probe) that did not lose as it says: searched harder")
    return SEARCHED_BECAUSE.get(start, f"the level as built played {start}")


def _failed_requirements(gdd: GDD, evidence: list[dict] | None) -> list[Requirement]:
    """The GDD's requirements the validation runs failed."""
    failed = {e["id"] for e in evidence or [] if e.get("status") == "failed"}
    return [r for r in gdd.requirements if r.id in failed]


def _asked_difficulty(state: dict) -> str | None:
    brief = state.get("brief")
    return (state.get("options") or {}).get("difficulty") or (brief.concepts.difficulty if brief else None)


def with_difficulty(brief: Brief, asked: str | None) -> Brief:
    """The brief with the difficulty of `--difficulty` (over the request's own words) and its requirement."""
    if not asked or not brief.is_game:
        return brief
    concepts = brief.concepts.model_copy(update={"difficulty": asked})
    requirements = [r for r in brief.requirements if r.id != "difficulty"] + [Requirement(
        id="difficulty", testable=False, text=f"the scenario is {asked}: the validity certificate's ladder puts it in "
                                              f"the {asked} band (checked by the level gate's difficulty criterion)")]
    note = f"difficulty {asked}: from --difficulty" + (
        f" (the request asked for {brief.concepts.difficulty})" if brief.concepts.difficulty not in (None, asked) else "")
    return brief.model_copy(update={"concepts": concepts, "requirements": requirements,
                                    "assumptions": [*brief.assumptions, note]})
