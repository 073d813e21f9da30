"""Renders a scenario folder's report.html from the folder alone (validation.json, brief, GDD,
rules and their test records, level, map picture, frames, replay).

The page is self-contained: CSS, the replay data and its viewer script are inlined, pictures are
relative paths inside the folder. It opens from disk with no network."""
from __future__ import annotations

import json
import webbrowser
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

from engine.errors import EngineError
from genesis.llm.cost import cost_text
from genesis.quantities import clock
from genesis.fileio import atomic_write_text
from genesis.report.map_picture import write_map_picture
from genesis.report.replay_widget import widget_inputs
from genesis.report.scenario import MAP_PICTURE, Scenario, load_scenario
from genesis.templating import template_environment

HERE = Path(__file__).parent
ROLES = ("pm", "designer", "developer", "analyst", "vlm")
# stage_times keys -> the stage whose model usage they belong to
TIMING_STAGE = {"gdd_review": "gdd", "rules_test": "rules", "level_validate": "level"}


@dataclass
class StageCost:
    stage: str
    seconds: float
    parts: str
    calls: int
    failed_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    latency_ms: float


def _stage_costs(v: dict) -> list[StageCost]:
    times: dict[str, dict[str, float]] = {}
    for key, seconds in (v.get("stage_times_s") or {}).items():
        times.setdefault(TIMING_STAGE.get(key, key), {})[key] = seconds
    usage = (v.get("usage") or {}).get("by_stage") or {}
    rows = []
    for stage in list(times) + [s for s in usage if s not in times]:
        parts, u = times.get(stage, {}), usage.get(stage, {})
        rows.append(StageCost(
            stage=stage, seconds=round(sum(parts.values()), 3),
            parts=" + ".join(f"{k} {t:g}" for k, t in parts.items()) if len(parts) > 1 else "",
            calls=u.get("calls", 0), failed_calls=u.get("failed_calls", 0), prompt_tokens=u.get("prompt_tokens", 0),
            completion_tokens=u.get("completion_tokens", 0), cost_usd=u.get("cost_usd", 0.0),
            latency_ms=u.get("latency_ms", 0.0)))
    return rows


def _verdict_label(v: dict) -> str:
    if v.get("verdict"):
        return v["verdict"]
    if v.get("playable"):      # written before the certificate was a gate
        return "PLAYABLE"
    return "REFUSED" if v.get("status") == "refused" else "NOT PLAYABLE"


def _banner(verdict: str) -> str:
    return "ok" if verdict == "CERTIFIED" else "warn" if verdict.startswith("PLAYABLE") or verdict == "NOT CERTIFIED" \
        else "bad"


def _outcome(run: dict) -> str:
    if run.get("error") and not run.get("ok", True):
        return "error"
    won, lost = run.get("winners") or [], run.get("losers") or []
    parts = ([f"T{', T'.join(map(str, won))} won"] if won else []) + ([f"T{', T'.join(map(str, lost))} lost"] if lost else [])
    return "; ".join(parts) or "no winner"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "), default=str)


def _environment() -> jinja2.Environment:
    # lenient undefined: folders of failed or older runs lack keys, and the page shows what there is
    env = template_environment(HERE, autoescape=True, trim_blocks=True, lstrip_blocks=True)
    markdown = MarkdownIt("commonmark", {"html": False})   # raw HTML in a model's GDD stays text
    env.filters.update(markdown=lambda text: Markup(markdown.render(text or "")), compact=_compact, clock=clock,
                       outcome=_outcome)
    return env


def render_html(s: Scenario) -> str:
    v = s.validation
    stages = v.get("stages") or {}
    evidence = v.get("requirements") or []
    verdict = _verdict_label(v)
    return _environment().get_template("report.html.j2").render(
        s=s, v=v, verdict=verdict, banner=_banner(verdict),
        variation=((s.level or {}).get("metadata") or {}).get("variation") or {},
        competency=(s.gdd or s.brief or {}).get("competency"), **(widget_inputs(s.replay) if s.replay else {}),
        stages=stages, failing=[(st, c) for st, vd in stages.items() for c in vd.get("criteria", [])
                                if not c.get("passed") and c.get("mandatory", True)],
        evidence=evidence, evidence_passed=sum(1 for e in evidence if e.get("passed")),
        evidence_testable=sum(1 for e in evidence if e.get("passed") is not None),
        runs=v.get("simulation_runs") or [], costs=_stage_costs(v), roles=ROLES,
        backend=v.get("backend") or {}, total=(v.get("usage") or {}).get("total") or {},
        cost=cost_text((v.get("usage") or {}).get("cost")),
        cost_known=((v.get("usage") or {}).get("cost") or {}).get("usd", 0.0) is not None,
        files=[p for p in ("level.json", "validation.json", "brief.json", "gdd.json", "replay.json", "transcript.jsonl")
               if (s.folder / p).exists()] + [f"runs/{p.name}" for p in sorted((s.folder / "runs").glob("*.jsonl"))])


def write_report(folder: str | Path, map_picture: bool = True) -> Path:
    """(Re)build folder/report.html; renders map.png first when the level exists and it is missing.
    Raises ScenarioFolderError when the folder has no validation.json."""
    folder = Path(folder)
    s = load_scenario(folder)
    if map_picture and s.map_picture is None and s.level is not None:
        try:
            write_map_picture(folder / "level.json", folder / MAP_PICTURE)
            s.map_picture = MAP_PICTURE
        except EngineError:   # validation.json already reports a level that does not load; no map then
            pass
    out = folder / "report.html"
    atomic_write_text(out, render_html(s))
    return out


def open_report(path: Path) -> bool:
    return webbrowser.open(path.resolve().as_uri())
