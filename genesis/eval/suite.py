"""The tasks of a suite folder: a folder of scenario folders (each holding level.json, as `genesis
batch` writes them), or one scenario folder. With a suite.json manifest, its certified tasks only."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine import load_level
from engine.errors import EngineError

from genesis.fileio import read_json_object
from genesis.play.analysis import competency_of
from genesis.play.runner import default_team, is_free_for_all
from genesis.validation_cache import level_hash


class SuiteError(ValueError):
    """The folder holds no evaluable scenario."""


@dataclass(frozen=True)
class Task:
    id: str                     # the scenario folder's name
    level_path: str
    level_hash: str             # what a game of it depends on besides the engine (validation_cache.level_hash)
    competency: str | None
    team: int                   # the seat the agent takes: the level's first agent team
    n_teams: int
    free_for_all: bool

    def summary(self) -> dict:
        return {"id": self.id, "level_path": self.level_path, "level_hash": self.level_hash,
                "competency": self.competency, "team": self.team}


def task_folders(folder: Path) -> list[Path]:
    if (folder / "level.json").is_file():
        return [folder]
    manifest = read_json_object(folder / "suite.json")
    if manifest is not None:
        return [folder / t.get("path", t["id"]) for t in manifest.get("tasks") or []]
    return sorted(p for p in folder.iterdir() if (p / "level.json").is_file())


def load_task(folder: Path) -> Task:
    path = folder / "level.json"
    try:
        level = load_level(path)
    except (EngineError, OSError) as exc:
        raise SuiteError(f"{folder.name}: cannot load {path} ({exc})") from None
    return Task(id=folder.name, level_path=str(path), level_hash=level_hash(path),
                competency=competency_of(path, level.config.metadata), team=default_team(level),
                n_teams=len(level.config.teams), free_for_all=is_free_for_all(level))


def load_suite(folder: Path) -> list[Task]:
    folder = Path(folder)
    if not folder.is_dir():
        raise SuiteError(f"no such suite or scenario folder: {folder}")
    tasks = [load_task(f) for f in task_folders(folder)]
    if not tasks:
        raise SuiteError(f"{folder} holds no scenario folder (a folder with level.json), or its suite.json "
                         "lists no certified task")
    ids = [t.id for t in tasks]
    if len(set(ids)) != len(ids):
        raise SuiteError(f"{folder}: task ids (folder names) repeat")
    return tasks
