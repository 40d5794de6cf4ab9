"""The operations the CLI and MCP server use, on an engine in this process and through the app's API."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from support.streaming import StreamingTransport

from gui.api import register_api
from gui.api.request_gate import Served
from gui.app import EngineSlot
from gui.core.asks.interactions import ApprovalResponse
from gui.core.door.engine import Engine
from gui.core.errors import OperationError
from gui.core.events import Event
from gui.remote import RemoteEngine

T = 5.0


def one_group(name: str, group: str, call: dict) -> dict:
    return {"name": name, "groups": [{"name": group, "tools": json.dumps(call) + " ;"}]}


@pytest.fixture
def engine(current_engine: Engine) -> Engine:
    return current_engine


@pytest.fixture
async def remote(engine: Engine, engine_slot: EngineSlot) -> AsyncIterator[RemoteEngine]:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process())
    ops = RemoteEngine("http://test")
    await ops.close()
    ops._client = httpx.AsyncClient(transport=StreamingTransport(app), base_url="http://test")
    yield ops
    await ops.close()


async def test_deleting_through_the_app_deletes_exactly_the_sequence_named(engine, remote):
    echo = {"tool": "echo", "args": {"value": 1}}
    await engine.create(one_group("a", "ga", echo))
    await engine.create(one_group("a#b?c/d", "gb", echo))
    assert await remote.delete("a#b?c/d")
    assert [s["name"] for s in await engine.list_sequences()] == ["a"]


async def test_an_app_that_cannot_answer_a_listing_is_an_operation_error(remote, engine_slot):
    engine_slot.engine = None
    with pytest.raises(OperationError, match="not open yet"):
        await remote.list_sequences()


@pytest.mark.parametrize("where", ["local", "remote"])
async def test_a_call_reports_the_requests_of_the_runs_it_calls_through_seq_call(engine, remote, where):
    await engine.create(one_group("child", "inner", {"tool": "cmd_run", "args": {"command": "echo hi"}}))
    await engine.create(one_group("parent", "outer", {"tool": "seq_call", "args": {"name": "child"}}))
    waiting: asyncio.Queue[Event] = asyncio.Queue()

    def on_event(event: Event) -> None:
        if event.type == "tool.waiting":
            waiting.put_nowait(event)

    ops = engine if where == "local" else remote
    call = asyncio.create_task(ops.call("parent", {}, on_event))
    seen = await asyncio.wait_for(waiting.get(), T)
    await engine.interactions.respond(seen.data["interaction_id"], ApprovalResponse(decision="approved"))
    record = await asyncio.wait_for(call, T)
    assert record.status == "succeeded"


async def test_the_tool_listing_through_the_app_is_the_engines_own(engine, remote):
    from gui.core.tools.info import ServerInfo

    engine.server_states = lambda: [ServerInfo(name="git", status="down", last_error="cannot start it")]
    assert await remote.list_tools() == await engine.list_tools()
    listing = await remote.list_tools()
    assert "cmd_run" in {t.name for t in listing.tools}
    assert listing.servers[0].last_error == "cannot start it"
