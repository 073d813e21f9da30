"""The pristine seed: the KB and rubrics exactly as the package ships them, whatever ran before.

In a source checkout the shipped seed is the repository's `kb/` and `rubrics/`, which a developer
may have written into (a design committed by hand, a feedback log, evolved rubric history). A
pristine copy takes only the seed's own content: KB entries that no generation committed (no
`provenance.run_id`), and the three rubric files (no history, feedback log or replay artifacts).
Benchmarks and every experiment configuration start from it, never from a workspace.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from genesis.fileio import parse_yaml
from genesis.workspace import KB_COPY_IGNORE, KB_SOURCE_DIRS, RUBRIC_FILES, seed_kb, seed_rubrics

KB_META = {"gdds": None, "lessons": None, "rules": "meta.yaml", "levels": "meta.yaml"}


def _committed_by_a_run(entry: Path, collection: str) -> bool:
    """True for an entry a generation added (its provenance names the run)."""
    meta = entry if KB_META[collection] is None else entry / KB_META[collection]
    if not meta.is_file():
        return False
    try:
        data = parse_yaml(meta.read_text(encoding="utf-8"))   # JSON is YAML too
    except (OSError, yaml.YAMLError):
        return True   # unreadable: not something the package ships
    provenance = data.get("provenance") if isinstance(data, dict) else None
    return isinstance(provenance, dict) and bool(provenance.get("run_id"))


def pristine_seed(dst: Path) -> tuple[Path, Path]:
    """A private copy of the pristine seed under dst: (kb, rubrics)."""
    kb, rubrics = Path(dst) / "kb", Path(dst) / "rubrics"
    source = seed_kb()
    kb.mkdir(parents=True)
    for collection in KB_SOURCE_DIRS:
        folder = source / collection
        if not folder.is_dir():
            continue
        (kb / collection).mkdir()
        for entry in sorted(folder.iterdir()):
            if entry.name.startswith(".") or _committed_by_a_run(entry, collection):
                continue
            if entry.is_dir():
                shutil.copytree(entry, kb / collection / entry.name, ignore=KB_COPY_IGNORE)
            else:
                shutil.copy2(entry, kb / collection / entry.name)
    rubrics.mkdir(parents=True)
    for name in RUBRIC_FILES:
        shutil.copy2(seed_rubrics() / name, rubrics / name)
    return kb, rubrics
