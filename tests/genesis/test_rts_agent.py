"""RTSGameAgent as the paper defines it: the squad FSM runs between decisions, the memory phase
runs before each decision call, and the ablation switches (--no-fsm, --no-memory, --no-vision)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine import load_level
from engine.agent.events import EventLog, summarize
from genesis.cli import app
from genesis.play import play
from genesis.play.agents import Decision
from genesis.play.episode import run_episode
from genesis.play.runner import default_interval
from genesis.play.trajectories import read_trajectories

LEVELS = Path(__file__).resolve().parents[2] / "kb" / "levels"


class OneOrder:
    """Puts the whole army in squad `a` and sends it north at the first decision, then waits."""

    name = "one-order"

    def __init__(self, kind: str = "squad_move"):
        self.kind = kind

    def start(self, sim, iface) -> None:
        pass

    def decide(self, sim, iface, observation) -> Decision:
        if observation["time"] > 0:
            return Decision(observation=None)
        units = [u["id"] for u in observation["unassigned"]]
        return Decision(observation=None, actions=[{"action": "assign_squad", "squad": "a", "units": units},
                                                   {"action": self.kind, "squad": "a", "x": 48.5, "y": 20.5}])

    def usage(self):
        return None


def _fight_orders(result, team: int = 0) -> list[float]:
    return [e["t"] for e in result.trace if e["event"] == "order" and e.get("team") == team and e.get("kind") == "fight"]


def _north_first(folder: Path) -> Path:
    """MFD with its waves in the stated order (no seeded shuffle): the first wave comes from the north at
    20 s, where the scripted orders send the squad, on every seed."""
    cfg = json.loads((LEVELS / "MFD" / "level.json").read_text())
    for rule in cfg["rules"]:
        rule["params"]["shuffle"] = False
        rule["script"] = str((LEVELS / "MFD" / rule["script"]).resolve())
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "level.json").write_text(json.dumps(cfg))
    for extra in (LEVELS / "MFD").iterdir():
        if extra.name != "level.json":
            (folder / extra.name).write_bytes(extra.read_bytes())
    return folder


def test_squad_fights_between_decisions_at_the_paper_interval(tmp_path):
    level = load_level(_north_first(tmp_path / "MFD") / "level.json")
    ep = run_episode(level, OneOrder(), seed=0, team=0, decision_interval=15.0)
    fights = _fight_orders(ep.result)
    assert fights, "the squad met the first wave but never fought"
    assert any(t % 15.0 > 0.5 for t in fights), fights          # not only at decision times
    assert [round(s.t - ep.steps[0].t, 3) for s in ep.steps[:3]] == [0.0, 15.0, 30.0]   # it decided every 15 s


def test_without_fsm_squad_actions_are_rejected_and_nothing_fights_for_the_agent():
    level = load_level(LEVELS / "MFD" / "level.json")
    ep = run_episode(level, OneOrder(), seed=0, team=0, decision_interval=15.0, fsm=False)
    assert ep.counts["invalid_by_code"] == {"squads_disabled": 2}
    assert _fight_orders(ep.result) == []


def test_default_decision_intervals_follow_the_paper():
    assert default_interval("llm", load_level(LEVELS / "MFD" / "level.json")) == 15.0     # combat
    assert default_interval("llm", load_level(LEVELS / "SP" / "level.json")) == 60.0      # planning
    assert default_interval("reference", load_level(LEVELS / "SP" / "level.json")) == 1.0


def test_event_log_records_sightings_in_line_of_sight_and_battle_events():
    from engine import Simulation

    level = load_level(LEVELS / "TCP" / "level.json")       # fog of war on, raids from outside sight
    sim = Simulation(level, seed=0)
    log = EventLog(0)
    from engine.agent.observation import visible_enemy_ids
    for _ in range(150):                                     # 150 s: the first raid arrives at 90 s
        sim.step(30)
        log.collect(sim, visible_enemy_ids(sim, 0), [])
    events = log.drain()
    sighted = [e for e in events if e["kind"] == "sighted"]
    assert sighted and all(e["team"] == 1 for e in sighted)
    assert all(e["t"] >= 90 for e in sighted)                # nothing seen before the raid came into sight
    assert log.drain() == []                                 # drained = flushed
    assert any("sighted" in line for line in summarize(events))


# --- the memory phase with recorded model replies ------------------------------------------------------
MEMORY_REPLY = json.dumps({"long_term": ["north wave came at 20 s", "storages at N, E, S"],
                           "relevant": ["north wave came at 20 s"]})
DECISION_REPLY = json.dumps({"thoughts": "hold north", "actions": [
    {"action": "assign_squad", "squad": "a", "units": [0, 1, 2, 3, 4, 5]},
    {"action": "squad_move", "squad": "a", "x": 48, "y": 20}]})


@pytest.fixture
def routed_replies(monkeypatch):
    """litellm.completion answers memory calls and decision calls with their own recorded reply."""
    import litellm

    real = litellm.completion
    calls: list[dict] = []

    def fake(**kwargs):
        calls.append(kwargs)
        memory = "manage the memory" in kwargs["messages"][0]["content"]
        return real(**kwargs, mock_response=MEMORY_REPLY if memory else DECISION_REPLY)
    monkeypatch.setattr(litellm, "completion", fake)
    return calls


def _settings(**kw):
    from genesis.play.llm_agent import LLMSettings

    return LLMSettings(model="openai/recorded", num_retries=0, vision=False, **kw)


def test_memory_phase_then_decision_phase_each_interval(tmp_path, routed_replies):
    out = play(_north_first(tmp_path / "MFD"), "llm", 1, decision_interval=30.0,
               llm_settings=_settings(memory_model="openai/memo"), out=tmp_path / "out")
    row = out.rows[0]
    calls = routed_replies
    assert len(calls) == 2 * row.decisions and row.llm["memory_calls"] == row.decisions
    kinds = ["memory" if "manage the memory" in c["messages"][0]["content"] else "decision" for c in calls]
    assert kinds == ["memory", "decision"] * row.decisions                      # two phases in series
    assert {c["model"] for c, k in zip(calls, kinds) if k == "memory"} == {"openai/memo"}
    assert {c["model"] for c, k in zip(calls, kinds) if k == "decision"} == {"openai/recorded"}
    memory_prompts = [c["messages"][1]["content"] for c, k in zip(calls, kinds) if k == "memory"]
    assert "(empty)" in memory_prompts[0]                                       # no long-term memory yet
    assert "north wave came at 20 s" in memory_prompts[1]                       # consolidated memory carried over
    assert "you ordered" in memory_prompts[1] and "engaged" in " ".join(memory_prompts)   # short-term log
    lines = read_trajectories(out.trajectories_path)
    assert lines[1]["memory"]["relevant"] == ["north wave came at 20 s"]
    assert "## Relevant memory\n- north wave came at 20 s" in lines[1]["observation"]


def test_unusable_memory_reply_keeps_memory_and_is_recorded(tmp_path, monkeypatch):
    import litellm

    real = litellm.completion

    def fake(**kwargs):
        memory = "manage the memory" in kwargs["messages"][0]["content"]
        return real(**kwargs, mock_response="no idea" if memory else DECISION_REPLY)
    monkeypatch.setattr(litellm, "completion", fake)
    out = play(LEVELS / "MFD", "llm", 1, decision_interval=100.0, llm_settings=_settings(), out=tmp_path)
    lines = read_trajectories(out.trajectories_path)
    assert all(ln["memory"]["error"].startswith("unusable memory reply") for ln in lines)
    assert out.rows[0].actions_valid > 0                      # the decision still ran


def test_cli_ablation_switches(tmp_path, routed_replies):
    res = CliRunner().invoke(app, ["play", str(LEVELS / "MFD"), "--agent", "llm", "--model", "openai/recorded",
                                   "--no-fsm", "--no-memory", "--no-vision", "--decision-interval", "100",
                                   "--json", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["decision_interval"] == 100.0
    assert all("manage the memory" not in c["messages"][0]["content"] for c in routed_replies)
    system = routed_replies[0]["messages"][0]["content"]
    assert "assign_squad" not in system and "move_units" in system
    assert isinstance(routed_replies[0]["messages"][1]["content"], str)          # text only
    assert data["episodes"][0]["invalid_by_code"].get("squads_disabled", 0) > 0
