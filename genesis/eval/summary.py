"""Summaries of evaluation episodes: per agent and task, competency and overall (the metrics of
`genesis play`'s aggregate, with a Wilson interval on the win rate), and the ladder check.

Ladder: the built-in agents idle < random < rush < reference should score in that order on a task
that measures play. Each agent's score on a task is (win rate, damage efficiency), compared
lexicographically; Kendall's tau-b between the ladder rank and that score is 1 when the order
holds strictly. A task with tau below 1 (or undefined: every agent scores the same) does not
separate the ladder and is flagged.
"""
from __future__ import annotations

from typing import Any

from genesis.eval.results import EvalEpisode
from genesis.eval.stats import kendall_tau_b, wilson
from genesis.play.analysis import competency_score
from genesis.play.metrics import aggregate

LADDER = ("idle", "random", "rush", "reference")
CI_METHOD = "Wilson score interval (95 %) of the win rate over the episodes (tasks x seeds) summarised"
SUMMARY_KEYS = ("episodes", "win_rate", "outcomes", "game_time_win_s", "game_time_loss_s", "damage_efficiency",
                "mean_units_lost", "avg_time_to_objective_s", "rank_score", "valid_action_rate")


def summarise(rows: list[EvalEpisode]) -> dict[str, Any]:
    agg = aggregate(rows)
    wins = sum(r.outcome == "win" for r in rows)
    low_high = wilson(wins, len(rows))
    return {**{k: agg[k] for k in SUMMARY_KEYS}, "wins": wins,
            "win_rate_ci": list(low_high) if low_high else None}


def agent_summaries(tasks: list, episodes: list[EvalEpisode]) -> dict[str, dict[str, Any]]:
    """agent -> {"overall", "competencies": {name: summary + score}, "tasks": {id: summary}}."""
    competency = {t.id: t.competency or "unknown" for t in tasks}
    out: dict[str, dict[str, Any]] = {}
    for agent in sorted({e.agent for e in episodes}):
        mine = [e for e in episodes if e.agent == agent]
        by_task = {t.id: [e for e in mine if e.task == t.id] for t in tasks}
        by_comp: dict[str, list[EvalEpisode]] = {}
        for e in mine:
            by_comp.setdefault(competency[e.task], []).append(e)
        comps = {}
        for name, rows in sorted(by_comp.items()):
            s = summarise(rows)
            comps[name] = {**s, "score": competency_score(None if name == "unknown" else name, s)}
        out[agent] = {"overall": summarise(mine), "competencies": comps,
                      "tasks": {tid: summarise(rows) for tid, rows in by_task.items() if rows}}
    return out


def _score(summary: dict[str, Any]) -> tuple[float, float]:
    return summary["win_rate"] or 0.0, summary["damage_efficiency"] or 0.0


def _order(scores: dict[str, dict[str, Any]]) -> dict[str, Any]:
    agents = [a for a in LADDER if a in scores]
    tau = kendall_tau_b(list(range(len(agents))), [_score(scores[a]) for a in agents])
    return {"tau": tau, "separates": tau == 1.0,
            "scores": {a: list(_score(scores[a])) for a in agents}}


def ladder_report(tasks: list, summaries: dict[str, dict[str, Any]]) -> dict[str, Any]:
    present = [a for a in LADDER if a in summaries]
    report: dict[str, Any] = {"order": list(LADDER), "evaluated": present,
                              "score": "win rate, then damage efficiency (lexicographic); Kendall's tau-b "
                                       "against the ladder order"}
    if len(present) < 2:
        return {**report, "note": f"needs at least two of {', '.join(LADDER)} evaluated"}
    per_task = {}
    for t in tasks:
        scores = {a: summaries[a]["tasks"][t.id] for a in present if t.id in summaries[a]["tasks"]}
        if len(scores) >= 2:
            per_task[t.id] = _order(scores)
    return {**report, "suite": _order({a: summaries[a]["overall"] for a in present}), "tasks": per_task,
            "not_separating": [tid for tid, r in per_task.items() if not r["separates"]]}
