"""Writes experiment.json and experiment.html (tables + inline SVG charts, opens from disk offline)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import jinja2

from genesis.charts import bar_chart, line_chart
from genesis.fileio import atomic_write_json, atomic_write_text
from genesis.review.aggregate import preference_section

TEMPLATE = Path(__file__).with_name("experiment.html.j2")
CHARTS = (  # (metric per batch, chart title, y label)
    ("playability", "Playability per batch (independent validator)", "fraction playable"),
    ("certified_rate", "Certified per batch (the pipeline's validity certificate)", "fraction certified"),
    ("mean_generation_time_s", "Mean generation time of successful queries", "seconds"),
    ("calls_per_query", "Model calls per query", "calls"),
    ("fast_track_rate", "Fast-track rate", "fraction fast-tracked"),
)


def charts(record: dict[str, Any]) -> list[str]:
    configs = record["configs"]
    labels = [f"B{i + 1}" for i in range(len(record["stream"]))]
    out = [line_chart({c["label"]: [b.get(metric) for b in c["batches"]] for c in configs.values()},
                      labels, title, y_label) for metric, title, y_label in CHARTS]
    out.append(bar_chart({c["label"]: c["overall"]["playability"] for c in configs.values()},
                         "Overall Playability", "fraction playable"))
    return out


def _failed_criteria(row: dict[str, Any]) -> str:
    v = row.get("validator")
    if not v:
        return "not validated"
    return "; ".join(f"{c['id']}: {c['detail']}" for c in v["criteria"] if not c["passed"])


def _cell(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def markdown_table(record: dict[str, Any]) -> str:
    """The per batch x configuration table, for the README and experiment.md."""
    lines = ["| batch | configuration | playable | mean gen. time (s) | mean time, all (s) | calls | tokens | "
             "gen. CPU per query (s) | fast-track | rubric versions after |", "|---|---|---|---|---|---|---|---|---|---|"]
    for b, batch in enumerate(record["stream"]):
        for c in record["configs"].values():
            m = c["batches"][b]
            rv = " ".join(f"{s} v{v}" for s, v in m["rubric_versions"].items()) if m["rubric_versions"] else "not used"
            lines.append(f"| B{b + 1} {batch['theme']} | {c['label']} | {m['playable']}/{m['n']} | "
                         f"{_cell(m['mean_generation_time_s'])} | {_cell(m['mean_elapsed_s'])} | {m['calls']} | "
                         f"{m['tokens']} | {m['generation_cpu_s'] / m['n']:.1f} | {m['fast_track_rate']:.0%} | {rv} |")
    for c in record["configs"].values():
        o = c["overall"]
        lines.append(f"| all | {c['label']} | {o['playable']}/{o['n']} | {_cell(o['mean_generation_time_s'])} | "
                     f"{_cell(o['mean_elapsed_s'])} | {o['calls']} | {o['tokens']} | {o['generation_cpu_s'] / o['n']:.1f} | "
                     f"{o['fast_track_rate']:.0%} | |")
    return "\n".join(lines) + "\n"


def learning_table(record: dict[str, Any]) -> str:
    """What the configurations with rubrics learned and what it changed, per batch: failed stage
    verdicts at Stage 2 (caught early) and Stage 4 (caught after simulating), Stage 4 validations,
    PM decisions per query, and the rubric versions in force after the batch."""
    agents = [c for c in record["configs"].values() if c["batches"] and c["batches"][0].get("rubric_versions")]
    if not agents:
        return ""
    lines = ["| batch | configuration | playable | certified | failed at Stage 2 | failed at Stage 4 | certificate "
             "failures | Stage 4 validations | reused designs | PM decisions per query | rubric versions after |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for b, batch in enumerate(record["stream"]):
        for c in agents:
            m = c["batches"][b]
            rv = " ".join(f"{s} v{v}" for s, v in m["rubric_versions"].items())
            lines.append(f"| B{b + 1} {batch['theme']} | {c['label']} | {m['playable']}/{m['n']} | "
                         f"{m.get('certified', 0)}/{m['n']} | {m.get('failed_gdd', 0)} | {m.get('failed_level', 0)} | "
                         f"{m.get('certificate_failures', 0)} | {m.get('level_validations', 0)} | "
                         f"{m.get('fast_track_rate', 0):.0%} | {m['mean_iterations']:.1f} | {rv} |")
    learned = [f"- {c['label']}: {ch['stage']} v{ch['version']} ({', '.join(ch['changes'])}): {ch['rationale']}"
               + (f" Evidence: {'; '.join(ch['evidence'])}." if ch.get("evidence") else "")
               for c in agents for ch in c.get("rubric_changes", [])]
    return ("\n".join(lines) + "\n\nRubric updates learned:\n\n" + ("\n".join(learned) if learned else "- none")
            + "\n\nFrom certificate failures:\n\n" + "\n".join(_certificate_learning(record, agents)) + "\n")


# the retrospective's catalog answers these feedback classes with the GDD's variation_declared criterion
CERTIFICATE_CLASSES = ("unvaried_seeds", "blind_replay_wins", "cheap_win", "difficulty_missed", "variation_declared")


def _certificate_learning(record: dict[str, Any], agents: list[dict[str, Any]]) -> list[str]:
    """Per configuration with rubrics: the certificate failures per batch, the rubric updates that came from
    them, and the certified rate before and after, or plainly that nothing was learned from them."""
    out = []
    for c in agents:
        fails = [m.get("certificate_failures", 0) for m in c["batches"]]
        rates = [m.get("certified_rate", 0.0) for m in c["batches"]]
        updates = [ch for ch in c.get("rubric_changes", [])
                   if any(k in " ".join([ch.get("rationale", "")] + list(ch.get("evidence") or []) + list(ch["changes"]))
                          for k in CERTIFICATE_CLASSES)]
        reuse = [m.get("fast_track_rate", 0.0) for m in c["batches"]]
        trend = " → ".join(f"{r:.0%}" for r in rates)
        if not sum(fails):
            out.append(f"- {c['label']}: no certificate failure at Stage 4 in any batch (certified {trend}): "
                       "nothing to learn from")
        elif updates:
            out.append(f"- {c['label']}: {sum(fails)} certificate failures ({', '.join(map(str, fails))} per batch) led "
                       f"to {len(updates)} rubric update(s) ({'; '.join(ch['stage'] + ' v' + str(ch['version']) for ch in updates)}); "
                       f"certified {trend}, designs reused {' → '.join(f'{r:.0%}' for r in reuse)}")
        else:
            out.append(f"- {c['label']}: {sum(fails)} certificate failures ({', '.join(map(str, fails))} per batch) and "
                       f"no rubric update from them: it learned nothing from certificate failures (certified {trend}, "
                       f"designs reused {' → '.join(f'{r:.0%}' for r in reuse)})")
    return out


def write_outputs(record: dict[str, Any], out: Path) -> tuple[Path, Path]:
    """experiment.json, experiment.html and experiment.md (the table) in `out`."""
    out = Path(out)
    json_path, html_path = out / "experiment.json", out / "experiment.html"
    atomic_write_json(json_path, record)
    learning = learning_table(record)
    atomic_write_text(out / "experiment.md", markdown_table(record) + (f"\n## Learning\n\n{learning}" if learning else ""))
    rows = [{**r, "failed": _failed_criteria(r), "link": os.path.relpath(r["out_dir"], out)} for r in record["results"]]
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    html = env.from_string(TEMPLATE.read_text(encoding="utf-8")).render(r=record, charts=charts(record), rows=rows,
                                                                   human_preference=preference_section(out))
    atomic_write_text(html_path, html)
    return json_path, html_path
