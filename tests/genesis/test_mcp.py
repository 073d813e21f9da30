"""`genesis mcp` driven by the official MCP client over stdio: list, reset, observe with images,
act, step to the end, metrics; bad requests come back as tool errors."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[2]
LEVELS = ROOT / "kb" / "levels"


def _server() -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-c", "from genesis.cli import app; app()", "mcp", "--root", str(LEVELS)],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=str(ROOT))


def _text(result) -> str:
    return "".join(c.text for c in result.content if c.type == "text")


async def _session_run(body):
    async with stdio_client(_server()) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await body(session)


def test_an_agent_plays_multi_front_defense_over_mcp():
    async def body(session):
        tools = {t.name for t in (await session.list_tools()).tools}
        assert {"list_scenarios", "reset", "observe", "act", "step", "metrics"} <= tools
        listed = json.loads(_text(await session.call_tool("list_scenarios", {})))
        assert {"MFD", "SP", "TCP", "FS-F", "FS-T"} <= {s["id"] for s in listed}
        briefing = _text(await session.call_tool("reset", {"scenario": "MFD", "seed": 1}))
        assert "Metal Storage" in briefing and "## Observation" in briefing
        obs = await session.call_tool("observe", {"images": True, "as_json": True})
        state = json.loads(obs.content[0].text)
        images = [c for c in obs.content if c.type == "image"]
        assert images and all(c.mime_type == "image/png" for c in images)
        assert "camera home base" in obs.content[1].text
        tanks = [u["id"] for u in state["unassigned"]]
        results = json.loads(_text(await session.call_tool("act", {"actions": [
            {"action": "assign_squad", "squad": "a", "units": tanks},
            {"action": "squad_move", "squad": "a", "x": 48, "y": 30},
            {"action": "squad_move", "squad": "nobody", "x": 1, "y": 1}]})))
        assert [r["ok"] for r in results] == [True, True, False] and results[2]["code"] == "unknown_squad"
        running = json.loads(_text(await session.call_tool("metrics", {})))
        assert running["done"] is False and running["actions_valid"] == 2 and running["actions_invalid"] == 1
        clock = json.loads(_text(await session.call_tool("step", {"seconds": 15})))
        assert clock["time"] == pytest.approx(15.0, abs=0.05) and clock["done"] is False
        while not clock["done"]:
            clock = json.loads(_text(await session.call_tool("step", {"seconds": 600})))
        final = json.loads(_text(await session.call_tool("metrics", {})))
        assert final["done"] and final["outcome"] in ("win", "loss") and final["seed"] == 1
        assert final["game_time_s"] == clock["time"] and final["actions_valid"] == 2
        return True

    assert anyio.run(_session_run, body)


def test_bad_requests_are_tool_errors_not_crashes():
    async def body(session):
        before = await session.call_tool("observe", {})
        assert before.is_error and "reset first" in _text(before)
        unknown = await session.call_tool("reset", {"scenario": "../../etc"})
        assert unknown.is_error and "unknown scenario" in _text(unknown)
        await session.call_tool("reset", {"scenario": "SP"})
        too_long = await session.call_tool("step", {"seconds": 10_000})
        assert too_long.is_error
        garbage = json.loads(_text(await session.call_tool("act", {"actions": [5, {"action": "fly"}]})))
        assert [r["code"] for r in garbage] == ["bad_action", "unknown_action"]
        return True

    assert anyio.run(_session_run, body)


def test_a_missing_root_is_bad_input():
    from typer.testing import CliRunner

    from genesis.cli import app

    res = CliRunner().invoke(app, ["mcp", "--root", "/no/such/folder"])
    assert res.exit_code == 2 and "no such folder" in res.output
