"""Our own test server over stdio: typed input through elicitation, errors, death, cancellation.

`order` asks through a resolver, which both protocol modes carry: those tests run in both. `ctx.elicit`
and URL-mode requests exist only in the legacy protocol.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp_support import ELICIT_SERVER, T, expect, server_config
from support.waiting import within

from gui.core.asks import InteractionValidationError
from gui.core.asks.elicitation import (
    ElicitationHandlerFunc,
    FixedElicitationHandler,
    InboxElicitationHandler,
)
from gui.core.asks.interactions import ElicitationResponse, ToolSource
from gui.core.errors import ToolError
from gui.core.tools.registry import ToolContext

MODES = ["auto", "legacy"]
FULL = {"name": "Ann", "qty": 3, "price": 2.5, "gift": True, "size": "L"}


def ctx(tool: str = "elicit.order") -> ToolContext:
    return ToolContext(run_id="run-1", tool_call_id="run-1-0-0", tool_name=tool)


def steps(*calls: dict) -> str:
    return " ".join(json.dumps(c) + " ;" for c in calls)


def order_sequence(name: str = "shop", tool: str = "elicit.order") -> dict:
    return {"name": name, "description": "", "groups": [{"name": f"{name}-g", "in": {}, "out": {"r": "object"},
                                                         "tools": steps({"tool": tool, "args": {"item": "tea"},
                                                                         "as": "r"})}]}


@pytest.mark.parametrize("mode", MODES)
async def test_accepted_values_reach_the_server_typed_as_it_asked(connect, registry, mode):
    handler = FixedElicitationHandler(ElicitationResponse.accept({**FULL, "qty": 3.0}))
    conn = await connect(server_config(protocol=mode), handler)
    assert conn.state.protocol == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    result = await registry.get("elicit.order").call({"item": "tea"}, ctx())
    assert result["action"] == "accept"
    assert result["values"] == FULL
    assert result["types"] == {"name": "str", "qty": "int", "price": "float", "gift": "bool", "size": "str"}
    [request] = handler.requests
    assert (request.server_name, request.message) == ("elicit", "Details for **tea**")
    assert (request.turn_id, request.source) == ("run-1", ToolSource(tool_call_id="run-1-0-0",
                                                                     tool_name="elicit.order"))
    fields = {f.name: f for f in request.fields}
    assert [n for n, f in fields.items() if f.required] == ["name"]
    assert (fields["qty"].type, fields["qty"].default) == ("number", 1)
    assert (fields["gift"].type, fields["size"].enum, fields["size"].default) == ("boolean", ["S", "M", "L"], "M")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_decline_and_cancel_reach_the_server_as_they_are(connect, registry, mode, action):
    await connect(server_config(protocol=mode), FixedElicitationHandler(ElicitationResponse(action=action)))
    assert await registry.get("elicit.order").call({"item": "tea"}, ctx()) == {"action": action}


@pytest.mark.parametrize("mode", MODES)
async def test_an_accept_without_a_required_field_is_refused_before_it_is_sent(connect, registry, mode):
    handler = FixedElicitationHandler(ElicitationResponse.accept({"qty": 2}))
    await connect(server_config(protocol=mode), handler)
    with pytest.raises(ToolError) as err:
        await registry.get("elicit.order").call({"item": "tea"}, ctx())
    assert "field 'name' is required" in str(err.value) and "was not sent" in str(err.value)
    assert len(handler.requests) == 1


async def test_ctx_elicit_works_in_the_legacy_protocol(connect, registry):
    await connect(server_config(protocol="legacy"), FixedElicitationHandler(ElicitationResponse.accept(FULL)))
    result = await registry.get("elicit.legacy_order").call({"item": "tea"}, ctx("elicit.legacy_order"))
    assert result["values"] == FULL and result["types"]["qty"] == "int"


async def test_a_url_request_shows_its_address_and_is_answered_accept(connect, registry):
    handler = FixedElicitationHandler(ElicitationResponse.accept())
    await connect(server_config(protocol="legacy"), handler)
    assert await registry.get("elicit.open_page").call({}, ctx("elicit.open_page")) == "accept"
    [request] = handler.requests
    assert (request.url, request.message, request.fields) == ("https://example.com/login", "Sign in to continue", [])


@pytest.mark.parametrize("mode", MODES)
async def test_a_question_during_a_run_waits_in_the_inbox_and_the_answer_comes_back_typed(connect, engine, mode):
    await connect(server_config(protocol=mode), InboxElicitationHandler(engine.interactions))
    engine.modes.set("elicit.order", "always-allow")
    await engine.create(order_sequence())
    asked = expect(engine, "interaction.created", lambda e: e.data.get("kind") == "elicitation")
    run = asyncio.create_task(engine.run("shop"))
    event = await within(asked, "the question in the inbox")
    [pending] = await engine.interactions.pending()
    assert pending.interaction_id == event.data["interaction_id"]
    assert pending.request.turn_id == event.run_id
    assert pending.request.source.tool_name == "elicit.order"
    with pytest.raises(InteractionValidationError, match="'name' is required"):
        await engine.interactions.respond(pending.interaction_id,
                                          ElicitationResponse(action="accept", values={"qty": 2}))
    await engine.interactions.respond(pending.interaction_id, ElicitationResponse(
        action="accept", values={"name": "Bo", "qty": 2}))
    record = await within(run, "the run's end")
    assert record.status == "succeeded", record.to_summary_json()
    assert record.outputs["r"]["values"]["qty"] == 2 and record.outputs["r"]["types"]["qty"] == "int"


async def test_stopping_a_run_withdraws_its_question_from_the_inbox(connect, engine):
    await connect(server_config(), InboxElicitationHandler(engine.interactions))
    engine.modes.set("elicit.order", "always-allow")
    await engine.create(order_sequence())
    asked = expect(engine, "interaction.created", lambda e: e.data.get("kind") == "elicitation")
    record = await engine.start("shop", {})
    question = (await within(asked, "the question in the inbox")).data["interaction_id"]
    ended = expect(engine, "interaction.ended", lambda e: e.data.get("interaction_id") == question)
    assert await within(engine.stop(record.run_id), "the stop") is True
    assert (await within(ended, "the question's end")).data["status"] == "cancelled"
    assert await engine.interactions.pending() == []
    assert (await engine.get_run(record.run_id)).status == "stopped"


async def test_a_server_error_fails_the_step_with_the_servers_message(connect, registry):
    await connect(server_config())
    with pytest.raises(ToolError, match="elicit.fail: .*out of stock"):
        await registry.get("elicit.fail").call({"reason": "out of stock"}, ctx("elicit.fail"))


@pytest.mark.parametrize("mode", MODES)
async def test_cancelling_the_calling_task_cancels_the_call_and_withdraws_its_question(connect, registry, mode):
    asked, withdrawn = asyncio.Event(), asyncio.Event()

    async def hold(_request):
        asked.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            withdrawn.set()
            raise

    conn = await connect(server_config(protocol=mode), ElicitationHandlerFunc(hold))
    call = asyncio.create_task(registry.get("elicit.order").call({"item": "tea"}, ctx()))
    await within(asked.wait(), "the question to be asked")
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await within(call, "the cancelled call to end")
    await within(withdrawn.wait(), "the question to be withdrawn")
    assert conn.state.status == "connected"
    assert await registry.get("elicit.peek").call({"text": "still here"}, ctx("elicit.peek")) == "still here"


async def test_a_server_that_dies_mid_call_fails_the_step_and_the_run_goes_on(connect, engine, registry):
    conn = await connect(server_config())
    doc = {"name": "fragile", "description": "", "groups": [
        {"name": "crash", "in": {}, "out": {}, "on_error": "continue",
         "tools": steps({"tool": "elicit.die", "args": {}})},
        {"name": "after", "in": {}, "out": {"v": "string"},
         "tools": steps({"tool": "echo", "args": {"value": "ran"}, "as": "v"})},
        {"name": "again", "in": {}, "out": {}, "missing": "skip", "tools": steps({"tool": "elicit.peek",
                                                                                  "args": {"text": "x"}})},
    ]}
    await engine.create(doc)
    engine.modes.set("elicit.die", "always-allow")
    started = await engine.start("fragile")
    try:
        record = await engine.runner.wait(started.run_id, timeout=T)
    except TimeoutError:  # say where it stopped (it hung once in a full run, and could not be reproduced)
        stuck = await engine.get_run(started.run_id)
        where = [(g.name, g.status, [(t.tool, t.status, t.error) for t in g.tools]) for g in stuck.groups]
        pytest.fail(f"the run did not end within {T} s: {where}; the server: {conn.state}")
    crash, after, again = record.groups
    assert crash.status == "failed"
    error = crash.tools[0].error
    assert "the MCP server 'elicit' stopped during the call" in error and "dying on purpose" in error
    assert after.status == "succeeded" and record.outputs == {"v": "ran"}
    # by the third group the server's tools had left the registry: its `missing` rule applied
    assert again.tools[0].status == "skipped"
    assert record.status == "degraded"
    state = await conn.wait_for("down", timeout=T)
    assert "closed the connection" in state.last_error and "dying on purpose" in state.last_error
    assert state.tools == () and not [n for n in registry.names() if n.startswith("elicit.")]


async def test_a_dead_server_is_restarted_and_its_tools_come_back(connect, registry):
    conn = await connect(server_config(), backoff=(0.05, 0.2))
    with pytest.raises(ToolError, match="stopped during the call"):
        await registry.get("elicit.die").call({}, ctx("elicit.die"))
    down = await conn.wait_for("down", timeout=T)
    assert down.retry_in == 0.05
    up = await conn.wait_for("connected", timeout=T)
    assert "elicit.peek" in up.tools and "elicit.peek" in registry


async def test_a_call_to_a_server_that_is_down_says_so(connect, registry):
    conn = await connect(server_config())
    tool = registry.get("elicit.peek")
    with pytest.raises(ToolError):
        await registry.get("elicit.die").call({}, ctx("elicit.die"))
    await conn.wait_for("down", timeout=T)
    with pytest.raises(ToolError, match="the MCP server 'elicit' is not connected"):
        await tool.call({"text": "x"}, ctx("elicit.peek"))


async def test_a_server_that_dies_while_its_lists_are_read_never_shows_its_tools(registry):
    """Seen in a full run: the server died while its prompts were listed (a refresh after a change),
    the failed listing read as "no prompts", and its tools came back to the registry after they had
    left it, so a later step asked to approve a tool of a dead server and the run waited forever."""
    from gui.core.asks.elicitation import NoopElicitationHandler
    from gui.mcp.client import McpConnection

    added: list[str] = []
    add = registry.add
    registry.add = lambda tool: (added.append(tool.name), add(tool))[1]  # type: ignore[method-assign]
    conn = McpConnection(server_config(args=[*ELICIT_SERVER, "--die-listing-prompts"]), registry,
                         NoopElicitationHandler(), backoff=(30.0, 30.0))
    await conn.start()
    try:
        state = await conn.wait_for("down", "connected", timeout=T)
        assert state.status == "down" and "dying while listing prompts" in (state.last_error or "")
        assert added == [] and not [n for n in registry.names() if n.startswith("elicit.")]
    finally:
        await conn.stop()


@pytest.mark.parametrize("mode", MODES)
async def test_a_server_that_answers_url_elicitation_required_gets_its_page_asked_then_the_call_again(
        connect, registry, mode):
    handler = FixedElicitationHandler(ElicitationResponse.accept())
    await connect(server_config(protocol=mode), handler)
    assert await registry.get("elicit.after_page").call({}, ctx("elicit.after_page")) == "connected"
    [request] = handler.requests
    assert (request.url, request.message, request.fields) == ("https://example.com/connect",
                                                              "Connect your account first", [])
    assert request.source == ToolSource(tool_call_id="run-1-0-0", tool_name="elicit.after_page")


async def test_a_page_the_person_does_not_open_fails_the_step_saying_which_page(connect, registry):
    handler = FixedElicitationHandler(ElicitationResponse.decline())
    await connect(server_config(), handler)
    with pytest.raises(ToolError, match=r"elicit.after_page: .*https://example.com/connect opened first"):
        await registry.get("elicit.after_page").call({}, ctx("elicit.after_page"))
    assert len(handler.requests) == 1
