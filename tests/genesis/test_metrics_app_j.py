"""The App. J metric definitions on crafted episodes: synthetic RunResults with hand-written traces,
so each figure can be checked against a number worked out by hand."""
from __future__ import annotations

import pytest

from engine.result import RunResult
from genesis.play.episode import Episode
from genesis.play.metrics import aggregate, episode_metrics

COUNTS = {"valid": 4, "invalid": 0, "invalid_by_code": {}}


def _episode(seed: int, winners: list[int], duration: float, *, win_at: float | None = None, ranks=None,
             dealt=100.0, received=50.0, teams=2, ended_by="condition") -> Episode:
    trace = [{"t": 0.0, "event": "spawn", "id": 0, "team": 0}]
    if win_at is not None:
        trace.append({"t": win_at, "event": "win", "team": 0, "reason": "objective"})
    trace.append({"t": duration, "event": "end", "ended_by": ended_by})
    stats = {t: {"damage_dealt": dealt if t == 0 else 10.0, "damage_received": received if t == 0 else 10.0}
             for t in range(teams)}
    result = RunResult(winners=winners, losers=[t for t in range(teams) if t not in winners], reason="crafted",
                       duration=duration, ended_by=ended_by, error=None, ranks=ranks, team_stats=stats,
                       trace=trace, trace_hash=f"h{seed}", seed=seed)
    return Episode(seed=seed, team=0, result=result, steps=[], counts=COUNTS, wall_s=0.1)


def test_average_time_counts_successful_runs_only():
    # a reference agent wins 3/3 at 40/50/60 s; a random agent loses 3/3 at the 200 s limit
    ref = aggregate([episode_metrics(_episode(s, [0], 40.0 + 10 * s, win_at=40.0 + 10 * s), 2) for s in range(3)])
    rnd = aggregate([episode_metrics(_episode(s, [1], 200.0), 2) for s in range(3)])
    assert ref["avg_time_to_objective_s"] == 50.0 and ref["win_rate"] == 1.0
    assert rnd["avg_time_to_objective_s"] is None and rnd["game_time_win_s"] is None   # "–": no success
    assert rnd["game_time_loss_s"] == 200.0


def test_average_time_uses_the_objective_moment_not_the_game_end():
    # the objective completes at 70 s, the game runs on until 90 s (e.g. a grace period)
    rows = [episode_metrics(_episode(0, [0], 90.0, win_at=70.0), 2),
            episode_metrics(_episode(1, [1], 120.0), 2)]
    a = aggregate(rows)
    assert a["avg_time_to_objective_s"] == 70.0
    assert a["game_time_win_s"] == 90.0 and a["game_time_loss_s"] == 120.0 and a["win_rate"] == 0.5


def test_free_for_all_game_time_splits_by_placement_halves():
    # placements 1, 2, 3, 4 at game ends 100, 110, 30, 50 s
    rows = [episode_metrics(_episode(s, [0] if rank == 1 else [1], t, ranks={0: rank, 1: 1 if rank != 1 else 2,
                                                                          2: 3, 3: 4}, teams=4), 4, True)
            for s, (rank, t) in enumerate([(1, 100.0), (2, 110.0), (3, 30.0), (4, 50.0)])]
    a = aggregate(rows)
    assert [r.gt_side for r in rows] == ["win", "win", "loss", "loss"]
    assert a["game_time_win_s"] == 105.0 and a["game_time_loss_s"] == 40.0
    assert a["rank_score"] == round((1.0 + 0.67 + 0.33 + 0.0) / 4, 2)
    assert a["win_rate"] == 0.25          # only a first place achieves the win condition


def test_team_game_has_no_rank_score_and_uses_outcomes():
    rows = [episode_metrics(_episode(0, [0, 1], 80.0, win_at=80.0, teams=4), 4, False),
            episode_metrics(_episode(1, [2, 3], 60.0, teams=4), 4, False)]
    assert [r.rank_score for r in rows] == [None, None]
    a = aggregate(rows)
    assert a["rank_score"] is None and a["game_time_win_s"] == 80.0 and a["game_time_loss_s"] == 60.0


def test_damage_efficiency_is_total_over_total_and_draws_count_in_neither_time():
    rows = [episode_metrics(_episode(0, [0], 50.0, win_at=50.0, dealt=300.0, received=100.0), 2),
            episode_metrics(_episode(1, [], 200.0, dealt=0.0, received=0.0, ended_by="time_limit"), 2)]
    assert rows[1].outcome == "draw" and rows[1].gt_side is None
    assert rows[1].damage_efficiency == 0.0          # received floored at 1
    a = aggregate(rows)
    assert a["damage_efficiency"] == 3.0 and a["game_time_loss_s"] is None


@pytest.mark.parametrize("n", [3, 4, 5])
def test_free_for_all_rank_scores_span_one_to_zero(n):
    firsts = episode_metrics(_episode(0, [0], 10.0, win_at=10.0, ranks={t: t + 1 for t in range(n)}, teams=n), n)
    lasts = episode_metrics(_episode(1, [1], 10.0, ranks={0: n, **{t: t for t in range(1, n)}}, teams=n), n)
    assert firsts.rank_score == 1.0 and lasts.rank_score == 0.0
