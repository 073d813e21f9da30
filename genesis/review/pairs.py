"""What a review compares: two scenario folders, or two experiment configuration folders paired by query.

A scenario folder is one with a brief.json (what `genesis new` and the experiment's E2E passes
write). An experiment configuration folder (`<experiment>/agent_se/`, ...) holds one scenario
folder per query, named b<batch>-q<index>; the experiment's experiment.json, when present, gives
each folder's batch, theme and the independent validator's verdict.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genesis.fileio import read_json_object
from genesis.review.results import Item, Side

BRIEF = "brief.json"
EXPERIMENT_RECORD = "experiment.json"
QUERY_FOLDER = re.compile(r"^b(\d+)-q(\d+)$")
NO_VERDICT = "no pipeline verdict"     # a folder without validation.json (an E2E pass)
NOT_CHECKED = "not checked"
MAX_BRIEF_BYTES = 2_000_000
MAX_QUERY_CHARS = 2_000          # what `genesis new` accepts


class ReviewInputError(ValueError):
    """A folder given to `genesis review` cannot be reviewed; the message says why, in one line."""


@dataclass
class Requirement:
    text: str
    status: str          # verified / failed / unverified / untestable / not checked
    detail: str = ""


@dataclass
class Entry:
    """One side of one pair: a scenario folder and what the review shows of it."""
    folder: Path
    query: str
    brief: dict[str, Any]
    validation: dict[str, Any] | None
    validator: dict[str, Any] | None = None       # the experiment's independent verdict, when known
    batch: int | None = None
    theme: str | None = None

    @property
    def verdict(self) -> str:
        if self.validation is None:
            return NO_VERDICT
        if self.validation.get("playable"):
            return "PLAYABLE"
        return "REFUSED" if self.validation.get("status") == "refused" else "NOT PLAYABLE"

    @property
    def reason(self) -> str:
        return str((self.validation or {}).get("reason") or "")

    @property
    def requirements(self) -> list[Requirement]:
        evidence = (self.validation or {}).get("requirements")
        if isinstance(evidence, list) and evidence:
            return [Requirement(str(e.get("text", "")), str(e.get("status") or _status(e.get("passed"))),
                                str(e.get("detail") or "")) for e in evidence if isinstance(e, dict)]
        return [Requirement(str(r.get("text", "")), NOT_CHECKED)
                for r in self.brief.get("requirements") or [] if isinstance(r, dict)]


@dataclass
class Pair:
    item: Item
    a: Entry
    b: Entry


@dataclass
class Review:
    a: Side
    b: Side
    kind: str                                     # "scenarios" | "experiment"
    pairs: list[Pair]
    unpaired: dict[str, list[str]] = field(default_factory=dict)   # side -> queries only that side has
    experiment_dir: Path | None = None            # where experiment.html lives, for a review of configurations


def _status(passed: Any) -> str:
    return {True: "verified", False: "failed"}.get(passed, "unverified")


def _json(path: Path, what: str) -> Any:
    try:
        if path.stat().st_size > MAX_BRIEF_BYTES:
            raise ReviewInputError(f"{path}: {what} is over {MAX_BRIEF_BYTES:,} bytes")
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReviewInputError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ReviewInputError(f"{path}: {what} is not JSON ({exc})") from None




def load_entry(folder: Path) -> Entry:
    brief = _json(folder / BRIEF, BRIEF)
    if not isinstance(brief, dict) or not isinstance(brief.get("query"), str) or not brief["query"].strip():
        raise ReviewInputError(f"{folder / BRIEF} has no query: not a brief written by genesis")
    if len(brief["query"]) > MAX_QUERY_CHARS:
        raise ReviewInputError(f"{folder / BRIEF}: the query is over {MAX_QUERY_CHARS:,} characters: not a brief "
                               "written by genesis")
    return Entry(folder=folder, query=brief["query"].strip(), brief=brief,
                 validation=read_json_object(folder / "validation.json"))


def _is_scenario(folder: Path) -> bool:
    return (folder / BRIEF).is_file()


def _query_folders(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_dir() and _is_scenario(p))


def _check(folder: Path) -> str:
    if not folder.exists():
        raise ReviewInputError(f"{folder}: no such folder")
    if not folder.is_dir():
        raise ReviewInputError(f"{folder} is not a folder")
    if _is_scenario(folder):
        return "scenarios"
    if _query_folders(folder):
        return "experiment"
    raise ReviewInputError(f"{folder} has no {BRIEF}: it is neither a scenario folder (what `genesis new` writes) "
                           f"nor an experiment configuration folder (one sub-folder with a {BRIEF} per query)")


def _experiment_index(experiment: Path) -> dict[str, dict[str, Any]]:
    """Resolved query folder -> its row of experiment.json (batch, validator verdict), plus the themes."""
    record = read_json_object(experiment / EXPERIMENT_RECORD) or {}
    themes = [b.get("theme") for b in record.get("stream") or [] if isinstance(b, dict)]
    index = {}
    for row in record.get("results") or []:
        if isinstance(row, dict) and isinstance(row.get("out_dir"), str):
            batch = row.get("batch")
            theme = themes[batch] if isinstance(batch, int) and 0 <= batch < len(themes) else None
            index[str(Path(row["out_dir"]).resolve())] = {**row, "theme": theme}
    return index


def _config_entries(folder: Path) -> list[Entry]:
    index = _experiment_index(folder.parent)
    entries = []
    for sub in _query_folders(folder):
        e = load_entry(sub)
        row = index.get(str(sub.resolve()))
        m = QUERY_FOLDER.match(sub.name)
        if row is not None and isinstance(row.get("batch"), int):
            e.batch, e.theme, e.validator = row["batch"] + 1, row.get("theme"), row.get("validator")
        elif m:
            e.batch = int(m.group(1))
        entries.append(e)
    return entries


def _label(folder: Path) -> str:
    """The configuration's label from experiment.json (e.g. "Agent w/ SE"), else the folder's name."""
    configs = (read_json_object(folder.parent / EXPERIMENT_RECORD) or {}).get("configs")
    config = configs.get(folder.name) if isinstance(configs, dict) else None
    label = config.get("label") if isinstance(config, dict) else None
    return label if isinstance(label, str) and label.strip() else folder.name


def _pair_key(e: Entry) -> str:
    return f"b{e.batch}: {e.query}" if e.batch is not None else e.query


def collect(a: Path, b: Path) -> Review:
    """The pairs to review; ReviewInputError (one line) for anything that cannot be reviewed."""
    a, b = Path(a), Path(b)
    kind_a, kind_b = _check(a), _check(b)
    if kind_a != kind_b:
        raise ReviewInputError(f"{a} is {'a scenario folder' if kind_a == 'scenarios' else 'an experiment configuration'}"
                               f" but {b} is not: compare two scenario folders or two configurations")
    if a.resolve() == b.resolve():
        raise ReviewInputError(f"{a} and {b} are the same folder: nothing to compare")
    sides = Side(label=_label(a), path=str(a.resolve())), Side(label=_label(b), path=str(b.resolve()))
    if kind_a == "scenarios":
        ea, eb = load_entry(a), load_entry(b)
        item = Item(key="pair", query=ea.query if ea.query == eb.query else f"A: {ea.query} | B: {eb.query}")
        return Review(*sides, kind="scenarios", pairs=[Pair(item, ea, eb)])
    by_a = {_pair_key(e): e for e in _config_entries(a)}
    by_b = {_pair_key(e): e for e in _config_entries(b)}
    common = [k for k in by_a if k in by_b]
    if not common:
        raise ReviewInputError(f"{a} and {b} have no query in common: nothing to pair")
    common.sort(key=lambda k: (by_a[k].batch or 0, by_a[k].folder.name))
    pairs = [Pair(Item(key=k, query=by_a[k].query, batch=by_a[k].batch, theme=by_a[k].theme), by_a[k], by_b[k])
             for k in common]
    unpaired = {"a": [by_a[k].query for k in by_a if k not in by_b], "b": [by_b[k].query for k in by_b if k not in by_a]}
    experiment = a.resolve().parent if a.resolve().parent == b.resolve().parent else None
    return Review(*sides, kind="experiment", pairs=pairs, unpaired=unpaired, experiment_dir=experiment)
