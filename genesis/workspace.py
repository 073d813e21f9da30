"""Where user state lives: a workspace holds the knowledge base, the rubrics, generated scenarios
and `genesis.yaml`.

Which workspace: `--workspace DIR` (the CLI puts it in GENESIS_WORKSPACE so worker processes see it)
> $GENESIS_WORKSPACE > the nearest folder holding `genesis.yaml`, from the working directory up >
the per-user data folder. GENESIS_KB_DIR / GENESIS_RUBRICS_DIR still move one part elsewhere.

The seed (the seed KB with the reference games, and the initial rubrics) ships inside the package
as `genesis/seed/`; a KB or rubrics folder with nothing in it yet is filled from it on first use.
Nothing is ever written into the seed: a workspace whose KB or rubrics would be the seed itself
(e.g. a `genesis.yaml` at the root of a source checkout) is refused.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from genesis.fileio import FileLock, atomic_write_json, atomic_write_text, parse_yaml

ENV_VAR = "GENESIS_WORKSPACE"
MARKER = "genesis.yaml"
SEED = Path(__file__).resolve().parent / "seed"
KB_SOURCE_DIRS = ("gdds", "rules", "levels", "lessons")
RUBRIC_FILES = ("gdd.yaml", "rules.yaml", "level.yaml")
# Derived or per-process files that never belong to a copy of a KB.
KB_COPY_IGNORE = shutil.ignore_patterns("chroma", ".lock", "*.lock", ".txn")

MARKER_TEXT = """\
# Genesis workspace: the knowledge base (kb/), the rubrics (rubrics/) and generated scenarios
# (generated/) live beside this file. Model settings may go here too (see the README), e.g.:
# model: ollama/llama3.1
# api_base: http://127.0.0.1:11434
"""


# Settings of the workspace's services (not of the models): the environment variable, else the key in the
# config file (genesis.yaml). kb_server: a chroma server (`genesis kb serve`) holding the KB index;
# kb_token: the token that server requires; checkpointer: where LangGraph checkpoints go (sqlite, the
# default, or a postgres:// URL).
SETTINGS = {"kb_server": "GENESIS_KB_SERVER", "kb_token": "GENESIS_KB_TOKEN", "checkpointer": "GENESIS_CHECKPOINTER"}


class WorkspaceError(ValueError):
    """The workspace cannot be used (bad path, missing seed, would write into the installation)."""


def seed_kb() -> Path:
    return _seed_part("kb")


def seed_rubrics() -> Path:
    return _seed_part("rubrics")


def _seed_part(name: str) -> Path:
    path = (SEED / name).resolve()
    if not path.is_dir():
        raise WorkspaceError(f"the shipped seed {SEED / name} is missing: reinstall genesis-rts")
    return path


def user_data_dir() -> Path:
    from platformdirs import user_data_dir as platform_data_dir

    return Path(platform_data_dir("genesis", appauthor=False))


@dataclass(frozen=True)
class Workspace:
    root: Path
    found_by: str          # how it was chosen, for messages
    kb_override: Path | None = None
    rubrics_override: Path | None = None

    @property
    def kb(self) -> Path:
        return self.kb_override or self.root / "kb"

    @property
    def rubrics(self) -> Path:
        return self.rubrics_override or self.root / "rubrics"

    @property
    def generated(self) -> Path:
        return self.root / "generated"

    @property
    def config_file(self) -> Path:
        return self.root / MARKER

    @property
    def runs_index(self) -> Path:
        return self.root / ".genesis" / "runs"

    def describe(self) -> str:
        return f"{self.root} ({self.found_by})"


def current(env: Mapping[str, str] | None = None, cwd: Path | None = None) -> Workspace:
    """The workspace in force (see the module docstring for the order); checked, not yet created."""
    env = os.environ if env is None else env
    if env.get(ENV_VAR):
        root, found_by = Path(env[ENV_VAR]).expanduser(), ENV_VAR
        if root.exists() and not root.is_dir():
            raise WorkspaceError(f"{ENV_VAR}={root} is not a folder")
    else:
        marker = _marker_upward(Path.cwd() if cwd is None else cwd)
        root, found_by = (marker.parent, f"{MARKER} found") if marker else (user_data_dir(), "per-user data folder")
    ws = Workspace(root.resolve(), found_by,
                   Path(env["GENESIS_KB_DIR"]).expanduser().resolve() if env.get("GENESIS_KB_DIR") else None,
                   Path(env["GENESIS_RUBRICS_DIR"]).expanduser().resolve() if env.get("GENESIS_RUBRICS_DIR") else None)
    _refuse_seed(ws)
    return ws


def _marker_upward(start: Path) -> Path | None:
    for folder in (start.resolve(), *start.resolve().parents):
        if (folder / MARKER).is_file():
            return folder / MARKER
    return None


def _refuse_seed(ws: Workspace) -> None:
    for part, seed in ((ws.kb, SEED / "kb"), (ws.rubrics, SEED / "rubrics")):
        if seed.exists() and part.resolve() == seed.resolve():
            raise WorkspaceError(f"the workspace {ws.describe()} would keep its {part.name} in the shipped seed "
                                 f"{seed.resolve()}, which must stay unchanged: run `genesis init DIR` in another "
                                 "folder, or set GENESIS_WORKSPACE")
    for part in (ws.root, ws.kb, ws.rubrics):
        tracked = _tracked_source_part(part)
        if tracked is not None:
            raise WorkspaceError(f"the workspace {ws.describe()} would write into {tracked}, part of a Genesis "
                                 "source checkout (the seed it ships must stay unchanged): run `genesis init DIR` "
                                 "in another folder, e.g. `genesis init my-games`, or set GENESIS_WORKSPACE")


def _tracked_source_part(path: Path) -> Path | None:
    """The source checkout's package, kb/ or rubrics/ that `path` is or lies in (an installed wheel's seed is not
    the checkout's, so comparing with SEED alone misses it); None for other folders, e.g. one beside them."""
    path = path.resolve()
    for folder in (path, *path.parents):
        if (folder / "pyproject.toml").is_file() and (folder / "genesis" / "seed").is_dir():
            if path == folder:
                return folder / "kb"
            for name in ("genesis", "kb", "rubrics"):
                if path.is_relative_to((folder / name).resolve()) or path.is_relative_to(folder / name):
                    return folder / name
            return None
    return None


def setting(key: str, env: Mapping[str, str] | None = None) -> str | None:
    """A service setting (see SETTINGS): $GENESIS_<KEY>, else `key` in the config file, else None."""
    import yaml

    from genesis.llm.config import ConfigError, find_config_file

    env = os.environ if env is None else env
    if env.get(SETTINGS[key]):
        return env[SETTINGS[key]]
    try:
        path = find_config_file(env, Path.cwd())
        raw = parse_yaml(path.read_text(encoding="utf-8")) if path else None
    except (ConfigError, OSError, yaml.YAMLError) as exc:
        raise WorkspaceError(f"cannot read the setting {key}: {exc}") from exc
    value = raw.get(key) if isinstance(raw, dict) else None
    return str(value) if value not in (None, "") else None


def shipped_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The settings in force here as the environment a process elsewhere (a Ray worker on another
    node, started in another folder) needs to run with exactly them: the GENESIS_* variables, the
    workspace found (also when found from the working directory), and every service setting,
    whether it came from the environment or from genesis.yaml. Never model credentials."""
    env = os.environ if env is None else env
    out = {k: v for k, v in env.items() if k.startswith("GENESIS_")}
    out[ENV_VAR] = str(current(env).root)
    for key, var in SETTINGS.items():
        if value := setting(key, env):
            out[var] = value
    return out


def has_kb_sources(kb: Path) -> bool:
    return any((kb / name).is_dir() for name in KB_SOURCE_DIRS)


def has_rubrics(rubrics: Path) -> bool:
    return any((rubrics / name).is_file() for name in RUBRIC_FILES)


def ensure(ws: Workspace | None = None) -> Workspace:
    """Creates the workspace's folders and seeds an empty KB or rubrics folder; returns the workspace."""
    ws = ws or current()
    try:
        ws.root.mkdir(parents=True, exist_ok=True)
        if has_kb_sources(ws.kb) and has_rubrics(ws.rubrics):
            return ws
        with FileLock(ws.root / ".genesis" / "seed.lock", timeout=120):
            if not ws.config_file.exists():
                atomic_write_text(ws.config_file, MARKER_TEXT)
            if not has_kb_sources(ws.kb):
                _copy_into(seed_kb(), ws.kb, ignore=KB_COPY_IGNORE)
            if not has_rubrics(ws.rubrics):
                _copy_into(seed_rubrics(), ws.rubrics, ignore=shutil.ignore_patterns("history", "*.lock", "*.jsonl"))
    except OSError as exc:
        raise WorkspaceError(f"cannot set up the workspace {ws.describe()}: {exc}") from exc
    return ws


def init(folder: Path) -> tuple[Workspace, bool]:
    """`genesis init`: makes FOLDER a workspace (seeded KB and rubrics, generated/, genesis.yaml).
    Returns the workspace and whether it was new."""
    root = Path(folder).expanduser().resolve()
    if root.exists() and not root.is_dir():
        raise WorkspaceError(f"{root} is a file, not a folder")
    existed = (root / MARKER).is_file()
    ws = Workspace(root, "genesis init")
    _refuse_seed(ws)
    ensure(ws)
    ws.generated.mkdir(exist_ok=True)
    return ws, not existed


def _copy_into(src: Path, dst: Path, ignore) -> None:
    """Copies src's entries into dst: each entry is staged beside dst and renamed into place, so a
    crash leaves either no entry or a whole one."""
    dst.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".seed-", dir=dst) as tmp:
        staged = Path(tmp) / "copy"
        shutil.copytree(src, staged, ignore=ignore)
        for entry in sorted(staged.iterdir()):
            if not (dst / entry.name).exists():
                os.replace(entry, dst / entry.name)


def copy_seed(dst: Path) -> tuple[Path, Path]:
    """A private copy of the seed KB and rubrics under dst (benchmarks, experiments, tests)."""
    kb, rubrics = dst / "kb", dst / "rubrics"
    shutil.copytree(seed_kb(), kb, ignore=KB_COPY_IGNORE)
    shutil.copytree(seed_rubrics(), rubrics, ignore=shutil.ignore_patterns("history", "*.lock", "*.jsonl"))
    return kb, rubrics


# --- runs: where each run's folder is, so `genesis resume ID` finds runs written with --out ---------
def register_run(run_id: str, out_dir: Path, ws: Workspace | None = None) -> None:
    ws = ws or current()
    atomic_write_json(ws.runs_index / f"{_safe_name(run_id)}.json", {"run_id": run_id, "out_dir": str(out_dir.resolve())})


def registered_run(run_id: str, ws: Workspace | None = None) -> Path | None:
    ws = ws or current()
    try:
        entry = json.loads((ws.runs_index / f"{_safe_name(run_id)}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return Path(entry["out_dir"]) if isinstance(entry, dict) and entry.get("out_dir") else None


def forget_run(run_id: str, ws: Workspace | None = None) -> None:
    ws = ws or current()
    (ws.runs_index / f"{_safe_name(run_id)}.json").unlink(missing_ok=True)


def _safe_name(run_id: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in run_id)[:200]
