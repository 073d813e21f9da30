"""RTSGameBench metrics of played episodes, per seed and aggregated (the paper's App. J).

Definitions (team = the agent's team; "win" = the team is among RunResult.winners):
- Win Rate (WR): wins / episodes.
- Game Time (GT) for wins / for losses: mean game duration (s) of the won / lost episodes.
  Draws (nobody wins: time limit without a verdict, mutual destruction) and engine errors are
  neither. In a free-for-all (3+ teams, no alliances) the sides are placements instead: GT(win)
  over finishes in the upper half (1st-2nd of 4), GT(loss) over the lower half (3rd-4th of 4).
  Undefined (None, printed "–") when no episode falls on that side.
- Damage Efficiency (DE): damage dealt / damage received, with received floored at 1 (the engine's
  own ranking uses the same ratio). Aggregate: total dealt / total received over all episodes.
- Units lost: the team's units destroyed in the episode (the engine's team statistics);
  aggregate: the mean over episodes.
- Time to objective: the game time of the team's `win` event in the trace, i.e. the moment its
  objective was completed (for FFA ranking, the moment it was ranked first). Average Time (AT)
  averages it over the successful (won) episodes only; None ("–") when none was won.
- Rank Score (RS, free-for-all levels only): rank r of N teams scores (N - r) / (N - 1), rounded
  to 2 places (4 teams: 1.0, 0.67, 0.33, 0.0), averaged over episodes. Ranks come from
  RunResult.ranks; a game that ended before its ranking (e.g. last survivor) places the winners
  1st and the rest shared next (competition ranking, as the engine ranks).
- Valid-action rate: valid / (valid + invalid) actions, from the action layer's counts; a model
  reply that yields no actions (call failed, no JSON, wrong shape) counts as one invalid action
  under its own code.
"""
from __future__ import annotations

from collections import Counter
from statistics import fmean
from typing import Any

from pydantic import BaseModel

from genesis.play.episode import Episode


class EpisodeMetrics(BaseModel):
    seed: int
    team: int
    outcome: str                      # win | loss | draw | error
    reason: str
    ended_by: str
    game_time_s: float
    time_to_objective_s: float | None
    damage_dealt: float
    damage_received: float
    damage_efficiency: float
    units_lost: int = 0
    rank: int | None
    rank_score: float | None
    gt_side: str | None = None        # "win" | "loss" | None: which Game Time the episode counts in
    decisions: int
    actions_valid: int
    actions_invalid: int
    valid_action_rate: float | None
    invalid_by_code: dict[str, int]
    wall_s: float
    llm: dict[str, Any] | None = None
    trace_hash: str
    error: str | None = None          # the rule-script error that ended the game (outcome "error")


def damage_efficiency(dealt: float, received: float) -> float:
    return round(dealt / max(received, 1.0), 3)


def outcome_of(result, team: int) -> str:
    if result.ended_by == "error":
        return "error"
    if team in result.winners:
        return "win"
    if not result.winners:
        return "draw"
    return "loss"


def rank_of(result, team: int, n_teams: int) -> int | None:
    if result.ranks:
        return result.ranks.get(team)
    if n_teams < 3 or not result.winners:
        return None
    return 1 if team in result.winners else len(result.winners) + 1


def rank_score(rank: int | None, n_teams: int) -> float | None:
    if rank is None or n_teams < 3:
        return None
    return round((n_teams - rank) / (n_teams - 1), 2)


def gt_side(outcome: str, rank: int | None, n_teams: int, free_for_all: bool) -> str | None:
    """The Game Time an episode counts in: by outcome, or in a free-for-all by placement half."""
    if free_for_all and rank is not None and outcome != "error":
        return "win" if rank <= n_teams / 2 else "loss"
    return outcome if outcome in ("win", "loss") else None


def win_time(result, team: int) -> float | None:
    for event in result.trace:
        if event.get("event") == "win" and event.get("team") == team:
            return round(float(event["t"]), 2)
    return None


def episode_metrics(ep: Episode, n_teams: int, free_for_all: bool | None = None) -> EpisodeMetrics:
    """`free_for_all` defaults to "3+ teams" (pass False for team games such as 2v2)."""
    res, team = ep.result, ep.team
    ffa = n_teams >= 3 if free_for_all is None else free_for_all
    stats = res.team_stats.get(team, {})
    dealt, received = float(stats.get("damage_dealt", 0.0)), float(stats.get("damage_received", 0.0))
    rank = rank_of(res, team, n_teams)
    outcome = outcome_of(res, team)
    valid, invalid = ep.counts["valid"], ep.counts["invalid"]
    return EpisodeMetrics(
        seed=ep.seed, team=team, outcome=outcome, reason=res.reason, ended_by=res.ended_by,
        error=res.error,
        game_time_s=round(res.duration, 2), time_to_objective_s=win_time(res, team),
        damage_dealt=round(dealt, 1), damage_received=round(received, 1),
        damage_efficiency=damage_efficiency(dealt, received), units_lost=int(stats.get("units_lost", 0)), rank=rank,
        rank_score=rank_score(rank, n_teams) if ffa else None, gt_side=gt_side(outcome, rank, n_teams, ffa),
        decisions=len(ep.steps), actions_valid=valid, actions_invalid=invalid,
        valid_action_rate=round(valid / (valid + invalid), 4) if valid + invalid else None,
        invalid_by_code=ep.counts["invalid_by_code"], wall_s=round(ep.wall_s, 3), llm=ep.usage,
        trace_hash=res.trace_hash)


def _mean(values: list[float]) -> float | None:
    return round(fmean(values), 2) if values else None


def _sum_usage(usages: list[dict]) -> dict[str, Any]:
    total: Counter[str] = Counter()
    for u in usages:
        total.update({k: v for k, v in u.items() if isinstance(v, (int, float))})
    out = dict(total)
    if out.get("calls"):
        out["mean_latency_s"] = round(out.get("latency_s", 0.0) / out["calls"], 3)
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in sorted(out.items())}


def aggregate(rows: list[EpisodeMetrics]) -> dict[str, Any]:
    """The table's last row: the metrics over every seed (see the module docstring)."""
    wins = [r for r in rows if r.outcome == "win"]
    dealt = sum(r.damage_dealt for r in rows)
    received = sum(r.damage_received for r in rows)
    valid = sum(r.actions_valid for r in rows)
    invalid = sum(r.actions_invalid for r in rows)
    by_code: Counter[str] = Counter()
    for r in rows:
        by_code.update(r.invalid_by_code)
    scores = [r.rank_score for r in rows if r.rank_score is not None]
    game_minutes = sum(r.game_time_s for r in rows) / 60.0
    usages = [r.llm for r in rows if r.llm]
    return {
        "episodes": len(rows),
        "win_rate": round(len(wins) / len(rows), 4) if rows else None,
        "outcomes": dict(sorted(Counter(r.outcome for r in rows).items())),
        "game_time_win_s": _mean([r.game_time_s for r in rows if r.gt_side == "win"]),
        "game_time_loss_s": _mean([r.game_time_s for r in rows if r.gt_side == "loss"]),
        "damage_efficiency": damage_efficiency(dealt, received) if rows else None,
        "mean_units_lost": _mean([r.units_lost for r in rows]),
        "avg_time_to_objective_s": _mean([r.time_to_objective_s for r in wins if r.time_to_objective_s is not None]),
        "rank_score": _mean(scores),
        "decisions": sum(r.decisions for r in rows),
        "actions_valid": valid,
        "actions_invalid": invalid,
        "valid_action_rate": round(valid / (valid + invalid), 4) if valid + invalid else None,
        "invalid_by_code": dict(sorted(by_code.items())),
        "wall_s_per_game_minute": round(sum(r.wall_s for r in rows) / game_minutes, 3) if game_minutes else None,
        "llm": _sum_usage(usages) if usages else None,
    }
