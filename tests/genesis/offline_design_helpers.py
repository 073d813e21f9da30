"""Builds and plays an offline design: the GDD's level with its library rules, run like validation runs
it, and each requirement's expectations checked on the result."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from engine import Simulation, load_level
from engine.agent.policies import make_policy
from engine.expect import evaluate, run_sampled, state_times
from genesis.models import GDD, Brief, Requirement
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.level_assembly import assemble_level
from genesis.offline.gdd_writer import design

KB_RULES = Path(__file__).resolve().parents[2] / "kb" / "rules"


def brief_for(query: str, requirements: dict[str, str], on: dict[str, str] | None = None, drop: tuple = (),
              **concepts) -> Brief:
    """The brief writer's brief for `query`, with concept fields and requirement ids set by hand (as
    the reader is to set them), less the requirements of `drop`."""
    brief = write_brief(query, read(query))
    c = brief.concepts.model_copy(update=concepts)
    reqs = [r for r in brief.requirements if r.id not in requirements and r.id not in drop]
    reqs += [Requirement(id=rid, text=text, on=(on or {}).get(rid, "reference")) for rid, text in requirements.items()]
    return brief.model_copy(update={"concepts": c, "requirements": reqs})


def write_level(gdd: GDD, folder: Path) -> Path:
    (folder / "rules").mkdir(parents=True, exist_ok=True)
    for comp in gdd.rule_components:
        shutil.copy(KB_RULES / comp.library_rule / "rule.lua", folder / "rules" / f"{comp.id}.lua")
    level = assemble_level(gdd, [{"id": comp.id, "params": comp.params} for comp in gdd.rule_components])
    path = folder / "level.json"
    path.write_text(json.dumps(level))
    return path


def play(level_path: Path, policy: str, times: list[float], seed: int = 0, until: float | None = None) -> dict:
    level = load_level(level_path)
    agents = [t.id for t in level.config.teams if t.controller.type == "agent"]
    sim = Simulation(level, seed=seed, policies={t: make_policy(policy, team=t, seed=seed) for t in agents})
    result, states = run_sampled(sim, until, times)
    return {"trace": result.trace, "winners": result.winners, "losers": result.losers, "reason": result.reason,
            "ended_by": result.ended_by, "duration": result.duration, "states": states,
            "map_size": (level.map.width, level.map.height)}


def evidence(gdd: GDD, tmp_path: Path, ids: list[str], until: float | None = None) -> dict[str, list]:
    """Each requirement of `ids` checked on one run of its policy (to its end, or to `until` when only
    the start matters): id -> the expectation results."""
    path = write_level(gdd, tmp_path)
    reqs = {r.id: r for r in gdd.requirements}
    runs: dict[str, dict] = {}
    out = {}
    for rid in ids:
        req = reqs[rid]
        assert req.testable and req.expect, f"{rid} has no expectation"
        if req.on not in runs:
            runs[req.on] = play(path, req.on, state_times([e for r in gdd.requirements for e in r.expect]), until=until)
        run = runs[req.on]
        out[rid] = evaluate(req.expect, run, map_size=run["map_size"])
    return out


def design_for(query: str, requirements: dict[str, str], on: dict[str, str] | None = None, drop: tuple = (),
               **concepts) -> GDD:
    return design(brief_for(query, requirements, on, drop, **concepts))
