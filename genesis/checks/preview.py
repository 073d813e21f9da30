"""A GDD-stage balance preview: the level the design literally describes, played by its reference
strategy before any rule is written or level assembled.

When every rule component reuses a library rule, the design fixes the whole level: map, teams,
switches, conditions, the library scripts with their params and the reference strategy. The
preview writes that level into a scratch folder (the scripts copied beside it, as a level may
only run scripts in its own folder) and plays the reference policy on the validation seeds; a
design its own reference strategy loses is unbalanced before Stages 3-4 spend their work on it.
Runs are memoised in the validation cache beside the KB, so the level stage's runs of the same
level are found there.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from genesis.checks.context import CheckContext
from genesis.checks.level_checks import player_score
from genesis.fileio import atomic_write_json
from genesis.level_assembly import assemble_level

SEEDS = (0, 1, 2)
WEAKER = "the enemy is too strong for the reference play: make the enemy weaker"


def balance_preview(ctx: CheckContext) -> tuple[bool, str]:
    from genesis.simulate import SimJob, generation_processes
    from genesis.validation_cache import ValidationCache, cache_root, run_cached

    gdd = ctx.gdd
    if gdd is None:
        return False, "no GDD"
    if ctx.kb_root is None:
        return False, "no knowledge base to read the library rules from"
    written = [c.id for c in gdd.rule_components if not c.library_rule]
    if written:
        return True, (f"not previewed: components {written} are new rules, not written yet (the level stage's "
                      "reference_wins decides)")
    with tempfile.TemporaryDirectory(prefix="genesis-preview-") as tmp:
        folder = Path(tmp)
        scripts = {}
        for c in gdd.rule_components:
            source = Path(ctx.kb_root) / "rules" / c.library_rule / "rule.lua"
            if not source.is_file():
                return False, f"component {c.id!r}: library rule {c.library_rule!r} has no script in the KB"
            scripts[c.id] = f"rules/{c.id}.lua"
            (folder / "rules").mkdir(exist_ok=True)
            shutil.copyfile(source, folder / scripts[c.id])
        level = assemble_level(gdd, [{"id": c.id, "params": c.params} for c in gdd.rule_components])
        if gdd.map.file:   # a level reads its map file from its own folder only
            source = Path(gdd.map.file)
            if not source.is_file():
                return False, f"the design's map file {gdd.map.file!r} does not exist"
            shutil.copyfile(source, folder / source.name)
            level["map"] = {"file": source.name}
        atomic_write_json(folder / "level.json", level)
        jobs = [SimJob(str(folder / "level.json"), seed, "reference") for seed in SEEDS]
        runs = run_cached(jobs, ValidationCache(cache_root(ctx.kb_root)), workers=generation_processes())
    broken = [r for r in runs if not r.ok]
    if broken:
        return False, f"the designed level does not run: seed {broken[0].seed}: {broken[0].error}"
    lost = [r for r in runs if player_score(r) < 1.0]
    detail = f"reference policy won {len(runs) - len(lost)}/{len(runs)} seeds of the designed level"
    if lost:
        return False, detail + "".join(f"; seed {r.seed}: {r.reason or r.ended_by}" for r in lost) + f": {WEAKER}"
    return True, detail
