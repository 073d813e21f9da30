"""`genesis play`: metrics on the reference scenarios, trajectories, the LLM agent, the CLI."""
from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis.cli import app
from genesis.play import PlayError, play
from genesis.play.metrics import EpisodeMetrics, aggregate, rank_of, rank_score
from genesis.play.trajectories import read_trajectories
from genesis.workspace import seed_kb

LEVELS = seed_kb() / "levels"


def _play(tmp_path: Path, level: str, policy: str, seeds: int = 1, **kw):
    return play(LEVELS / level, policy, seeds, out=tmp_path / level / policy, **kw)


# --- reference scenarios ---------------------------------------------------------------------------
@pytest.mark.parametrize("level", ["TCP", "MFD", "FS-F", "FS-T", "SP"])
def test_reference_policy_beats_idle(tmp_path, level):
    ref = _play(tmp_path, level, "reference").summary
    idle = _play(tmp_path, level, "idle").summary
    assert ref["win_rate"] == 1.0 and idle["win_rate"] == 0.0
    assert ref["avg_time_to_objective_s"] is not None and idle["avg_time_to_objective_s"] is None
    assert ref["valid_action_rate"] == 1.0 and ref["actions_valid"] > 0
    assert idle["actions_valid"] == 0 and idle["valid_action_rate"] is None
    if level == "FS-F":      # free-for-all: ranked by damage efficiency
        assert ref["rank_score"] == 1.0 and idle["rank_score"] < 1.0
        assert ref["damage_efficiency"] > idle["damage_efficiency"]


@pytest.mark.slow
@pytest.mark.parametrize("level", ["TCP", "MFD", "FS-F", "FS-T", "SP"])
def test_reference_wins_every_seed_and_random_does_not_beat_it(tmp_path, level):
    ref = _play(tmp_path, level, "reference", seeds=3).summary
    rnd = _play(tmp_path, level, "random", seeds=3).summary
    # FS-F: the AI sides choose their targets and on some seeds gang up on the agent's side; FS-T: the
    # alliance fights two enemies that guard their half together
    if level == "FS-F":
        assert ref["rank_score"] >= 0.8 and rnd["rank_score"] < ref["rank_score"]
        return
    assert ref["win_rate"] >= (0.6 if level == "FS-T" else 1.0)
    assert rnd["win_rate"] < ref["win_rate"]


def test_metrics_of_a_won_and_a_lost_episode(tmp_path):
    won = _play(tmp_path, "SP", "reference").rows[0]
    assert won.outcome == "win" and won.ended_by == "condition"
    assert won.time_to_objective_s == won.game_time_s < 300
    assert won.damage_efficiency == round(won.damage_dealt / won.damage_received, 3)
    lost = _play(tmp_path, "MFD", "idle").rows[0]
    assert lost.outcome == "loss" and lost.time_to_objective_s is None
    assert lost.damage_dealt == 0 and lost.damage_efficiency == 0.0
    assert lost.rank_score is None            # 2-team level: no rank score


# --- metric definitions ------------------------------------------------------------------------------
def _row(seed: int, outcome: str, t: float, dealt=100.0, received=50.0, score=None, valid=3, invalid=1,
         codes=None) -> EpisodeMetrics:
    return EpisodeMetrics(
        seed=seed, team=0, outcome=outcome, reason="", ended_by="condition", game_time_s=t,
        time_to_objective_s=t if outcome == "win" else None, damage_dealt=dealt, damage_received=received,
        damage_efficiency=dealt / max(received, 1), rank=None, rank_score=score,
        gt_side=outcome if outcome in ("win", "loss") else None, decisions=5, actions_valid=valid,
        actions_invalid=invalid, valid_action_rate=None, invalid_by_code=codes or {"unknown_unit": invalid},
        wall_s=1.0, trace_hash="x")


def test_aggregate_follows_the_definitions():
    rows = [_row(0, "win", 60.0, score=1.0), _row(1, "win", 100.0, score=0.67),
            _row(2, "loss", 40.0, dealt=0.0, received=300.0, score=0.0, codes={"off_map": 1}),
            _row(3, "draw", 200.0, score=None)]
    a = aggregate(rows)
    assert a["win_rate"] == 0.5
    assert a["game_time_win_s"] == 80.0 and a["game_time_loss_s"] == 40.0   # the draw is neither
    assert a["avg_time_to_objective_s"] == (60 + 100) / 2                    # successful runs only
    assert a["damage_efficiency"] == round(300 / 450, 3)                     # total dealt / total received
    assert a["rank_score"] == round((1.0 + 0.67 + 0.0) / 3, 2)
    assert a["valid_action_rate"] == 12 / 16
    assert a["invalid_by_code"] == {"off_map": 1, "unknown_unit": 3}


def test_rank_score_of_four_teams_and_ranks_derived_from_winners():
    assert [rank_score(r, 4) for r in (1, 2, 3, 4)] == [1.0, 0.67, 0.33, 0.0]
    assert rank_score(1, 2) is None

    class Result:
        ranks = None
        winners = [0, 1]
    assert rank_of(Result, 0, 4) == 1 and rank_of(Result, 3, 4) == 3      # losers share the next place
    assert rank_of(Result, 0, 2) is None


# --- trajectories ---------------------------------------------------------------------------------------
def test_trajectories_jsonl_one_line_per_decision(tmp_path):
    out = _play(tmp_path, "TCP", "reference")
    lines = read_trajectories(out.trajectories_path)
    row = out.rows[0]
    assert len(lines) == row.decisions > 0
    assert [ln["decision"] for ln in lines] == list(range(len(lines)))
    assert all(ln["seed"] == 0 and ln["policy"] == "reference" for ln in lines)
    assert all(len(ln["actions"]) == len(ln["results"]) for ln in lines)
    assert sum(len(ln["actions"]) for ln in lines) == row.actions_valid + row.actions_invalid
    first = lines[0]
    assert first["observation"]["team"] == 0 and "resources" in first["observation"]   # JSON obs for scripted
    assert first["state"]["own_units"] >= 1 and first["response"] is None
    built = [a for ln in lines for a in ln["actions"] if a["action"] == "build"]
    assert built, "the reference policy builds in TCP"
    saved = json.loads(out.metrics_path.read_text())
    assert saved["aggregate"]["win_rate"] == 1.0 and saved["episodes"][0]["trace_hash"] == row.trace_hash


def test_default_output_is_inside_the_scenario_folder(tmp_path):
    scenario = tmp_path / "my-scenario"
    scenario.mkdir()
    shutil.copy(LEVELS / "FS-F" / "level.json", scenario / "level.json")   # no rule scripts to resolve
    out = play(scenario, "idle", 2)
    assert out.trajectories_path == scenario / "play" / "idle" / "trajectories.jsonl"
    assert {ln["seed"] for ln in read_trajectories(out.trajectories_path)} == {0, 1}
    assert (scenario / "play" / "idle" / "metrics.json").is_file()


def test_bad_input_raises_play_error(tmp_path):
    with pytest.raises(PlayError, match="no such"):
        play(tmp_path / "missing", "idle")
    with pytest.raises(PlayError, match="no level.json"):
        play(tmp_path, "idle")
    with pytest.raises(PlayError, match="unknown agent"):
        play(LEVELS / "MFD", "genius")
    with pytest.raises(PlayError, match="teams"):
        play(LEVELS / "MFD", "idle", team=7)
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1}')
    with pytest.raises(PlayError, match="cannot load"):
        play(bad, "idle")


# --- the LLM agent with recorded replies ------------------------------------------------------------------
GOOD = json.dumps({"thoughts": "group and meet the first wave",
                   "actions": [{"action": "assign_squad", "squad": "a", "units": [0, 1, 2, 3, 4, 5]},
                               {"action": "squad_move", "squad": "a", "x": 48, "y": 30}]})
FENCED_WITH_BAD_ACTION = '```json\n[{"action": "squad_move", "squad": "a", "x": 70, "y": 48}, {"action": "fly"}]\n```'


@pytest.fixture
def recorded_replies(monkeypatch):
    """Feeds litellm.completion one recorded reply per call (litellm's own mock_response path)."""
    import litellm

    real = litellm.completion
    calls: list[dict] = []

    def install(replies):
        it = itertools.cycle(replies)

        def fake(**kwargs):
            calls.append(kwargs)
            return real(**kwargs, mock_response=next(it))
        monkeypatch.setattr(litellm, "completion", fake)
        return calls
    return install


def _llm(**kw):
    from genesis.play.llm_agent import LLMSettings

    return LLMSettings(model="openai/recorded", num_retries=0, **kw)


def test_llm_agent_counts_garbage_and_failures_without_crashing(tmp_path, recorded_replies):
    three_stops = json.dumps([{"action": "squad_stop", "squad": "a"}] * 3)
    calls = recorded_replies([GOOD, "I think we should attack!!!", RuntimeError("server down"),
                              FENCED_WITH_BAD_ACTION, '{"moves": 3}', three_stops])
    out = _play(tmp_path, "MFD", "llm", decision_interval=6.0,
                llm_settings=_llm(vision=False, max_actions=2, memory=False))
    row, agg = out.rows[0], out.summary
    assert row.decisions == len(calls) >= 6
    # invalid: no JSON, failed call, unknown kind, wrong shape, over the action limit (2 of 3 run)
    assert {"unparsable_response", "llm_error", "unknown_action", "bad_response", "too_many_actions"} <= set(row.invalid_by_code)
    assert row.actions_valid >= 3 and 0 < row.valid_action_rate < 1
    assert agg["llm"]["calls"] == len(calls) and agg["llm"]["failed_calls"] >= 1
    assert agg["llm"]["completion_tokens"] > 0
    lines = read_trajectories(out.trajectories_path)
    assert lines[1]["response"] == "I think we should attack!!!" and lines[1]["actions"] == []
    assert lines[1]["errors"][0]["code"] == "unparsable_response"
    assert lines[2]["response"] is None and lines[2]["errors"][0]["code"] == "llm_error"
    assert all(ln["memory"] is None for ln in lines)          # the "w/o memory" ablation: one call each
    assert len(lines[5]["actions"]) == 2 and lines[5]["errors"][-1]["code"] == "too_many_actions"
    assert calls[0]["timeout"] == 60.0 and calls[0]["num_retries"] == 0
    assert calls[0]["messages"][0]["role"] == "system" and "Mission" in calls[0]["messages"][0]["content"]
    assert (out.trajectories_path.parent / "system_prompt.txt").read_text() == calls[0]["messages"][0]["content"]


def test_llm_agent_survives_malformed_actions(tmp_path, recorded_replies):
    # shapes a small real model produced, plus other JSON values where objects / strings belong
    weird = json.dumps({"actions": [{"action": {"kind": "move"}}, 5, "squad_move", None, [1],
                                    {"action": "squad_move", "squad": ["a"], "x": "1", "y": 2},
                                    {"action": "move_units", "units": [-1, 10**12], "x": 1e308, "y": 2}]})
    recorded_replies([weird])
    row = _play(tmp_path, "MFD", "llm", decision_interval=50.0, llm_settings=_llm(vision=False, memory=False)).rows[0]
    assert row.actions_valid == 0 and row.actions_invalid == 7 * row.decisions
    assert set(row.invalid_by_code) == {"unknown_action", "bad_action", "unknown_unit"}


def test_llm_agent_sends_minimap_and_cameras_to_vision_models(tmp_path, recorded_replies):
    calls = recorded_replies([GOOD])
    _play(tmp_path, "MFD", "llm", decision_interval=30.0, llm_settings=_llm(vision=True, memory=False))
    first, later = calls[0]["messages"][1]["content"], calls[1]["messages"][1]["content"]
    assert first[0]["type"] == "text" and "Attached images: minimap" in first[0]["text"]
    urls = [p["image_url"]["url"] for p in later if p["type"] == "image_url"]
    # minimap + cameras on squad "a" and the home base (MFD's army is all in squad "a")
    assert len(urls) == 3 and all(u.startswith("data:image/png;base64,") for u in urls)
    assert "camera a, camera home base" in later[0]["text"]


def test_parse_reply_accepts_common_shapes_and_rejects_garbage():
    from genesis.play.llm_agent import ReplyError, parse_reply

    assert len(parse_reply(GOOD).actions) == 2
    assert len(parse_reply(FENCED_WITH_BAD_ACTION).actions) == 2
    assert parse_reply('Sure! {"action": "squad_stop", "squad": "a"} done').actions == [{"action": "squad_stop", "squad": "a"}]
    for text, code in (("", "unparsable_response"), ("no json here", "unparsable_response"),
                       ('{"actions": "attack"}', "bad_response"), ('{"plan": 1}', "bad_response")):
        with pytest.raises(ReplyError) as err:
            parse_reply(text)
        assert err.value.code == code


def test_llm_roster_cuts_build_options_to_the_level():
    """MFD places the raiders' Bot Lab with production off: the briefing lists the lab and, of the bots
    it could make, only the Light Bots of the waves (the others never occur); it renders."""
    from engine import load_level
    from engine.agent.knowledge import knowledge_text
    from genesis.play.llm_agent import level_roster

    level = level_roster(load_level(LEVELS / "MFD" / "level.json"))
    units = level.catalog.units
    assert "bot_lab" in units and units["bot_lab"].builds == ["light_bot"] and "constructor_bot" not in units
    assert all(b in units for u in units.values() for b in u.builds)
    assert "Bot Lab" in knowledge_text(level, 0)


# --- CLI ----------------------------------------------------------------------------------------------------
def test_cli_exit_codes_and_json(tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["play", str(LEVELS / "MFD"), "--agent", "llm", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and "--model" in res.output
    assert not (tmp_path / "x").exists()
    assert runner.invoke(app, ["play", str(tmp_path / "nowhere"), "--agent", "idle"]).exit_code == 2
    assert runner.invoke(app, ["play", str(LEVELS / "MFD"), "--agent", "nobody"]).exit_code == 2
    res = runner.invoke(app, ["play", str(LEVELS / "MFD"), "--agent", "idle", "--json", "--out", str(tmp_path / "t.jsonl")])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["aggregate"]["win_rate"] == 0.0 and data["episodes"][0]["outcome"] == "loss"
    assert (tmp_path / "t.jsonl").is_file() and (tmp_path / "metrics.json").is_file()
    res = runner.invoke(app, ["play", str(LEVELS / "MFD"), "--agent", "reference", "--out", str(tmp_path / "r")])
    assert res.exit_code == 0 and "WR 100%" in res.stdout
