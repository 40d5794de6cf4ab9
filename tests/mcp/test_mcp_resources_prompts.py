"""Resources and prompts: `mcp_resource` reads a server's resource by URI (asking first, even for a
trusted server), and a server's prompts are text-template steps whose result feeds a later tool.

The runtime is the app's own (`open_runtime` on a data folder whose `mcp-servers.json` names the real
`live_server.py` over stdio), so the tool is wired to the MCP servers as in the app.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp_support import HERE, T, expect
from support.waiting import within

from gui.core.asks.interactions import ApprovalResponse
from gui.core.door.engine import Engine
from gui.runtime import Runtime, open_runtime

LIVE = [str(HERE / "live_server.py")]


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[Runtime]:
    (tmp_path / "mcp-servers.json").write_text(json.dumps({"servers": [
        {"name": "live", "command": sys.executable, "args": LIVE, "trusted": True}]}), encoding="utf-8")
    rt = await open_runtime(tmp_path, mcp_wait=T)
    try:
        yield rt
    finally:
        await rt.close()


def sequence(name: str, *groups: tuple[dict, dict, list[dict]]) -> dict:
    return {"name": name, "description": "", "groups": [
        {"name": f"{name}-{i}", "in": ins, "out": outs, "tools": " ".join(json.dumps(s) + " ;" for s in steps)}
        for i, (ins, outs, steps) in enumerate(groups)]}


async def approve_next(engine: Engine) -> dict:
    event = await within(expect(engine, "interaction.created"), "the approval request")
    record = event.data["record"]
    await engine.respond(event.data["interaction_id"], ApprovalResponse(decision="approved"))
    return record


async def test_mcp_resource_reads_by_uri_after_the_person_approves_even_on_a_trusted_server(runtime):
    engine = runtime.engine
    step = {"tool": "mcp_resource", "args": {"server": "live", "uri": "note://hello"}, "as": "note"}
    saved = await engine.create(sequence("read-note", ({}, {"note": "string"}, [step])))
    assert saved.warnings == []  # its result type is unknown at save: text here, an object for a binary file
    asked = asyncio.create_task(approve_next(engine))
    record = await within(engine.call("read-note"), "the call's end")
    request = await asked
    assert record.status == "succeeded", record.to_summary_json()
    assert record.outputs["note"] == "hello from a resource"
    shown = json.dumps(request)
    assert "note://hello" in shown and "live" in shown  # the approval names the server and the whole address


async def test_mcp_resource_refuses_unknown_servers_and_addresses_without_a_scheme(runtime):
    engine = runtime.engine
    engine.modes.set("mcp_resource", "always-allow")
    bad_server = {"tool": "mcp_resource", "args": {"server": "nope", "uri": "note://hello"}, "as": "note"}
    await engine.create(sequence("bad-server", ({}, {"note": "string"}, [bad_server])))
    record = await within(engine.call("bad-server"), "the call's end")
    assert record.status == "failed"
    assert "there is no MCP server named 'nope' (the servers: live)" in record.groups[0].tools[0].error
    missing = {"tool": "mcp_resource", "args": {"server": "live", "uri": "note://nothing-here"}, "as": "note"}
    await engine.create(sequence("missing", ({}, {"note": "string"}, [missing])))
    record = await within(engine.call("missing"), "the call's end")
    assert record.status == "failed" and "did not give note://nothing-here" in record.groups[0].tools[0].error
    no_scheme = {"tool": "mcp_resource", "args": {"server": "live", "uri": "hello"}, "as": "note"}
    from gui.core.sequences.problems import DslError

    with pytest.raises(DslError, match="must start with a scheme"):
        await engine.create(sequence("no-scheme", ({}, {"note": "string"}, [no_scheme])))


async def test_a_prompt_is_a_text_template_whose_result_feeds_a_later_tool(runtime):
    engine = runtime.engine
    tool = engine.tool("live.prompt/summarize")
    assert tool is not None and tool.title == "Summarise a topic"
    assert tool.input_schema()["required"] == ["topic"]
    assert tool.approval == "tool"  # even on a trusted server: a prompt claims nothing about what it does
    engine.modes.set("live.prompt/summarize", "always-allow")  # the person allowed it
    template = {"tool": "live.prompt/summarize", "args": {"topic": "$args.topic"}, "as": "ask"}
    reuse = {"tool": "echo", "args": {"value": "$args.ask"}, "as": "said"}
    saved = await engine.create(sequence("summary", ({"topic": "string"}, {"ask": "string"}, [template]),
                                         ({"ask": "string"}, {"said": "string"}, [reuse])))
    assert saved.warnings == []
    record = await within(engine.call("summary", {"topic": "the weather"}), "the call's end")
    assert record.status == "succeeded", record.to_summary_json()
    assert record.outputs["said"] == "Summarise the weather in at most 50 words."
    listing = await engine.list_tools()
    info = next(t for t in listing.tools if t.name == "live.prompt/summarize")
    assert (info.server, info.result_type) == ("live", "string")
