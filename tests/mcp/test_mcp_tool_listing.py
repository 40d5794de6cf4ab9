"""Agents see which tools exist: `seq_tools` (MCP), `seqdesk tools` (CLI), `GET /api/tools`, all through
the door; `seq_help` ends with the tools of now; an unknown name gets the nearest known names.

Real parts: the test MCP server over stdio (`elicit_server.py`), the SeqDesk MCP server in process and
spawned over stdio, the CLI as a subprocess on a data folder with `mcp-servers.json`.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp_support import ELICIT_SERVER, T, server_config

import gui
from gui.core.door.engine import Engine
from gui.core.sequences.names import nearest_names
from gui.core.tools.info import ServerInfo
from gui.mcp.manager import McpManager
from gui.mcp.server import build_server
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import default_registry

ROOT = Path(__file__).resolve().parents[2]


@asynccontextmanager
async def agent_with_servers(mode: str = "auto") -> AsyncIterator[tuple[Engine, Client]]:
    """An engine with one connected MCP server ("elicit") and one that cannot start ("broken"),
    and an agent's MCP client on SeqDesk's server in process."""
    from gui.core.asks.elicitation import NoopElicitationHandler

    engine = compose_engine(default_registry(), MemoryStores())
    manager = McpManager(engine.registry, lambda _c: NoopElicitationHandler(), backoff=(30.0, 30.0))
    engine.server_states = manager.server_infos

    async def open_engine() -> Engine:
        return engine

    try:
        await manager.add(server_config())
        await manager.add(server_config("broken", ["-c", "import sys; sys.exit(3)"]))
        await manager.wait_settled(T)
        async with asyncio.timeout(T), Client(build_server(open_engine), mode=mode) as client:
            yield engine, client
    finally:
        await manager.stop()
        await engine.close()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_seq_tools_lists_built_in_and_server_tools_with_their_server_state(mode):
    async with agent_with_servers(mode) as (_, client):
        result = await client.call_tool("seq_tools", {})
        assert not result.is_error
        listing = result.structured_content
        tools = {t["name"]: t for t in listing["tools"]}
        assert {"cmd_run", "echo", "elicit.peek", "elicit.change"} <= set(tools)
        cmd = tools["cmd_run"]
        assert (cmd["title"], cmd["asks_first"], cmd["source"], cmd["result_type"]) == (
            "Run a command", True, "built-in", "string")
        assert cmd["input_schema"]["required"] == ["command"]
        peek = tools["elicit.peek"]
        assert (peek["server"], peek["server_state"], peek["source"], peek["asks_first"]) == (
            "elicit", "connected", "mcp", True)  # the server is not trusted: it asks
        assert peek["input_schema"]["properties"]["text"]["type"] == "string"
        assert peek["result_type"] == "string"  # its outputSchema wraps a plain str
        servers = {s["name"]: s for s in listing["servers"]}
        assert servers["elicit"]["status"] == "connected"
        assert servers["elicit"]["tools"] == len([t for t in tools.values() if t["server"] == "elicit"])
        assert servers["broken"]["status"] == "down"
        assert servers["broken"]["last_error"]
        assert not any(t["server"] == "broken" for t in tools.values())


async def test_seq_tools_can_search_by_words():
    async with agent_with_servers() as (_, client):
        found = (await client.call_tool("seq_tools", {"search": "ELICIT"})).structured_content
        assert found["tools"] and all(t["server"] == "elicit" for t in found["tools"])
        assert [t["name"] for t in (await client.call_tool("seq_tools", {"search": "run a command"})
                                   ).structured_content["tools"]] == ["cmd_run"]


async def test_seq_help_ends_with_the_tools_available_now():
    async with agent_with_servers() as (_, client):
        result = await client.call_tool("seq_help", {})
        text = result.content[0].text
        tail = text[text.index("TOOLS AVAILABLE NOW"):]
        assert "cmd_run" in tail and "elicit.peek" in tail and "needs approval" in tail
        assert "the MCP server 'broken' is down" in tail
        assert result.structured_content == {"help": text}


async def test_the_seq_tools_have_titles_output_schemas_a_version_and_a_real_groups_schema():
    async with agent_with_servers() as (_, client):
        assert client.server_info is not None and client.server_info.version == gui.__version__
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert all(t.title and t.output_schema for t in tools.values()), {n: t.title for n, t in tools.items()}
        groups = tools["seq_create"].input_schema["properties"]["groups"]
        array = next(s for s in groups["anyOf"] if s.get("type") == "array")
        item = array["items"]
        assert item["required"] == ["name", "tools"]
        assert item["properties"]["in"]["type"] == "object"
        assert item["properties"]["tools"]["type"] == "string"
        assert set(tools["seq_run"].output_schema["properties"]) >= {"run_id", "status", "outputs"}


async def test_a_run_that_fails_through_seq_run_is_an_error_with_its_record():
    async with agent_with_servers() as (_, client):
        doc = {"name": "nope", "groups": [{"name": "nope-g", "in": {}, "out": {}, "missing": "fail",
                                           "tools": '{"tool":"git.git_status","args":{}} ;'}]}
        saved = await client.call_tool("seq_create", doc)
        assert not saved.is_error
        assert any("unknown-tool" in w for w in saved.structured_content["warnings"])
        result = await client.call_tool("seq_run", {"name": "nope"})
        assert result.is_error
        assert result.structured_content["status"] == "failed"
        ok = await client.call_tool("seq_create", {"name": "fine", "groups": [
            {"name": "fine-g", "in": {}, "out": {}, "tools": '{"tool":"echo","args":{"value":1}} ;'}]})
        assert not ok.is_error
        assert not (await client.call_tool("seq_run", {"name": "fine"})).is_error


def test_nearest_names_suggests_the_tool_an_agent_meant():
    names = ["git.status", "git.log", "time.get_current_time", "cmd_run", "file_read"]
    assert nearest_names("git.git_status", names) == ["git.status"]
    assert nearest_names("cmd-run", names) == ["cmd_run"]
    assert nearest_names("get_current_time", names) == ["time.get_current_time"]
    assert nearest_names("zzz", names) == []


async def test_an_unknown_tool_warns_with_the_nearest_names_at_save_and_at_run_time():
    async with agent_with_servers() as (engine, client):
        doc = {"name": "guess", "groups": [{"name": "guess-g", "in": {}, "out": {}, "missing": "skip",
                                            "tools": '{"tool":"elicit.elicit_peek","args":{"text":"x"}} ;'}]}
        saved = await client.call_tool("seq_create", doc)
        warning = next(w for w in saved.structured_content["warnings"] if "unknown-tool" in w)
        assert "did you mean 'elicit.peek'" in warning
        record = await engine.call("guess")
        assert record.status == "degraded" or record.groups[0].tools[0].status == "skipped"
        assert "did you mean 'elicit.peek'" in (record.groups[0].tools[0].reason or "")


async def test_get_api_tools_is_the_same_listing(engine_slot, current_engine):
    from fastapi import FastAPI
    from httpx import ASGITransport, AsyncClient

    from gui.api import register_api
    from gui.api.request_gate import Served

    current_engine.server_states = lambda: [ServerInfo(name="far", status="down", last_error="no route")]
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.at("127.0.0.1", 8000))
    async with AsyncClient(transport=ASGITransport(app=app), base_url="http://127.0.0.1:8000") as http:
        response = await http.get("/api/tools")
    assert response.status_code == 200
    body = response.json()
    assert body == (await current_engine.list_tools()).to_json()
    assert body["servers"] == [{"name": "far", "status": "down", "last_error": "no route", "protocol": None,
                                "tools": 0}]
    assert "cmd_run" in {t["name"] for t in body["tools"]}


def test_seqdesk_tools_lists_the_data_folders_servers(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "mcp-servers.json").write_text(json.dumps({"servers": [
        {"name": "elicit", "command": sys.executable, "args": ELICIT_SERVER}]}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "NICEGUI_")) and k != "SEQDESK_MEMORY"}
    env |= {"SEQDESK_DATA": str(data), "PYTHONPATH": str(ROOT)}
    as_json = subprocess.run([sys.executable, "-m", "gui", "tools", "--json"], capture_output=True, text=True,
                             env=env, timeout=60)
    assert as_json.returncode == 0, as_json.stderr
    listing = json.loads(as_json.stdout)
    assert {"elicit.peek", "cmd_run"} <= {t["name"] for t in listing["tools"]}
    assert listing["servers"][0]["name"] == "elicit" and listing["servers"][0]["status"] == "connected"
    text = subprocess.run([sys.executable, "-m", "gui", "tools"], capture_output=True, text=True, env=env, timeout=60)
    assert text.returncode == 0, text.stderr
    assert "elicit.peek  (from elicit; asks first; gives back: string)" in text.stdout
    assert "server elicit: connected" in text.stdout


async def test_spawned_seqdesk_mcp_answers_seq_tools_over_stdio(tmp_path):
    params = StdioServerParameters(command=sys.executable, args=["-m", "gui", "mcp"], cwd=str(tmp_path),
                                   env={"SEQDESK_MEMORY": "1", "PYTHONPATH": str(ROOT)})
    async with asyncio.timeout(3 * T), Client(params) as client:
        result = await client.call_tool("seq_tools", {})
    assert not result.is_error
    assert "file_read" in {t["name"] for t in result.structured_content["tools"]}
