"""The `genesis eval` printout: agents x competencies (win rate and interval), the ladder check, the files."""
from __future__ import annotations

import json

from rich.markup import escape
from rich.table import Table

from genesis.eval.runner import EvalOutcome


def _wr(s: dict | None) -> str:
    if not s:
        return "–"
    low, high = s["win_rate_ci"]
    return f"{s['win_rate']:.0%} [{low:.0%}–{high:.0%}]"


def print_eval(o: EvalOutcome, as_json: bool) -> None:
    r = o.results
    if as_json:
        print(json.dumps({"results": str(o.results_path), "played": o.played, "resumed": o.resumed,
                          "failures": [f.__dict__ for f in o.failures], "wall_s": o.wall_s, "agents": r.agents,
                          "ladder": r.ladder}, indent=2))
        return
    competencies = sorted({c for s in r.agents.values() for c in s["competencies"]})
    t = Table(title=f"{len(r.tasks)} tasks · win rate [Wilson 95 % CI]")
    for col in ("agent", "overall", *(c.replace("_", " ") for c in competencies)):
        t.add_column(col, justify="left" if col == "agent" else "right")
    for agent, s in r.agents.items():
        t.add_row(escape(agent), _wr(s["overall"]), *(_wr(s["competencies"].get(c)) for c in competencies))
    from genesis.cli_output import out as console, print_table

    print_table(t)
    lad = r.ladder
    if "suite" in lad:
        flagged = ", ".join(lad["not_separating"]) or "none"
        console.print(f"ladder {' < '.join(lad['evaluated'])}: suite tau {lad['suite']['tau']}; "
                      f"tasks that do not separate it: {escape(flagged)}")
    console.print(f"{o.played} games played, {o.resumed} resumed, {len(o.failures)} failed in {o.wall_s:g} s")
    console.print(f"results: {o.results_path}\nleaderboard: {'  '.join(map(str, o.leaderboard))}", highlight=False)
