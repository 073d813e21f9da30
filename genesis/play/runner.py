"""`genesis play`: seat an agent in a scenario, play N seeds, write metrics, trajectories and one
replay page per seed (replays/seed<N>.html beside the trajectories)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from engine import load_level
from engine.errors import EngineError
from engine.level import Level

from genesis.fileio import atomic_write_json, atomic_write_text
from genesis.play.agents import AGENTS, SCRIPTED, Agent, ScriptedAgent
from genesis.play.analysis import competency_of, competency_score, decision_analysis
from genesis.play.episode import run_episode
from genesis.play.metrics import EpisodeMetrics, aggregate, episode_metrics
from genesis.play.trajectories import episode_lines, write_trajectories
from genesis.report.replay_widget import write_replay_page

# game seconds between LLM decisions as in the paper: planning games (production on) 60 s, combat
# games 15 s; scripted policies decide every second
PLANNING_INTERVAL, COMBAT_INTERVAL = 60.0, 15.0
SCRIPTED_INTERVAL = 1.0


class PlayError(ValueError):
    """Bad input to `genesis play` (exit status 2)."""


@dataclass
class PlayOutcome:
    level_path: Path
    level_name: str
    policy: str
    team: int
    decision_interval: float
    rows: list[EpisodeMetrics]
    summary: dict
    trajectories_path: Path
    metrics_path: Path
    replay_pages: list[Path] = field(default_factory=list)
    competency: dict | None = None
    decisions: dict | None = None

    def to_dict(self) -> dict:
        return {"level": self.level_name, "level_path": str(self.level_path), "policy": self.policy, "team": self.team,
                "decision_interval": self.decision_interval, "episodes": [r.model_dump() for r in self.rows],
                "aggregate": self.summary, "competency": self.competency, "decision_analysis": self.decisions,
                "trajectories": str(self.trajectories_path), "replays": [str(p) for p in self.replay_pages]}


def resolve_level_path(path: Path) -> Path:
    """A scenario / reference level folder (holding level.json) or a level.json file."""
    path = Path(path)
    if path.is_dir():
        if not (path / "level.json").is_file():
            raise PlayError(f"{path} holds no level.json "
                            "(expected a scenario folder, a kb/levels/<ID> folder or a level file)")
        return path / "level.json"
    if path.is_file():
        return path
    raise PlayError(f"no such scenario folder or level file: {path}")


def default_team(level: Level) -> int:
    """The first team the level leaves to an agent, else the first team."""
    teams = level.config.teams
    return next((t.id for t in teams if t.controller.type == "agent"), teams[0].id)


def default_interval(policy: str, level: Level) -> float:
    if policy != "llm":
        return SCRIPTED_INTERVAL
    return PLANNING_INTERVAL if level.config.switches.production else COMBAT_INTERVAL


def is_free_for_all(level: Level) -> bool:
    """3+ teams and no alliances: placements, not a binary outcome, decide (RS, GT by halves)."""
    teams = level.config.teams
    return len(teams) >= 3 and not any(t.allies for t in teams)


def output_paths(level_path: Path, policy: str, out: Path | None) -> tuple[Path, Path]:
    """(trajectories.jsonl, metrics.json): default DIR/play/<policy>/ (for a level of the shipped seed or of the
    workspace's KB, whose folders hold sources only: <workspace>/generated/play/<level>/<policy>/); --out a .jsonl
    file or a folder."""
    if out is None:
        from genesis import workspace

        try:
            level, ws = level_path.resolve(), workspace.current()
            in_kb = level.is_relative_to(workspace.seed_kb()) or level.is_relative_to(ws.kb.resolve())
            base = workspace.ensure(ws).generated / "play" / level_path.parent.name if in_kb else level_path.parent / "play"
        except workspace.WorkspaceError as exc:
            raise PlayError(str(exc)) from None
        folder = base / policy
    elif out.suffix == ".jsonl":
        return out, out.parent / "metrics.json"
    else:
        folder = out
    return folder / "trajectories.jsonl", folder / "metrics.json"


def make_agent(policy: str, level: Level, team: int, seed: int, interval: float, llm_settings) -> Agent:
    if policy in SCRIPTED:
        return ScriptedAgent(policy, team, seed, interval)
    from genesis.play.llm_agent import LLMAgent

    return LLMAgent(llm_settings, level, team, interval)


def play(scenario: Path, policy: str = "reference", seeds: int = 1, *, team: int | None = None,
         decision_interval: float | None = None, llm_settings=None, out: Path | None = None,
         progress: Callable[[str], None] | None = None) -> PlayOutcome:
    """Play `seeds` episodes (seeds 0..N-1) and write metrics.json + trajectories.jsonl."""
    if policy not in AGENTS:
        raise PlayError(f"unknown agent {policy!r}; choose one of: {', '.join(AGENTS)}")
    if policy == "llm" and (llm_settings is None or not llm_settings.model):
        raise PlayError("--agent llm needs --model (a litellm model name, e.g. openai/gpt-4o or ollama/llama3); "
                        "there is no offline LLM player")
    if seeds < 1:
        raise PlayError("--seeds must be at least 1")
    if decision_interval is not None and decision_interval <= 0:
        raise PlayError("--decision-interval must be positive")
    level_path = resolve_level_path(scenario)
    try:
        level = load_level(level_path)
    except (EngineError, OSError) as exc:
        raise PlayError(f"cannot load {level_path}: {exc}") from None
    interval = decision_interval if decision_interval is not None else default_interval(policy, level)
    fsm = llm_settings.fsm if policy == "llm" else True
    team_ids = [t.id for t in level.config.teams]
    free_for_all = is_free_for_all(level)
    team = default_team(level) if team is None else team
    if team not in team_ids:
        raise PlayError(f"--team {team}: the level has teams {team_ids}")

    traj_path, metrics_path = output_paths(level_path, policy, out)
    rows: list[EpisodeMetrics] = []
    episodes = []
    lines: list[str] = []
    replay_pages: list[Path] = []
    system_prompt = None
    for seed in range(seeds):
        agent = make_agent(policy, level, team, seed, interval, llm_settings)
        system_prompt = getattr(agent, "system_prompt", None)
        episode = run_episode(level, agent, seed=seed, team=team, decision_interval=interval, fsm=fsm)
        rows.append(episode_metrics(episode, len(team_ids), free_for_all))
        episodes.append(episode)
        replay_pages.append(write_replay_page(
            episode.replay, traj_path.parent / "replays" / f"seed{seed}.html",
            f"{level.config.name} · {policy} agent as team {team} · seed {seed}"))
        lines += episode_lines(episode, policy)
        write_trajectories(traj_path, lines)
        if progress:
            r = rows[-1]
            progress(f"seed {seed}: {r.outcome} at {r.game_time_s:g} s ({r.reason})")
    summary = aggregate(rows)
    outcome = PlayOutcome(level_path=level_path, level_name=level.config.name, policy=policy, team=team,
                          decision_interval=interval, rows=rows, summary=summary,
                          trajectories_path=traj_path, metrics_path=metrics_path, replay_pages=replay_pages,
                          competency=competency_score(competency_of(level_path, level.config.metadata), summary),
                          decisions=decision_analysis(episodes, float(level.config.switches.time_limit)))
    record = outcome.to_dict()
    if system_prompt is not None:           # the trajectories' shared system prompt (fine-tuning needs it)
        prompt_path = traj_path.parent / "system_prompt.txt"
        atomic_write_text(prompt_path, system_prompt)
        record["system_prompt"] = str(prompt_path)
    atomic_write_json(metrics_path, record)
    return outcome
