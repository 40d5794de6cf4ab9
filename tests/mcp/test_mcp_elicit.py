"""Turning a server's form into the core's request, and the person's answer back into typed content."""

from __future__ import annotations

import asyncio
import time

import pytest
from mcp_types import INVALID_PARAMS, ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult, ErrorData
from support.waiting import within

from gui.core.asks.elicitation import ElicitationHandlerFunc, FixedElicitationHandler
from gui.core.asks.interactions import ElicitationResponse, ToolSource
from gui.core.tools.registry import ToolContext
from gui.mcp.elicit import ask_handler, to_request, to_result

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "Who", "minLength": 2},
        "qty": {"type": "integer", "default": 1, "minimum": 1, "maximum": 10},
        "price": {"type": "number"},
        "gift": {"type": "boolean", "default": False},
        "size": {"type": "string", "enum": ["S", "M", "L"], "default": "M"},
        "color": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]},
    },
    "required": ["name", "qty"],
}


def form(schema: dict = SCHEMA) -> ElicitRequestFormParams:
    return ElicitRequestFormParams(message="Order **details**", requested_schema=schema)


def test_a_form_becomes_fields_with_types_defaults_choices_and_the_calling_step():
    call = ToolContext(run_id="r1", tool_call_id="r1-0-0", tool_name="shop.order", deadline=123.0,
                       sequence_name="gifts", group_name="order-it")
    request, unsupported = to_request("shop", form(), call)
    assert (request.server_name, request.message, request.turn_id, request.source,
            request.expires_at) == ("shop", "Order **details**", "r1", ToolSource(tool_call_id="r1-0-0",
                                                                                  tool_name="shop.order"), 123000)
    assert (request.sequence_name, request.group_name) == ("gifts", "order-it")  # the inbox's "gifts › order-it"
    fields = {f.name: f for f in request.fields}
    assert [f.name for f in request.fields] == ["name", "qty", "price", "gift", "size", "color"]
    assert (fields["name"].type, fields["name"].required, fields["name"].title) == ("string", True, "Name")
    assert (fields["qty"].type, fields["qty"].required, fields["qty"].default) == ("number", True, 1)
    assert "whole number" in fields["qty"].description and "at most 10" in fields["qty"].description
    assert (fields["gift"].type, fields["gift"].default) == ("boolean", False)
    assert (fields["size"].enum, fields["size"].default) == (["S", "M", "L"], "M")
    assert fields["color"].enum == ["r", "g"] and "r = Red" in fields["color"].description
    assert {f.name for f in request.fields if f.integer} == {"qty"} and not unsupported


def test_an_accepted_answer_goes_back_typed_as_the_server_asked():
    request, _ = to_request("shop", form())
    result = to_result(request, ElicitationResponse.accept({"name": "Ann", "qty": 3.0, "price": 2,
                                                                "gift": True, "size": "L", "color": None}))
    assert isinstance(result, ElicitResult)
    assert result.action == "accept"
    assert result.content == {"name": "Ann", "qty": 3, "price": 2, "gift": True, "size": "L"}
    assert type(result.content["qty"]) is int


def test_a_form_answered_with_some_fields_gets_the_schemas_defaults_for_the_others():
    request, _ = to_request("shop", form())
    result = to_result(request, ElicitationResponse.accept({"name": "Ann"}))
    assert isinstance(result, ElicitResult)
    assert result.content == {"name": "Ann", "qty": 1, "gift": False, "size": "M"}
    misfit, _ = to_request("shop", form({"type": "object", "properties": {
        "n": {"type": "integer", "default": 99, "maximum": 5}}, "required": ["n"]}))
    refused = to_result(misfit, ElicitationResponse.accept({}))
    assert isinstance(refused, ErrorData) and "field 'n' is required" in refused.message


def test_an_incomplete_or_wrong_accept_is_refused_instead_of_sent():
    request, _ = to_request("shop", form())
    cases = {
        "field 'name' is required": {"qty": 2},
        "not a whole number": {"name": "Ann", "qty": 2.5},
        "more than 10": {"name": "Ann", "qty": 11},
        "shorter than 2": {"name": "A", "qty": 1},
        "not one of": {"name": "Ann", "qty": 1, "size": "XL"},
        "no field 'extra'": {"name": "Ann", "qty": 1, "extra": 1},
    }
    for expected, values in cases.items():
        result = to_result(request, ElicitationResponse.accept(values))
        assert isinstance(result, ErrorData), values
        assert result.code == INVALID_PARAMS
        assert expected in result.message and "was not sent" in result.message


def test_decline_and_cancel_carry_no_content():
    request, _ = to_request("shop", form())
    assert to_result(request, ElicitationResponse.decline()) == ElicitResult(action="decline")
    assert to_result(request, ElicitationResponse.cancel()) == ElicitResult(action="cancel")


def test_a_url_request_shows_the_address_and_an_accept_carries_no_content():
    params = ElicitRequestURLParams(message="Sign in", url="https://example.com/x", elicitation_id="e1")
    request, _ = to_request("auth", params)
    assert request.url == "https://example.com/x" and request.fields == []
    assert to_result(request, ElicitationResponse.accept()) == ElicitResult(action="accept")


def test_a_required_field_no_form_can_show_is_marked_unsupported_and_an_optional_one_is_left_out():
    schema = {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "object"}},  # a list of objects: no form here shows it
        "note": {"type": "string"}}, "required": ["tags"]}
    request, unsupported = to_request("x", form(schema))
    assert [f.name for f in request.fields] == ["note"]
    assert unsupported == ["tags"]
    schema["required"] = []
    _, unsupported = to_request("x", form(schema))
    assert unsupported == []


async def test_a_handler_that_fails_or_outlives_its_call_or_deadline_gives_cancel():
    request, _ = to_request("x", form())

    def broken(_req):
        raise RuntimeError("boom")

    assert await ask_handler(ElicitationHandlerFunc(broken), request) == ElicitationResponse.cancel()

    never = asyncio.Event()

    async def wait_forever(_req):
        await never.wait()

    gone = asyncio.Event()
    gone.set()
    assert await ask_handler(ElicitationHandlerFunc(wait_forever), request, gone) == ElicitationResponse.cancel()
    late = request.model_copy(update={"expires_at": int((time.time() - 1) * 1000)})
    assert await ask_handler(ElicitationHandlerFunc(wait_forever), late) == ElicitationResponse.cancel()
    fixed = FixedElicitationHandler(ElicitationResponse.accept({"name": "Ann", "qty": 1}))
    assert (await ask_handler(fixed, request)).values == {"name": "Ann", "qty": 1}


def test_an_array_of_choices_is_a_multi_select_with_its_bounds_and_goes_back_as_a_list():
    schema = {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "minItems": 1, "maxItems": 2}},
        "required": ["tags"]}
    request, unsupported = to_request("x", form(schema))
    [tags] = request.fields
    assert tags.multiple and tags.enum == ["a", "b", "c"] and (tags.min_items, tags.max_items) == (1, 2)
    assert unsupported == []
    assert to_result(request, ElicitationResponse.accept({"tags": ["a", "c"]})) == ElicitResult(
        action="accept", content={"tags": ["a", "c"]})
    too_many = to_result(request, ElicitationResponse.accept({"tags": ["a", "b", "c"]}))
    assert "choose at most 2" in too_many.message


def test_bounds_lengths_and_formats_are_fields_of_the_form():
    schema = {"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 1, "maximum": 100},
        "mail": {"type": "string", "format": "email", "maxLength": 40}}}
    request, _ = to_request("x", form(schema))
    n, mail = request.fields
    assert (n.integer, n.minimum, n.maximum) == (True, 1, 100)
    assert (mail.format, mail.max_length) == ("email", 40)


async def test_an_accept_is_checked_once_by_the_inbox_not_again_on_its_way_to_the_server(monkeypatch):
    """The inbox refuses a misfit when the person answers; the answer it hands back is only typed here.
    Another handler's accept is checked here, once."""
    from gui.core.asks import InboxElicitationHandler, InteractionService, InteractionValidationError
    from gui.core.events import EventBus
    from gui.mcp import elicit
    from gui.memory import MemoryApprovalModes, MemoryInteractionStore

    checks: list[object] = []
    check = elicit.value_problems
    monkeypatch.setattr(elicit, "value_problems", lambda *a: checks.append(a) or check(*a))
    bus = EventBus()
    service = InteractionService(MemoryInteractionStore(), bus, modes=MemoryApprovalModes())
    asked: asyncio.Queue[str] = asyncio.Queue()
    bus.subscribe(lambda e: asked.put_nowait(e.data["interaction_id"]) if e.type == "interaction.created" else None)
    replying = asyncio.create_task(elicit.answer_form("shop", form(), None, InboxElicitationHandler(service)))
    iid = await within(asked.get(), "the form's request")
    with pytest.raises(InteractionValidationError, match="field 'name' is required"):
        await service.respond(iid, ElicitationResponse.accept({"qty": 2}))
    await service.respond(iid, ElicitationResponse.accept({"name": "Ann", "qty": 2.0}))
    result = await within(replying, "the form's reply")
    assert result == ElicitResult(action="accept", content={"name": "Ann", "qty": 2, "gift": False, "size": "M"})
    assert checks == []
    fixed = FixedElicitationHandler(ElicitationResponse.accept({"qty": 2}))
    refused = await elicit.answer_form("shop", form(), None, fixed)
    assert isinstance(refused, ErrorData) and "field 'name' is required" in refused.message
    assert len(checks) == 1
