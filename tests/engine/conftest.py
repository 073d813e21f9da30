"""Shared fixtures for engine tests: small maps written to tmp_path and level dicts around them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest


def open_rows(w: int = 32, h: int = 32) -> list[str]:
    return ["." * w for _ in range(h)]


def write_map(tmp_path: Path, rows: list[str], spawns: dict[str, tuple[float, float]] | None = None,
              name: str = "test_map") -> str:
    data = {"name": name, "width": len(rows[0]), "height": len(rows), "rows": rows,
            "spawns": [{"name": n, "x": x, "y": y} for n, (x, y) in (spawns or {}).items()]}
    (tmp_path / "map.json").write_text(json.dumps(data))
    return "map.json"


def level_dict(teams: list[dict], *, conditions=None, rules=None, switches=None, map_file="map.json") -> dict:
    return {"name": "t", "description": "test level", "map": {"file": map_file}, "teams": teams,
            "conditions": conditions or [], "rules": rules or [],
            "switches": {"fog_of_war": False, "time_limit": 120, **(switches or {})}}


def team(tid: int, units: list[dict], controller: dict | None = None, **extra) -> dict:
    out = {"id": tid, "name": f"t{tid}", "units": units, **extra}
    if controller is not None:
        out["controller"] = controller
    return out


@pytest.fixture
def arena(tmp_path):
    """A 32x32 open map with spawns west/east; returns tmp_path."""
    write_map(tmp_path, open_rows(), {"west": (4.5, 16.5), "east": (27.5, 16.5)})
    return tmp_path


@pytest.fixture
def h():
    """The helper functions above (write_map, level_dict, team, open_rows)."""
    import sys

    return sys.modules[__name__]
