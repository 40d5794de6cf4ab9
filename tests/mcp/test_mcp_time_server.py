"""A real third-party server from PyPI (`mcp-server-time`): its tools join the registry and run in a sequence."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime

from mcp_support import TIME_SERVER, expect, server_config
from support.waiting import within

from gui.core.asks.interactions import ApprovalResponse, ToolApprovalRequest


def time_config(**fields: object):
    return server_config("time", [*TIME_SERVER], **fields)


def one_step_sequence(name: str = "clock") -> dict:
    step = {"tool": "time.get_current_time", "args": {"timezone": "$args.tz"}, "as": "now"}
    return {"name": name, "description": "", "groups": [
        {"name": f"{name}-read", "in": {"tz": "string"}, "out": {"now": "object"}, "tools": json.dumps(step) + " ;"}]}


async def test_its_tools_are_registered_under_the_server_name_with_their_schemas(connect, registry):
    conn = await connect(time_config())
    assert conn.state.tools == ("time.convert_time", "time.get_current_time")
    tool = registry.get("time.get_current_time")
    assert tool is not None
    assert tool.input_schema()["required"] == ["timezone"]
    assert "current time" in tool.description.lower()
    # it says readOnlyHint, but the server is not trusted: it asks, and runs alone
    assert (tool.approval, tool.concurrency_safe) == ("tool", False)


async def test_a_trusted_servers_read_only_tool_needs_no_approval(connect, registry):
    await connect(time_config(trusted=True))
    tool = registry.get("time.get_current_time")
    assert (tool.approval, tool.concurrency_safe) == ("none", True)


async def test_get_current_time_runs_inside_a_sequence_when_always_allowed(connect, engine):
    await connect(time_config())
    sequence, result = await engine.create(one_step_sequence())
    assert result.warnings == []
    engine.modes.set("time.get_current_time", "always-allow")
    record = await within(engine.run("clock", {"tz": "Europe/Paris"}), "the run's end")
    assert record.status == "succeeded", record.to_summary_json()
    now = record.outputs["now"]
    assert now["timezone"] == "Europe/Paris"
    assert datetime.fromisoformat(now["datetime"]).utcoffset() is not None
    approvals = await engine.interactions.store.list("resolved")
    assert [r.auto for r in approvals] == [True]


async def test_get_current_time_waits_for_a_person_and_runs_once_approved(connect, engine):
    await connect(time_config())
    await engine.create(one_step_sequence())
    created = expect(engine, "interaction.created")
    run = asyncio.create_task(engine.run("clock", {"tz": "UTC"}))
    await within(created, "the approval request")
    [pending] = await engine.interactions.pending()
    assert isinstance(pending.request, ToolApprovalRequest)
    assert pending.request.validated_input == {"timezone": "UTC"}
    assert pending.request.source.tool_name == "time.get_current_time"
    await engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
    record = await within(run, "the run's end")
    assert record.status == "succeeded"
    assert record.outputs["now"]["timezone"] == "UTC"


async def test_an_invalid_timezone_fails_the_step_with_the_servers_message(connect, engine):
    await connect(time_config(trusted=True))
    await engine.create(one_step_sequence())
    record = await within(engine.run("clock", {"tz": "Nowhere/Atlantis"}), "the run's end")
    assert record.status == "failed"
    error = record.groups[0].tools[0].error
    assert error.startswith("time.get_current_time: ") and "Nowhere/Atlantis" in error


async def test_literal_arguments_are_checked_against_the_schema_when_saving(connect, engine):
    await connect(time_config())
    doc = one_step_sequence()
    doc["groups"][0]["in"] = {}
    doc["groups"][0]["tools"] = json.dumps({"tool": "time.get_current_time", "args": {"tz": "UTC"}, "as": "now"}) + " ;"
    result = await engine.check(doc)
    assert [p.code for p in result.errors] == ["bad-args"]
    assert "'timezone' is a required property" in result.errors[0].message



async def test_the_tool_listing_shows_the_time_servers_tools(connect, engine):
    from gui.core.tools.info import ServerInfo

    conn = await connect(time_config())
    engine.server_states = lambda: [ServerInfo(name="time", status=conn.state.status, tools=len(conn.state.tools))]
    listing = await engine.list_tools()
    tool = next(t for t in listing.tools if t.name == "time.get_current_time")
    assert (tool.server, tool.server_state, tool.asks_first, tool.result_type) == ("time", "connected", True, "object")
    assert tool.output_schema is not None and "timezone" in tool.output_schema["properties"]
    assert listing.servers[0].tools == 2
