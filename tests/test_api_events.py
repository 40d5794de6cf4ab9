"""`GET /api/events`: what a client of the event stream sees, and that leaving it leaves nothing behind.

httpx's ASGI transport buffers a response to its end, and an event stream has none, so the stream
is read through `StreamingTransport`, which hands the body over chunk by chunk and disconnects the
client when the response is closed. Every wait is bounded by `T`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import fastapi.routing
import httpx
import pytest
from fastapi import FastAPI
from support.streaming import StreamingTransport, read_sse

from gui.api import events as api_events
from gui.api import register_api
from gui.api.request_gate import Served
from gui.context import EngineSlot
from gui.core.door.engine import Engine
from gui.core.events import RunFinished

T = 5.0
ECHO = {"name": "greet", "groups": [{"name": "say", "in": {"who": "string"}, "out": {"text": "string"},
                                     "tools": '{"tool":"echo","args":{"value":"hi $args.who"},"as":"text"} ;'}]}
SHELL = {"name": "shell", "groups": [{"name": "ask", "in": {}, "out": {},
                                      "tools": '{"tool":"cmd_run","args":{"command":"echo hi"}} ;'}]}


@pytest.fixture
async def engine(current_engine: Engine) -> Engine:
    await current_engine.create(ECHO)
    await current_engine.create(SHELL)
    return current_engine


@pytest.fixture(params=["fastapi.sse", "by hand"])
def transport(request, engine: Engine, engine_slot: EngineSlot, monkeypatch) -> StreamingTransport:
    """Every test runs twice: on FastAPI's `EventSourceResponse`, and on the fallback for older FastAPI."""
    if request.param == "by hand":
        monkeypatch.setattr(api_events, "EventSourceResponse", None)
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process())
    return StreamingTransport(app)


@pytest.fixture
async def client(transport: StreamingTransport) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


async def start(client: httpx.AsyncClient, name: str, **args: str) -> str:
    answer = await client.post("/api/runs", json={"sequence": name, "args": args})
    assert answer.status_code == 202
    return answer.json()["run_id"]


async def test_a_run_is_streamed_as_it_happens(client, engine):
    async with client.stream("GET", "/api/events", params={"types": "run."}) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = response.aiter_lines()
        assert (await read_sse(lines, 1))[0]["comment"] == "connected"
        run_id = await start(client, "greet", who="Ada")
        started, finished = await read_sse(lines, 2)
    assert (started["event"], finished["event"]) == ("run.started", "run.finished")
    data = json.loads(finished["data"])
    assert data["run_id"] == run_id and data["data"]["status"] == "succeeded"
    assert data["data"]["outputs"] == {"text": "hi Ada"}
    assert int(finished["id"]) == data["seq"]


async def test_a_request_for_a_person_is_streamed_with_its_id(client, engine):
    async with client.stream("GET", "/api/events", params={"types": "interaction"}) as response:
        lines = response.aiter_lines()
        await read_sse(lines, 1)
        run_id = await start(client, "shell")
        [created] = await read_sse(lines, 1)
    assert created["event"] == "interaction.created"
    data = json.loads(created["data"])
    [pending] = await engine.interactions.pending(run_id)
    assert data["data"]["interaction_id"] == pending.interaction_id
    assert data["data"]["record"]["request"]["command"] == "echo hi"


async def test_the_stream_can_follow_one_run_only(client, engine):
    followed = await start(client, "greet", who="A")
    await engine.runner.wait(followed, T)
    async with client.stream("GET", "/api/events", params={"run_id": followed}) as response:
        lines = response.aiter_lines()
        await read_sse(lines, 1)
        await engine.runner.wait(await start(client, "greet", who="B"), T)  # not followed: not seen
        engine.bus.publish(RunFinished, followed, status="marker")
        [first] = await read_sse(lines, 1)
    assert json.loads(first["data"])["data"]["status"] == "marker"


async def test_a_quiet_stream_sends_a_heartbeat(client, monkeypatch):
    monkeypatch.setattr(fastapi.routing, "_PING_INTERVAL", 0.05)
    monkeypatch.setattr(api_events, "HEARTBEAT_SECONDS", 0.05)
    async with client.stream("GET", "/api/events") as response:
        assert [e["comment"] for e in await read_sse(response.aiter_lines(), 2)] == ["connected", "ping"]


async def test_the_stream_ends_and_unsubscribes_when_the_client_leaves(client, transport, engine):
    async with client.stream("GET", "/api/events") as response:
        await read_sse(response.aiter_lines(), 1)
        assert len(engine.bus._subscribers) == 1  # the stream's own subscription
    assert transport.task is not None and transport.task.done()
    assert len(engine.bus._subscribers) == 0


async def test_the_stream_ends_when_the_engine_is_closed(client, engine, monkeypatch):
    monkeypatch.setattr(api_events, "CHECK_SECONDS", 0.01)
    async with client.stream("GET", "/api/events") as response:
        lines = response.aiter_lines()
        await read_sse(lines, 1)
        await engine.close()
        async with asyncio.timeout(T):
            rest = [line async for line in lines]
    assert rest == []
    assert len(engine.bus._subscribers) == 0
