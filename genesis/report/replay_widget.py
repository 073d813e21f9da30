"""The interactive replay: the widget's inputs for a page, and the standalone replay page.

The replay data is the engine's Replay document (engine/replay.py), embedded as JSON in the page
with the viewer script (replay.js), so the page works from disk with no network."""
from __future__ import annotations

from pathlib import Path

from markupsafe import Markup
from pydantic import ValidationError

from engine.replay import Replay
from genesis.fileio import atomic_write_text
from genesis.templating import template_environment

HERE = Path(__file__).parent
REPLAY_FILE = "replay.json"


def read_replay(path: Path) -> Replay | None:
    """The replay at `path`, or None when it is missing or not a replay document."""
    try:
        return Replay.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, ValidationError):
        return None


def widget_inputs(replay: Replay) -> dict[str, Markup]:
    """`replay_json` and `replay_js` for replay.html.j2. "<" is escaped so no string in the data
    (a unit tag, a rule's marker label) can close the script element."""
    data = replay.model_dump_json(exclude_none=True).replace("<", "\\u003c")
    return {"replay_json": Markup(data), "replay_js": Markup((HERE / "replay.js").read_text(encoding="utf-8"))}


def render_replay_page(replay: Replay, heading: str) -> str:
    env = template_environment(HERE, autoescape=True, trim_blocks=True, lstrip_blocks=True)
    return env.get_template("replay_page.html.j2").render(heading=heading, end=replay.end, **widget_inputs(replay))


def write_replay_page(replay: Replay, out: Path, heading: str) -> Path:
    atomic_write_text(out, render_replay_page(replay, heading))
    return out
