"""The interactive replay: the widget's inputs for a page, and the standalone replay page.

The replay data is the engine's Replay document (engine/replay.py), embedded as JSON in the page
with the viewer script (replay.js), so the page works from disk with no network."""
from __future__ import annotations

import json
from pathlib import Path

from markupsafe import Markup
from pydantic import ValidationError

from engine.palette import DEPOSIT_EDGE, DEPOSIT_FILL, TERRAIN_JITTER, TERRAIN_NAMES, TERRAIN_RGB
from engine.render import LEGEND
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


# the widget's legend draws each of the renderer's glyphs as a character
_SYMBOLS = {"commander": "★", "bot": "●", "vehicle": "■", "air": "▲", "defense": "◆", "economy": "▣", "factory": "■",
            "constructing": "□", "health": "▬", "deposit": "◉", "marker": "⊕", "area": "▭"}


def _hex(rgb) -> str:
    return "#%02x%02x%02x" % tuple(rgb)


def palette_json() -> str:
    """The renderer's terrain and deposit colours, so the page draws the map as the frames do."""
    return json.dumps({"terrain": [TERRAIN_RGB[t] for t in sorted(TERRAIN_RGB)], "jitter": TERRAIN_JITTER,
                       "deposit_fill": _hex(DEPOSIT_FILL), "deposit_edge": _hex(DEPOSIT_EDGE)})


def legend() -> list[tuple[str, str]]:
    """(symbol, meaning) for every glyph the frames' legend explains, then the terrain kinds."""
    return [(_SYMBOLS[e.key], e.meaning) for e in LEGEND] + [("■", TERRAIN_NAMES[t]) for t in sorted(TERRAIN_NAMES)]


def widget_inputs(replay: Replay) -> dict:
    """`replay_json`, `palette_json`, `replay_js`, `replay_legend` and `replay_terrain_colors` for
    replay.html.j2. "<" is escaped so no string in the data (a unit tag, a rule's marker label) can
    close the script element."""
    data = replay.model_dump_json(exclude_none=True).replace("<", "\\u003c")
    return {"replay_json": Markup(data), "palette_json": Markup(palette_json()), "replay_legend": legend(),
            "replay_terrain_colors": {TERRAIN_NAMES[t]: _hex(c) for t, c in TERRAIN_RGB.items()},
            "replay_js": Markup((HERE / "replay.js").read_text(encoding="utf-8"))}


def render_replay_page(replay: Replay, heading: str) -> str:
    env = template_environment(HERE, autoescape=True, trim_blocks=True, lstrip_blocks=True)
    return env.get_template("replay_page.html.j2").render(heading=heading, end=replay.end, **widget_inputs(replay))


def write_replay_page(replay: Replay, out: Path, heading: str) -> Path:
    atomic_write_text(out, render_replay_page(replay, heading))
    return out
