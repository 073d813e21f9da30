"""Competency scores and the decision analysis on crafted decisions, and in `genesis play` output."""
from __future__ import annotations

import json
from pathlib import Path

from genesis.play import play
from genesis.play.analysis import competency_of, competency_score, decision_analysis
from genesis.play.episode import Episode, Step

LEVELS = Path(__file__).resolve().parents[2] / "kb" / "levels"


def _step(t: float, actions: list, oks: list[bool], codes: list[str | None], reply_error: str | None = None) -> Step:
    results = [{"index": i, "ok": ok, "code": code, "message": ""} for i, (ok, code) in enumerate(zip(oks, codes))]
    return Step(decision=0, t=t, observation=None, state={}, response=None, actions=actions, results=results,
                error_code=reply_error, error=None, usage=None)


def test_decision_analysis_by_quarter_correction_and_mix():
    move = {"action": "squad_move", "squad": "a", "x": 1, "y": 1}
    bad = {"action": "move_units", "units": [999], "x": 1, "y": 1}
    steps = [
        _step(0.0, [move, bad], [True, False], [None, "unknown_unit"]),        # q1: 1 valid, 1 invalid
        _step(30.0, [bad], [False], ["unknown_unit"]),                         # repeats the error: not corrected
        _step(60.0, [move], [True], [None]),                                   # q2: corrected
        _step(110.0, [], [], [], reply_error="unparsable_response"),           # q3: a reply with no actions
        _step(160.0, ["garbage"], [False], ["bad_action"]),                    # q4: new error code: corrected
    ]
    ep = Episode(seed=0, team=0, result=None, steps=steps, counts={}, wall_s=0.0)
    d = decision_analysis([ep], time_limit=200.0)
    assert d["valid_action_rate_by_quarter"] == [round(1 / 3, 4), 1.0, 0.0, 0.0]
    assert d["after_invalid"] == {"decisions": 3, "corrected": 2, "correction_rate": round(2 / 3, 4)}
    assert d["action_mix"]["move_units"]["count"] == 2 and d["action_mix"]["malformed"]["count"] == 1
    assert sum(v["count"] for v in d["action_mix"].values()) == 5


def test_competency_comes_from_the_scenario_and_picks_the_paper_metrics(tmp_path):
    assert competency_of(LEVELS / "FS-F" / "level.json", {}) == "opponent_modelling"
    assert competency_of(LEVELS / "MFD" / "level.json", {}) == "spatial_temporal_reasoning"
    (tmp_path / "gdd.json").write_text(json.dumps({"competency": "adversarial_planning"}))
    assert competency_of(tmp_path / "level.json", {}) == "adversarial_planning"
    assert competency_of(tmp_path / "nowhere" / "level.json", {"competency": "cooking"}) is None
    score = competency_score("opponent_modelling", {"rank_score": 0.67, "damage_efficiency": 1.2, "win_rate": 0.0})
    assert score["primary"] == {"metric": "rank_score", "value": 0.67}
    assert score["auxiliary"] == {"metric": "damage_efficiency", "value": 1.2}


def test_play_writes_competency_and_decision_analysis(tmp_path):
    out = play(LEVELS / "SP", "reference", 1, out=tmp_path)
    saved = json.loads(out.metrics_path.read_text())
    assert saved["competency"]["competency"] == "adversarial_planning"
    assert saved["competency"]["primary"] == {"metric": "win_rate", "value": 1.0}
    analysis = saved["decision_analysis"]
    assert analysis["valid_action_rate_by_quarter"][0] == 1.0
    assert {"produce", "squad_move", "assign_squad"} <= set(analysis["action_mix"])
