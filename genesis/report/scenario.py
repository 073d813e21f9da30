"""Reads a scenario folder (what `genesis new` writes) into one typed record for the report.

Only validation.json is required: a failed run may stop before the GDD, rules or level exist, and
the report then shows what there is."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.replay import Replay
from engine.replay_media import FRAME_INDEX
from genesis.report.replay_widget import REPLAY_FILE, read_replay

FRAME_NAME = re.compile(r"frame_(\d+)(_end)?\.png$")
MAP_PICTURE = "map.png"


class ScenarioFolderError(ValueError):
    """The folder is not a scenario folder (no readable validation.json)."""


def rule_tests_path(folder: Path, rule_id: str) -> Path:
    return folder / "rules" / f"{rule_id}.tests.json"


@dataclass
class RuleView:
    id: str
    source: str
    level_params: dict[str, Any] | None          # the params level.json gives it; None when not in the level
    record: dict[str, Any] | None                # rules/<id>.tests.json: meta, test cases and their results


@dataclass
class Frame:
    src: str                                     # path relative to the folder
    seconds: int
    last: bool
    caption: str = ""                            # the event the frame shows, from frames/frames.json


@dataclass
class Scenario:
    folder: Path
    validation: dict[str, Any]
    brief: dict[str, Any] | None = None
    gdd: dict[str, Any] | None = None
    gdd_md: str = ""
    level: dict[str, Any] | None = None
    rules: list[RuleView] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    gif: str | None = None
    map_picture: str | None = None
    replay: Replay | None = None

    @property
    def clauses(self) -> list[ClauseView]:
        """The request's clauses as the report marks them: validation.json's (with the evidence of their
        requirements), else the brief's; none for a brief written before clause accounting."""
        out = []
        for c in self.validation.get("clauses") or (self.brief or {}).get("clauses") or []:
            status = c.get("status", "") if isinstance(c, dict) else ""
            if status in CLAUSE_STATUS:
                ids = [str(i) for i in c.get("requirement_ids") or []]
                out.append(ClauseView(text=str(c.get("text", "")), status=status, label=CLAUSE_STATUS[status],
                                      requirement_ids=ids, why=str(c.get("why") or ""),
                                      built=str(c.get("built") or ""), evidence=dict(c.get("evidence") or {})))
        return out


CLAUSE_STATUS = {"honoured": "honoured", "partial": "partly honoured", "assumed": "assumed",
                 "not_honoured": "not honoured"}


@dataclass
class ClauseView:
    text: str
    status: str                                  # honoured | partial | assumed | not_honoured (the CSS class too)
    label: str
    requirement_ids: list[str]
    why: str
    built: str = ""                              # partial: the part built
    evidence: dict[str, str] = field(default_factory=dict)   # requirement id -> its evidence status

    @property
    def hover(self) -> str:
        checked = f"checked by {', '.join(self.requirement_ids)}" if self.requirement_ids else ""
        built = f"built: {self.built}" if self.built else ""
        missing = f"not built: {self.why}" if self.status == "partial" else self.why
        return " — ".join(p for p in (self.label, checked, built, missing) if p)


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _frames(folder: Path) -> list[Frame]:
    index = _json(folder / "frames" / FRAME_INDEX)
    captions = {str(e.get("file")): str(e.get("caption") or "") for e in index if isinstance(e, dict)} \
        if isinstance(index, list) else {}
    frames = []
    for p in sorted((folder / "frames").glob("frame_*.png")):
        m = FRAME_NAME.search(p.name)
        if m:
            frames.append(Frame(src=f"frames/{p.name}", seconds=int(m.group(1)), last=bool(m.group(2)),
                                caption=captions.get(p.name, "")))
    return sorted(frames, key=lambda f: (f.seconds, f.last))


def _rules(folder: Path, level: dict | None) -> list[RuleView]:
    in_level = {r.get("id"): r.get("params", {}) for r in (level or {}).get("rules", [])}
    views = []
    for p in sorted((folder / "rules").glob("*.lua")):
        views.append(RuleView(id=p.stem, source=p.read_text(), level_params=in_level.get(p.stem),
                              record=_json(rule_tests_path(folder, p.stem))))
    return views


def load_scenario(folder: str | Path) -> Scenario:
    folder = Path(folder)
    if not folder.is_dir():
        raise ScenarioFolderError(f"{folder} is not a folder")
    validation = _json(folder / "validation.json")
    if not isinstance(validation, dict) or "status" not in validation:
        raise ScenarioFolderError(f"{folder} is not a scenario folder: no readable validation.json "
                                  "(the folders `genesis new` writes have one)")
    level = _json(folder / "level.json")
    return Scenario(
        folder=folder, validation=validation, brief=_json(folder / "brief.json"), gdd=_json(folder / "gdd.json"),
        gdd_md=(folder / "gdd.md").read_text() if (folder / "gdd.md").exists() else "",
        level=level if isinstance(level, dict) else None, rules=_rules(folder, level if isinstance(level, dict) else None),
        frames=_frames(folder), gif="replay.gif" if (folder / "replay.gif").exists() else None,
        map_picture=MAP_PICTURE if (folder / MAP_PICTURE).exists() else None,
        replay=read_replay(folder / REPLAY_FILE))
