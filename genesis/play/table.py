"""The `genesis play` printout: one row per seed plus the aggregate, or the JSON record."""
from __future__ import annotations

import json

from rich.markup import escape
from rich.table import Table

from engine.errors import clean_text

from genesis.play.runner import PlayOutcome


def _num(v, fmt: str = "{:.2f}") -> str:
    return "–" if v is None else fmt.format(v)


def _codes(by_code: dict[str, int]) -> str:
    return ", ".join(f"{k}×{n}" for k, n in by_code.items()) or "—"


def metrics_table(o: PlayOutcome) -> Table:
    t = Table(title=f"{escape(clean_text(o.level_name, 120))} — agent {o.policy} as team {o.team} (every {o.decision_interval:g} s)")
    for col in ("seed", "outcome", "game time s", "time to obj. s", "dmg eff.", "rank score", "valid act.",
                "invalid by code"):
        t.add_column(col, justify="left" if col in ("outcome", "invalid by code") else "right")
    for r in o.rows:
        t.add_row(str(r.seed), r.outcome, f"{r.game_time_s:g}", _num(r.time_to_objective_s, "{:g}"),
                  _num(r.damage_efficiency), _num(r.rank_score), _num(r.valid_action_rate, "{:.1%}"),
                  _codes(r.invalid_by_code))
    a = o.summary
    t.add_section()
    t.add_row("all", f"WR {a['win_rate']:.0%}",
              f"W {_num(a['game_time_win_s'], '{:g}')} / L {_num(a['game_time_loss_s'], '{:g}')}",
              f"AT {_num(a['avg_time_to_objective_s'], '{:g}')}", _num(a["damage_efficiency"]), _num(a["rank_score"]),
              _num(a["valid_action_rate"], "{:.1%}"), _codes(a["invalid_by_code"]))
    return t


def print_outcome(o: PlayOutcome, as_json: bool) -> None:
    if as_json:
        print(json.dumps(o.to_dict(), indent=2))
        return
    from genesis.cli_output import out, print_table

    print_table(metrics_table(o))
    if o.competency:
        c = o.competency
        out.print(f"competency {c['competency']}: {c['primary']['metric']} {_num(c['primary']['value'])}, "
                  f"{c['auxiliary']['metric']} {_num(c['auxiliary']['value'])}")
    if o.decisions:
        d = o.decisions
        rates = " / ".join(_num(v, "{:.0%}") for v in d["valid_action_rate_by_quarter"])
        after = d["after_invalid"]
        mix = ", ".join(f"{k} {v['share']:.0%}" for k, v in d["action_mix"].items()) or "–"
        out.print(f"valid actions by quarter {rates}; corrected after an invalid action "
                  f"{_num(after['correction_rate'], '{:.0%}')} of {after['decisions']}; action mix: {mix}")
    for r in o.rows:
        if r.error:
            out.print(f"seed {r.seed}: the game ended on a rule-script error: {escape(r.error)}", highlight=False)
    if o.summary.get("llm"):
        u = o.summary["llm"]
        out.print(f"model calls {u.get('calls', 0)} (failed {u.get('failed_calls', 0)}), tokens in/out "
                  f"{u.get('prompt_tokens', 0)}/{u.get('completion_tokens', 0)}, mean latency {u.get('mean_latency_s', 0)} s")
    out.print(f"trajectories: {o.trajectories_path}\nmetrics: {o.metrics_path}")
    if o.replay_pages:
        out.print(f"replays: {o.replay_pages[0].parent}/ (" + ", ".join(p.name for p in o.replay_pages) + ")")
