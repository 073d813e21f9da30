"""The level rubric's outcome checks on hand-made simulation results (no engine run)."""
from __future__ import annotations

from genesis.checks.context import CheckContext
from genesis.checks.level_checks import outcome_discrimination, reference_wins
from genesis.offline.pm_brain import WEAKER, meta_feedback
from genesis.simulate import SimRun

WIN = {"winners": [0], "losers": [1], "reason": "survive_timer_win: survived until the end"}
LOSS = {"winners": [1], "losers": [0], "reason": "protect_objective_loss: objective destroyed"}


def _ctx(*runs: tuple[str, int, dict]) -> CheckContext:
    return CheckContext(runs=[SimRun(seed=seed, policy=policy, ok=True, **outcome) for policy, seed, outcome in runs])


def test_reference_must_win_every_seed_even_when_it_beats_idle_on_average():
    # the case the experiment's independent validator caught: 2 of 3 seeds won, idle always loses
    ctx = _ctx(("reference", 0, WIN), ("reference", 0, WIN), ("reference", 1, WIN), ("reference", 2, LOSS),
               ("idle", 0, LOSS), ("idle", 1, LOSS))
    assert outcome_discrimination(ctx)[0]
    ok, detail = reference_wins(ctx)
    assert not ok and detail.startswith("reference policy won 2/3 seeds; seed 2: protect_objective_loss")


def test_reference_wins_counts_each_seed_once_and_needs_runs():
    ok, detail = reference_wins(_ctx(("reference", 0, WIN), ("reference", 0, WIN), ("reference", 1, WIN)))
    assert ok and detail == "reference policy won 2/2 seeds"
    assert reference_wins(_ctx(("idle", 0, LOSS))) == (False, "needs reference runs")
    undecided = {"winners": [], "losers": [], "reason": "", "ended_by": "time_limit"}
    assert not reference_wins(_ctx(("reference", 0, undecided)))[0]


def test_offline_pm_answers_a_lost_seed_by_weakening_the_enemy_in_the_design():
    verdict = {"stage": "level", "passed": False, "criteria": [
        {"id": "reference_wins", "passed": False, "mandatory": True, "kind": "check:reference_wins",
         "reason": "reference policy won 2/3 seeds; seed 2: objective destroyed"}]}
    mf = meta_feedback({"stage": "level", "verdict": verdict, "attempts": 1, "budget": 3})
    assert mf.decision == "rollback" and mf.target_stage == "gdd" and mf.guidance[0] == WEAKER


def test_outcome_discrimination_names_every_run_and_the_score_scale():
    ok, why = outcome_discrimination(_ctx(("reference", 0, WIN), ("reference", 1, WIN), ("reference", 2, WIN),
                                          ("reference", 3, LOSS), ("idle", 0, LOSS), ("idle", 1, LOSS)))
    assert ok
    assert "over 4 runs" in why and "seed 3: 0 (protect_objective_loss" in why
    assert "1 for a win, 0.5 undecided, 0 for a loss" in why


def test_a_run_summary_lists_the_players_refused_orders_by_kind_and_reason():
    events = [{"t": 1.0, "event": "order", "team": 0, "kind": "build", "ok": False, "error": "no_resources"},
              {"t": 2.0, "event": "order", "team": 0, "kind": "build", "ok": False, "error": "no_resources"},
              {"t": 2.0, "event": "order", "team": 0, "kind": "move", "ok": True},
              {"t": 3.0, "event": "order", "team": 1, "kind": "fight", "ok": False, "error": "not_owner"}]
    summary = SimRun(seed=0, policy="reference", ok=True, events=events).summary()
    assert summary["orders_refused"] == {"build: no_resources": 2}
    assert "orders_refused" not in SimRun(seed=0, policy="reference", ok=True, events=events[2:]).summary()


def test_a_level_that_leaves_out_a_gdd_rule_component_fails_its_schema_check(tmp_path):
    import json

    from genesis.checks.level_checks import schema
    from genesis.level_assembly import assemble_level
    from genesis.offline.brief_writer import write_brief
    from genesis.offline.concepts import read
    from genesis.offline.gdd_writer import design

    q = "defend two fronts against three waves"
    gdd = design(write_brief(q, read(q), []))
    level = assemble_level(gdd, [{"id": c.id, "params": c.params} for c in gdd.rule_components])
    (tmp_path / "rules").mkdir()
    for c in gdd.rule_components:
        (tmp_path / "rules" / f"{c.id}.lua").write_text("function on_start() end")
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    assert schema(CheckContext(gdd=gdd, level=level, level_path=path))[0]
    dropped = {**level, "rules": level["rules"][1:]}
    path.write_text(json.dumps(dropped))
    ok, why = schema(CheckContext(gdd=gdd, level=dropped, level_path=path))
    assert not ok and gdd.rule_components[0].id in why


def test_a_lost_reference_seed_says_where_each_army_ended(tmp_path):
    import json

    from genesis.simulate import SimJob, run_job

    level = {"name": "lost", "description": "d", "map": {"name": "open_field"},
             "switches": {"fog_of_war": False, "production": False, "time_limit": 60},
             "teams": [{"id": 0, "name": "p", "units": [{"type": "light_bot", "x": 6, "y": 6}]},
                       {"id": 1, "name": "e", "controller": {"type": "ai", "behaviour": "idle"},
                        "units": [{"type": "heavy_tank", "x": 40, "y": 40, "count": 2}]}],
             "conditions": [{"kind": "survive_until", "team": 1, "time": 60}]}
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    run = run_job(SimJob(str(path), 0, "idle"))
    assert run.end_state["1"]["units"] == 2 and abs(run.end_state["1"]["mobile_at"][1] - 40) < 2
    ok, detail = reference_wins(CheckContext(runs=[run.__class__(**{**run.to_json(), "policy": "reference"})]))
    assert not ok and "at the end: team 0 has 1 unit, its army around (6, 6), 0 metal; team 1 has 2 units, its army " \
        "around" in detail


def test_a_runs_end_says_what_the_rules_drew_at_the_start():
    from genesis.simulate import SimRun, end_text
    run = SimRun(seed=2, policy="reference", ok=True, end_state={"0": {"units": 0, "mobile_at": None, "metal": 0}},
                 events=[{"t": 0.0, "event": "rule_log", "rule": "layout", "name": "layout",
                          "fields": {"name": "nest at the north-east site", "index": 3, "units": [1, 2]}},
                         {"t": 0.0, "event": "rule_log", "rule": "layout", "name": "again", "fields": {}},
                         {"t": 30.0, "event": "rule_log", "rule": "waves", "name": "wave", "fields": {"n": 1}}])
    text = end_text(run)
    assert text.startswith("at the start: layout logged layout (name=nest at the north-east site, index=3)")
    assert "again" not in text and "wave" not in text and "at the end: team 0 has 0 units" in text
