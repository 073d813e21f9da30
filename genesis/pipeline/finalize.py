"""Writes the scenario folder's verdict files: validation.json and report.html."""
from __future__ import annotations

import base64
import time
from pathlib import Path
from typing import Any

import jinja2

from genesis.fileio import atomic_write_json, atomic_write_text
from genesis.pipeline.evolution import rubric_versions

TEMPLATE = Path(__file__).with_name("report.html.j2")


def validation_record(ctx, state: dict) -> dict[str, Any]:
    usage = ctx.client.usage
    return {
        "playable": state.get("status") == "playable",
        "status": state.get("status"),
        "reason": state.get("stop_reason") or ("all stage verdicts passed" if state.get("status") == "playable" else ""),
        "query": state.get("query"),
        "run_id": state.get("run_id"),
        "backend": {role: ctx.client.config.backend_name(role) for role in ("pm", "designer", "developer", "analyst", "vlm")},
        "rubric_versions": rubric_versions(ctx.rubrics_root),
        "fast_tracked": bool(state.get("fast_tracked")),
        "kb_match": state.get("kb_match"),
        "stages": state.get("verdicts", {}),
        "decisions": state.get("decisions", []),
        "simulation_runs": state.get("runs", []),
        "requirements": state.get("evidence", []),
        "visual_review": state.get("visual", {}),
        "assumptions": (state.get("brief") or {}).get("assumptions", []),
        "unsupported": (state.get("brief") or {}).get("unsupported", []),
        "evolution": state.get("evolution"),
        "stage_times_s": state.get("stage_times", {}),
        "generation_time_s": round(sum((state.get("stage_times") or {}).values()), 2),
        "usage": {"by_stage": usage.by_stage(), "total": usage.total()},
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def _data_uri(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def write_outputs(ctx, state: dict) -> dict[str, Any]:
    out = ctx.out_dir
    record = validation_record(ctx, state)
    atomic_write_json(out / "validation.json", record)
    frames = sorted((out / "frames").glob("*.png")) if (out / "frames").exists() else []
    rules = sorted((out / "rules").glob("*.lua")) if (out / "rules").exists() else []
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    html = env.from_string(TEMPLATE.read_text()).render(
        v=record, brief=state.get("brief") or {}, gdd_md=(out / "gdd.md").read_text() if (out / "gdd.md").exists() else "",
        rules=[{"name": p.stem, "source": p.read_text(), "tests": (state.get("rule_tests") or {}).get(p.stem, [])} for p in rules],
        frames=[{"name": p.name, "src": f"frames/{p.name}"} for p in frames],
        gif="replay.gif" if (out / "replay.gif").exists() else None,
        map_img=_data_uri(frames[0]) if frames else None)
    atomic_write_text(out / "report.html", html)
    return record
