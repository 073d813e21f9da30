"""leaderboard.csv and leaderboard.html from a results file: agents x competencies (and tasks),
each cell the win rate with its interval; the ladder check per task."""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import jinja2

from genesis.eval.results import EvalResults
from genesis.fileio import atomic_write_text

TEMPLATE = Path(__file__).with_name("leaderboard.html.j2")
CSV_COLUMNS = ("agent", "scope", "name", "episodes", "wins", "win_rate", "ci_low", "ci_high", "game_time_win_s",
               "game_time_loss_s", "damage_efficiency", "mean_units_lost", "avg_time_to_objective_s", "rank_score",
               "ladder_tau")


def _row(agent: str, scope: str, name: str, s: dict[str, Any], tau: float | None = None) -> dict[str, Any]:
    low, high = s["win_rate_ci"] or (None, None)
    return {"agent": agent, "scope": scope, "name": name, **{k: s[k] for k in CSV_COLUMNS[3:6]}, "ci_low": low,
            "ci_high": high, **{k: s[k] for k in CSV_COLUMNS[8:14]}, "ladder_tau": tau}


def csv_rows(results: EvalResults) -> list[dict[str, Any]]:
    """Per agent: one `overall` row, one per competency, one per task (with the task's ladder tau)."""
    taus = {tid: r["tau"] for tid, r in (results.ladder.get("tasks") or {}).items()}
    rows = []
    for agent, summary in results.agents.items():
        rows.append(_row(agent, "overall", "all", summary["overall"], (results.ladder.get("suite") or {}).get("tau")))
        rows += [_row(agent, "competency", name, s) for name, s in summary["competencies"].items()]
        rows += [_row(agent, "task", tid, s, taus.get(tid)) for tid, s in summary["tasks"].items()]
    return rows


def write_leaderboard(results: EvalResults, folder: Path) -> list[Path]:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(csv_rows(results))
    csv_path, html_path = folder / "leaderboard.csv", folder / "leaderboard.html"
    atomic_write_text(csv_path, buf.getvalue())
    competencies = sorted({c for s in results.agents.values() for c in s["competencies"]})
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    html = env.from_string(TEMPLATE.read_text(encoding="utf-8")).render(
        r=results, competencies=competencies, seeds=sorted({e["seed"] for e in results.episodes}),
        ranked=sorted(results.agents, key=lambda a: -(results.agents[a]["overall"]["win_rate"] or 0.0)))
    atomic_write_text(html_path, html)
    return [html_path, csv_path]
