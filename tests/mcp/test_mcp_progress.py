"""A long MCP tool shows progress and its log: `tool.progress` events (progress, total, message), on the
record and in the event stream; log messages in the tool's log in the run record; images, audio and
resource links kept in the result; a trusted server's `openWorldHint` tool asks unless allowed.

Real server over stdio (`live_server.py`), in both protocol modes.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp_support import HERE, T, expect, server_config
from support.waiting import within

from gui.core.asks.interactions import ApprovalResponse
from gui.core.events import Event, ToolProgress
from gui.core.tools.media import parts_of

LIVE = [str(HERE / "live_server.py")]


def one_step(name: str, tool: str, args: dict, out: str = "object") -> dict:
    step = {"tool": tool, "args": args, "as": "got"}
    return {"name": name, "description": "", "groups": [
        {"name": f"{name}-g", "in": {}, "out": {"got": out}, "tools": json.dumps(step) + " ;"}]}


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_progress_becomes_events_and_logs_go_to_the_tools_record(connect, engine, protocol):
    await connect(server_config("live", LIVE, protocol=protocol))
    await engine.create(one_step("counting", "live.count", {"steps": 4}, out="string"))
    engine.modes.set("live.count", "always-allow")
    seen: list[Event] = []
    unsubscribe = engine.bus.subscribe(lambda e: seen.append(e) if e.type in ("tool.progress", "tool.log") else None)
    try:
        record = await within(engine.run("counting"), "the run's end")
    finally:
        unsubscribe()
    assert record.status == "succeeded", record.to_summary_json()
    tool = record.groups[0].tools[0]
    assert tool.result == "counted to 4"
    progress = [e for e in seen if isinstance(e, ToolProgress)]
    assert [(e.progress, e.total, e.message) for e in progress] == [
        (float(i), 4.0, f"step {i} of 4") for i in range(1, 5)]
    assert all(e.tool_name == "live.count" and e.run_id == record.run_id for e in progress)
    assert tool.progress is not None and (tool.progress.progress, tool.progress.total) == (4.0, 4.0)
    assert [(line.level, line.text) for line in tool.log] == [("info", f"counted {i}") for i in range(1, 5)]
    assert [e.data["message"] for e in seen if e.type == "tool.log"] == [f"counted {i}" for i in range(1, 5)]
    stored = await engine.runs.get(record.run_id)
    assert stored is not None and len(stored.groups[0].tools[0].log) == 4


async def test_a_held_tool_shows_its_progress_while_it_runs(connect, engine, registry):
    conn = await connect(server_config("live", LIVE))
    await engine.create(one_step("holding", "live.count", {"steps": 4, "hold": True}, out="string"))
    engine.modes.set("live.count", "always-allow")
    halfway = expect(engine, "tool.log", lambda e: e.data["message"] == "waiting to be released")
    started = await engine.start("holding")
    await within(halfway, "the held tool's log line")
    live = await engine.get_run(started.run_id)
    assert live is not None
    tool = live.groups[0].tools[0]
    assert tool.status == "running"
    assert tool.progress is not None and (tool.progress.progress, tool.progress.total) == (2.0, 4.0)
    assert tool.progress.message == "step 2 of 4"
    from gui.core.tools.registry import ToolContext

    await registry.get("live.release").call({}, ToolContext(run_id="x", tool_call_id="y", tool_name="live.release"))
    record = await within(engine.runner.wait(started.run_id), "the run's end")
    assert record.status == "succeeded"
    assert conn.state.status == "connected"


async def test_the_event_stream_carries_tool_progress(connect, engine):
    from gui.core.events import parse_event

    await connect(server_config("live", LIVE))
    await engine.create(one_step("counting", "live.count", {"steps": 2}, out="string"))
    engine.modes.set("live.count", "always-allow")
    async with engine.events() as stream:
        run = asyncio.create_task(engine.run("counting"))
        async with asyncio.timeout(T):
            async for event in stream:
                if event.type == "tool.progress":
                    wire = json.loads(json.dumps(event.to_json()))
                    assert wire["data"]["progress"] == 1.0 and wire["data"]["total"] == 2.0
                    again = parse_event(wire)
                    assert isinstance(again, ToolProgress) and again.message == "step 1 of 2"
                    break
        await within(run, "the run's end")


async def test_images_audio_and_links_are_kept_in_the_result(connect, engine):
    await connect(server_config("live", LIVE))
    await engine.create(one_step("media", "live.picture", {}))
    engine.modes.set("live.picture", "always-allow")
    record = await within(engine.run("media"), "the run's end")
    assert record.status == "succeeded", record.to_summary_json()
    value = record.outputs["got"]
    assert value["text"] == "a picture, a sound and a link"
    parts = parts_of(value)
    assert parts is not None
    kinds = [p["type"] for p in parts]
    assert kinds == ["text", "image", "audio", "resource_link", "resource_link", "resource"]
    assert parts[1]["mime_type"] == "image/png" and parts[1]["data"].startswith("iVBOR")
    assert parts[2]["mime_type"] == "audio/wav"
    assert parts[3]["name"] == "report.pdf" and parts[3]["uri"] == "https://example.com/report"
    assert parts[5] == {"type": "resource", "uri": "note://inline", "text": "inline text"}


async def test_a_trusted_servers_open_world_tool_asks_unless_the_person_allowed_it(connect, engine, registry):
    await connect(server_config("live", LIVE, trusted=True))
    assert registry.get("live.peek").approval == "none"  # read-only, stays on the machine: runs
    assert registry.get("live.fetch").approval == "tool"  # read-only but reaches outside: asks
    await engine.create(one_step("fetching", "live.fetch", {"url": "https://example.com"}, out="string"))
    asked = expect(engine, "interaction.created")
    run = asyncio.create_task(engine.run("fetching"))
    event = await within(asked, "the approval request")
    await engine.interactions.respond(event.data["interaction_id"], ApprovalResponse(decision="approved"))
    assert (await within(run, "the run's end")).outputs["got"] == "fetched https://example.com"
    engine.modes.set("live.fetch", "always-allow")  # the person allowed it: no question any more
    again = await within(engine.run("fetching"), "the second run's end")
    assert again.status == "succeeded"
    assert [r.auto for r in await engine.interactions.store.list("resolved")] == [False, True]


async def test_an_agent_running_a_sequence_hears_its_mcp_tools_progress(connect, engine):
    from mcp import Client

    from gui.mcp.server import build_server

    await connect(server_config("live", LIVE))
    await engine.create(one_step("counting", "live.count", {"steps": 2}, out="string"))
    engine.modes.set("live.count", "always-allow")
    heard: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append(message or "")

    async def open_engine():
        return engine

    async with asyncio.timeout(T), Client(build_server(open_engine)) as agent:
        result = await agent.call_tool("seq_run", {"name": "counting"}, progress_callback=on_progress)
    assert not result.is_error
    assert "'live.count' 1 of 2: step 1 of 2" in heard and "'live.count' 2 of 2: step 2 of 2" in heard


async def test_get_api_events_streams_tool_progress_over_http(connect, engine):
    import httpx
    from fastapi import FastAPI
    from support.streaming import StreamingTransport, read_sse

    from gui.api import register_api
    from gui.api.request_gate import Served
    from gui.context import EngineSlot

    await connect(server_config("live", LIVE))
    await engine.create(one_step("counting", "live.count", {"steps": 2}, out="string"))
    engine.modes.set("live.count", "always-allow")
    app = FastAPI()
    register_api(app, engine=EngineSlot(engine).for_api, token=None, served=Served.in_process())
    async with httpx.AsyncClient(transport=StreamingTransport(app), base_url="http://test") as client:
        async with client.stream("GET", "/api/events", params={"types": "tool.progress"}) as response:
            lines = response.aiter_lines()
            await read_sse(lines, 1)  # ": connected"
            started = await client.post("/api/runs", json={"sequence": "counting"})
            assert started.status_code == 202
            first, second = await read_sse(lines, 2)
    assert first["event"] == second["event"] == "tool.progress"
    data = [json.loads(e["data"])["data"] for e in (first, second)]
    assert [(d["progress"], d["total"], d["message"], d["tool_name"]) for d in data] == [
        (1.0, 2.0, "step 1 of 2", "live.count"), (2.0, 2.0, "step 2 of 2", "live.count")]
    await engine.runner.wait(started.json()["run_id"], T)
