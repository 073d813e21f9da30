"""The MCP server (official `mcp` SDK, stdio transport) over one Arena.

Tools: list_scenarios, reset, observe (text, JSON on request, minimap + cameras as PNG images on
request), act (JSON actions of the engine's action layer), step (advance game time; the squads'
FSM runs meanwhile), metrics. Bad requests come back as tool errors with a one-line reason.
"""
from __future__ import annotations

import functools
import io
import json
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image

from engine.agent.actions import SCHEMA
from genesis.mcp.arena import MAX_ACTIONS, MAX_STEP_S, Arena, ArenaError

INSTRUCTIONS = (
    "RTS mini-games from Genesis. Call list_scenarios, then reset(scenario, seed) to start a game; "
    "observe, act with JSON actions, and step to let game time pass (the game waits while you think); "
    "metrics gives the episode's win / game time / damage efficiency once it is over. Action kinds: "
    + ", ".join(SCHEMA) + "."
)


def _png(image) -> Image:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return Image(data=buf.getvalue(), format="png")


def _told(fn):
    """A bad request reaches the client as a tool error with its reason (the SDK hides other errors)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ArenaError as exc:
            raise ToolError(str(exc)) from None
    return wrapper


def build_server(roots: list[Path]) -> MCPServer:
    arena = Arena(roots)
    server = MCPServer("genesis", instructions=INSTRUCTIONS)

    @server.tool(structured_output=False)
    @_told
    def list_scenarios() -> str:
        """Every playable scenario: id, name, description, teams, time limit."""
        return json.dumps(arena.scenarios(), indent=1)

    @server.tool(structured_output=False)
    @_told
    def reset(scenario: str, seed: int = 0, team: int | None = None) -> str:
        """Start scenario `scenario` (an id from list_scenarios) with `seed`; returns the briefing
        (mission, teams, unit roster) followed by the first observation."""
        briefing = arena.reset(scenario, seed, team)
        return briefing + "\n\n## Observation\n" + arena.observe_text()

    @server.tool(structured_output=False)
    @_told
    def observe(images: bool = False, as_json: bool = False) -> list[Any]:
        """The current observation as text (or JSON), plus the minimap and cameras on the three
        largest groups and the home base as PNG images when `images` is true."""
        parts: list[Any] = [json.dumps(arena.observe()) if as_json else arena.observe_text()]
        if images:
            shots = arena.images()
            parts.append("images: " + ", ".join(shots))
            parts += [_png(img) for img in shots.values()]
        return parts

    @server.tool(structured_output=False, description=f"Execute JSON actions in order (at most {MAX_ACTIONS}); "
                 "returns one {index, ok, code, message} per action.")
    @_told
    def act(actions: list[Any]) -> str:
        return json.dumps(arena.act(actions))

    @server.tool(structured_output=False, description=f"Let `seconds` of game time pass (at most {MAX_STEP_S:g}); "
                 "returns the clock and whether the game ended.")
    @_told
    def step(seconds: float = 15.0) -> str:
        return json.dumps(arena.step(seconds))

    @server.tool(structured_output=False)
    @_told
    def metrics() -> str:
        """Win / loss, game time, time to objective, damage efficiency, rank score and action counts
        of the finished episode (the clock and action counts while it runs)."""
        return json.dumps(arena.metrics())

    return server


def default_roots() -> list[Path]:
    """The knowledge base's reference levels and the generated scenarios."""
    from genesis.workspace import ensure

    ws = ensure()
    return [ws.kb / "levels", ws.generated]


def serve(roots: list[Path]) -> None:
    build_server(roots).run("stdio")
