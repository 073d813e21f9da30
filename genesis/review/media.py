"""The pictures and replays a review page embeds for one scenario folder.

A folder written by `genesis new` has map.png and replay.json. One without them (an E2E pass
writes only the level) gets both made from its level.json into the review's own cache folder
(seed 0, reference policy, as the pipeline's report does), never into the scenario folder.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path

from genesis.report.map_picture import write_map_picture
from genesis.report.replay_widget import REPLAY_FILE, read_replay, render_replay_page
from genesis.review.pairs import Entry

MAP_PICTURE = "map.png"
MAX_PICTURE_BYTES = 4_000_000


@dataclass
class Media:
    map_uri: str | None
    replay_page: str | None         # a standalone replay page, shown in an iframe
    note: str = ""                  # why something is missing


def _data_uri(png: Path) -> str | None:
    try:
        data = png.read_bytes()
    except OSError:
        return None
    if len(data) > MAX_PICTURE_BYTES or not data.startswith(b"\x89PNG"):
        return None
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _map(entry: Entry, cache: Path) -> tuple[str | None, str]:
    own = entry.folder / MAP_PICTURE
    if own.is_file():
        return _data_uri(own), ""
    level = entry.folder / "level.json"
    if not level.is_file():
        return None, "no level.json: the generation stopped before a level existed"
    from engine.errors import EngineError

    try:
        cache.mkdir(parents=True, exist_ok=True)
        write_map_picture(level, cache / MAP_PICTURE)
    except (EngineError, OSError, ValueError) as exc:
        return None, f"the level does not load: {str(exc)[:300]}"
    return _data_uri(cache / MAP_PICTURE), ""


def _replay(entry: Entry, cache: Path, heading: str) -> tuple[str | None, str]:
    replay = read_replay(entry.folder / REPLAY_FILE)
    if replay is None and (entry.folder / "level.json").is_file():
        from genesis.simulate import SimJob, run_job

        cache.mkdir(parents=True, exist_ok=True)
        run = run_job(SimJob(str(entry.folder / "level.json"), 0, "reference", replay_path=str(cache / REPLAY_FILE)))
        if not run.ok:
            return None, f"the reference run failed: {(run.error or run.reason)[:300]}"
        replay = read_replay(cache / REPLAY_FILE)
    if replay is None:
        return None, "no replay: no level to run"
    return render_replay_page(replay, heading), ""


def media_for(entry: Entry, cache: Path, heading: str) -> Media:
    map_uri, map_note = _map(entry, cache)
    page, replay_note = _replay(entry, cache, heading)
    return Media(map_uri, page, "; ".join(n for n in (map_note, replay_note) if n))
