"""Elicitation handlers (SPEC §4): no-op, function adapter, composite, fixed and inbox (the terminal's:
`tests/cli/test_cli_form_prompt.py`)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, ClassVar

import pytest
from pydantic import ValidationError
from support.builders import group, seq, tools
from support.fakes import NoArgs
from support.waiting import wait_until, within

from gui.core.asks import FORM_TIMEOUT, InteractionService, InteractionValidationError
from gui.core.asks.elicitation import (
    CompositeElicitationHandler,
    ElicitationHandler,
    ElicitationHandlerFunc,
    ElicitationNotHandled,
    FixedElicitationHandler,
    InboxElicitationHandler,
    NoopElicitationHandler,
)
from gui.core.asks.interactions import ElicitationField, ElicitationRequest, ElicitationResponse, ToolSource
from gui.core.asks.responses import value_problems
from gui.core.events import Event, EventBus
from gui.core.sequences import Asking
from gui.core.tools.registry import ModelTool, Registry, ToolContext
from gui.memory import MemoryApprovalModes, MemoryInteractionStore, MemoryRunStore, MemoryStores
from gui.runtime import compose_engine
from gui.tools import builtin_tools

TIMEOUT = 2.0

FIELDS = [
    ElicitationField(name="table", type="string", title="Table", required=True),
    ElicitationField(name="limit", type="number", default=10),
    ElicitationField(name="dry", type="boolean", required=True),
]


def req(**overrides: object) -> ElicitationRequest:
    data: dict[str, object] = {"server_name": "db", "message": "Which table?", "fields": FIELDS}
    return ElicitationRequest.model_validate(data | overrides)


ACCEPT = ElicitationResponse.accept({"table": "users"})


# --- the small handlers --------------------------------------------------------------------


async def test_noop_handler_answers_cancel_never_decline() -> None:
    assert await NoopElicitationHandler().handle_elicitation(req()) == ElicitationResponse(action="cancel")


def test_every_handler_satisfies_the_protocol() -> None:
    handlers = [NoopElicitationHandler(), FixedElicitationHandler(ACCEPT), CompositeElicitationHandler()]
    assert all(isinstance(h, ElicitationHandler) for h in handlers)


def answers_checked(handler: ElicitationHandler) -> bool:
    return getattr(handler, "answers_checked", False) is True


def test_only_the_inbox_handlers_say_their_answers_were_checked(service: InteractionService) -> None:
    assert answers_checked(InboxElicitationHandler(service))
    assert not any(answers_checked(h) for h in (FixedElicitationHandler(ACCEPT), CompositeElicitationHandler(),
                                                 ElicitationHandlerFunc(lambda _req: ACCEPT)))


def test_only_accept_carries_values() -> None:
    with pytest.raises(ValidationError, match="a decline carries no values"):
        ElicitationResponse(action="decline", values={"table": "x"})


async def test_function_adapter_wraps_a_sync_function() -> None:
    handler = ElicitationHandlerFunc(lambda r: ElicitationResponse.accept({"server": r.server_name}))
    assert (await handler.handle_elicitation(req())).values == {"server": "db"}


async def test_function_adapter_wraps_an_async_function() -> None:
    async def answer(r: ElicitationRequest) -> ElicitationResponse:
        return ElicitationResponse.decline()

    assert (await ElicitationHandlerFunc(answer).handle_elicitation(req())).action == "decline"


async def test_function_adapter_can_run_a_blocking_function_in_a_thread() -> None:
    threads: list[int] = []

    def blocking(r: ElicitationRequest) -> ElicitationResponse:
        threads.append(threading.get_ident())
        return ACCEPT

    assert await ElicitationHandlerFunc(blocking, in_thread=True).handle_elicitation(req()) == ACCEPT
    assert threads != [threading.get_ident()]


async def test_function_returning_none_does_not_handle_the_request() -> None:
    with pytest.raises(ElicitationNotHandled):
        await ElicitationHandlerFunc(lambda r: None).handle_elicitation(req())


async def test_fixed_handler_answers_the_same_and_keeps_the_requests() -> None:
    handler = FixedElicitationHandler(ACCEPT)
    assert await handler.handle_elicitation(req()) == ACCEPT
    assert await handler.handle_elicitation(req(server_name="fs")) == ACCEPT
    assert [r.server_name for r in handler.requests] == ["db", "fs"]


# --- composite -----------------------------------------------------------------------------


class Refusing:
    def __init__(self) -> None:
        self.calls = 0

    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse:
        self.calls += 1
        raise ElicitationNotHandled


async def test_composite_first_handler_that_answers_wins_and_later_ones_are_not_asked() -> None:
    first, second = FixedElicitationHandler(ACCEPT), FixedElicitationHandler(ElicitationResponse.decline())
    assert await CompositeElicitationHandler(first, second).handle_elicitation(req()) == ACCEPT
    assert len(first.requests) == 1 and second.requests == []


async def test_composite_passes_over_handlers_that_return_none_or_raise_not_handled() -> None:
    refusing = Refusing()
    last = FixedElicitationHandler(ElicitationResponse.decline())
    composite = CompositeElicitationHandler(ElicitationHandlerFunc(lambda r: None), refusing, last)
    assert (await composite.handle_elicitation(req())).action == "decline"
    assert refusing.calls == 1 and len(last.requests) == 1


@pytest.mark.parametrize("handlers", [(), (Refusing(), ElicitationHandlerFunc(lambda r: None))])
async def test_composite_answers_cancel_when_no_handler_answers(handlers: tuple[ElicitationHandler, ...]) -> None:
    assert (await CompositeElicitationHandler(*handlers).handle_elicitation(req())).action == "cancel"


async def test_composite_handles_concurrent_requests_independently() -> None:
    handler = CompositeElicitationHandler(
        ElicitationHandlerFunc(lambda r: ElicitationResponse.accept({"server": r.server_name}))
    )
    replies = await asyncio.gather(*(handler.handle_elicitation(req(server_name=f"s{i}")) for i in range(5)))
    assert [r.values["server"] for r in replies] == [f"s{i}" for i in range(5)]


# --- inbox ---------------------------------------------------------------------------------


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


@pytest.fixture
def store() -> MemoryInteractionStore:
    return MemoryInteractionStore()


@pytest.fixture
def service(store: MemoryInteractionStore, bus: EventBus) -> InteractionService:
    return InteractionService(store, bus, modes=MemoryApprovalModes())


@pytest.fixture
def created(bus: EventBus) -> asyncio.Queue[Event]:
    queue: asyncio.Queue[Event] = asyncio.Queue()
    bus.subscribe(lambda e: queue.put_nowait(e) if e.type == "interaction.created" else None)
    return queue


async def next_id(created: asyncio.Queue[Event]) -> str:
    return (await within(created.get(), "the next form request")).data["interaction_id"]


async def test_inbox_turns_the_request_into_a_stored_interaction_and_returns_the_persons_values(
    service: InteractionService, store: MemoryInteractionStore, created: asyncio.Queue[Event]
) -> None:
    handler = InboxElicitationHandler(service)
    asking = asyncio.create_task(
        handler.handle_elicitation(req(turn_id="run-1", source=ToolSource(tool_call_id="c1", tool_name="db_query")))
    )
    iid = await next_id(created)
    stored = (await store.get(iid)).request
    assert stored.kind == "elicitation" and stored.server_name == "db" and stored.fields == FIELDS
    assert stored.turn_id == "run-1" and stored.source == ToolSource(tool_call_id="c1", tool_name="db_query")
    assert stored.expires_at is not None
    values = {"table": "users", "limit": 5, "dry": True}
    await service.respond(iid, ElicitationResponse(action="accept", values=values))
    assert await within(asking, "the form's reply") == ElicitationResponse.accept(values)


async def test_inbox_passes_a_decline_through(service: InteractionService, created: asyncio.Queue[Event]) -> None:
    asking = asyncio.create_task(InboxElicitationHandler(service).handle_elicitation(req()))
    await service.respond(await next_id(created), ElicitationResponse(action="decline"))
    assert (await within(asking, "the form's reply")).action == "decline"


async def test_inbox_refuses_values_that_do_not_fit_and_keeps_waiting(
    service: InteractionService, created: asyncio.Queue[Event]
) -> None:
    asking = asyncio.create_task(InboxElicitationHandler(service).handle_elicitation(req()))
    iid = await next_id(created)
    with pytest.raises(InteractionValidationError, match="field 'dry' is required"):
        await service.respond(iid, ElicitationResponse(action="accept", values={"table": "t"}))
    assert not asking.done()
    await service.respond(iid, ElicitationResponse(action="accept", values={"table": "t", "dry": False}))
    assert (await within(asking, "the form's reply")).values == {"table": "t", "dry": False}


async def test_inbox_answers_cancel_when_nobody_answers_before_the_timeout(
    service: InteractionService, store: MemoryInteractionStore
) -> None:
    asking = InboxElicitationHandler(service, timeout=0.05).handle_elicitation(req())
    reply = await within(asking, "the form's reply after its timeout")
    assert reply.action == "cancel"
    assert [r.status for r in await store.list()] == ["expired"]


async def test_inbox_never_waits_past_the_requests_deadline(
    service: InteractionService, store: MemoryInteractionStore
) -> None:
    handler = InboxElicitationHandler(service, timeout=3600)
    soon = int((time.time() + 0.05) * 1000)
    reply = await within(handler.handle_elicitation(req(expires_at=soon)), "the form's reply at its request's deadline")
    assert reply.action == "cancel"
    assert [r.status for r in await store.list()] == ["expired"]


async def test_inbox_answers_cancel_when_the_run_is_stopped(
    service: InteractionService, created: asyncio.Queue[Event]
) -> None:
    asking = asyncio.create_task(InboxElicitationHandler(service).handle_elicitation(req(turn_id="run-1")))
    await next_id(created)
    await service.cancel_run("run-1")
    assert (await within(asking, "the cancelled form's reply")).action == "cancel"


async def test_inbox_cancels_the_interaction_when_the_calling_tool_gives_up(
    service: InteractionService, store: MemoryInteractionStore, created: asyncio.Queue[Event]
) -> None:
    asking = asyncio.create_task(InboxElicitationHandler(service).handle_elicitation(req()))
    iid = await next_id(created)
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await within(asking, "the cancelled form to end")
    assert (await store.get(iid)).status == "cancelled"


async def test_inbox_handles_concurrent_requests_as_separate_interactions(
    service: InteractionService, created: asyncio.Queue[Event]
) -> None:
    handler = InboxElicitationHandler(service)
    asking = [asyncio.create_task(handler.handle_elicitation(req(server_name=f"s{i}"))) for i in range(2)]
    for _ in asking:
        event = await within(created.get(), "the next form request")
        server = event.data["record"]["request"]["server_name"]
        values = {"table": server, "dry": True}
        await service.respond(
            event.data["interaction_id"], ElicitationResponse(action="accept", values=values)
        )
    replies = await within(asyncio.gather(*asking), "both forms' replies")
    assert [r.values["table"] for r in replies] == ["s0", "s1"]


async def test_inbox_url_mode_request_can_be_accepted_without_values(
    service: InteractionService, store: MemoryInteractionStore, created: asyncio.Queue[Event]
) -> None:
    asking = asyncio.create_task(
        InboxElicitationHandler(service).handle_elicitation(req(fields=[], url="https://example.org/login"))
    )
    iid = await next_id(created)
    assert (await store.get(iid)).request.url == "https://example.org/login"
    await service.respond(iid, ElicitationResponse(action="accept"))
    assert (await within(asking, "the form's reply")) == ElicitationResponse.accept()


# --- the port's way: ask_form, and a tool call's port ------------------------------------


async def test_the_port_asks_a_form_whose_response_is_the_reply_and_cancel_once_it_expired(
    service: InteractionService, store: MemoryInteractionStore, created: asyncio.Queue[Event]
) -> None:
    asked = await service.ask_form(req(), deadline=time.time() + 3600)
    assert asked.interaction_id == await next_id(created)
    await service.respond(asked.interaction_id, ElicitationResponse.accept({"table": "t", "dry": True}))
    response = await within(asked.response(), "the form's response")
    assert response == ElicitationResponse.accept({"table": "t", "dry": True})
    late = await service.ask_form(req(), deadline=time.time() + 0.05)
    assert await within(late.response(), "the expired form's response") == ElicitationResponse.cancel()
    assert (await store.get(late.interaction_id)).status == "expired"


class FormAsker(ModelTool):
    """A tool whose (MCP) server asks a form mid-call, through the handler its context gives."""

    name = "form_asker"
    description = "asks a form"
    Args: ClassVar = NoArgs

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        assert ctx.elicitation is not None
        assert answers_checked(ctx.elicitation)  # a call's forms go to the inbox: checked as the person answers
        source = ToolSource(tool_call_id=ctx.tool_call_id, tool_name=ctx.tool_name)
        reply = await ctx.elicitation.handle_elicitation(req(turn_id=ctx.run_id, source=source))
        return reply.model_dump()


async def test_a_form_asked_during_a_run_shows_its_tool_waiting_and_ends_by_its_groups_earlier_deadline() -> None:
    stores = MemoryStores(runs=MemoryRunStore(), interactions=MemoryInteractionStore())
    engine = compose_engine(Registry([*builtin_tools(), FormAsker()]), stores)
    await engine.create(seq(group("g", out={"r": "object"}, timeout="2m",
                                  tools=tools({"tool": "form_asker", "args": {}, "as": "r"}))))
    run = await engine.start("s", {})
    await wait_until(lambda: bool(engine.interactions.waiting.records()))
    [pending] = engine.interactions.waiting.records()
    tool = engine.runner.snapshot(run.run_id).groups[0].tools[0]
    assert (tool.status, tool.interaction_id) == ("waiting", pending.interaction_id)
    assert pending.request.expires_at is not None
    # the group's two minutes, not the form's own ten (`FORM_TIMEOUT`)
    assert time.time() + 60 < pending.request.expires_at / 1000 <= time.time() + 120 < time.time() + FORM_TIMEOUT
    await engine.respond(pending.interaction_id, ElicitationResponse.accept({"table": "t", "dry": True}))
    record = await engine.runner.wait(run.run_id, TIMEOUT)
    assert record.status == "succeeded", record.to_summary_json()
    assert record.outputs["r"] == {"kind": "elicitation", "action": "accept", "values": {"table": "t", "dry": True}}
    assert record.groups[0].tools[0].waits[0][1] is not None  # resumed once answered



async def test_a_form_asked_during_a_run_is_answered_by_its_steps_answerers_over_its_groups() -> None:
    stores = MemoryStores(runs=MemoryRunStore(), interactions=MemoryInteractionStore())
    engine = compose_engine(Registry([*builtin_tools(), FormAsker()]), stores)
    step = {"tool": "form_asker", "args": {}, "as": "r", "required": 1, "self_approve": True}
    await engine.create(seq(group("g", out={"r": "object"}, approvers=["role:oncall"], required=2,
                                  remind_after="30m", tools=tools(step))))
    run = await engine.start("s", {})
    await wait_until(lambda: bool(engine.interactions.waiting.records()))
    [pending] = engine.interactions.waiting.records()
    # the step's own keys over the group's, as for its approval (`gui.core.sequences.asking`)
    assert pending.request.asking == Asking(approvers=("role:oncall",), required=1, self_approve=True,
                                            remind_after="30m")
    assert pending.request.started_by == engine.runner.snapshot(run.run_id).started_by
    await engine.respond(pending.interaction_id, ElicitationResponse.decline())
    record = await engine.runner.wait(run.run_id, TIMEOUT)
    assert record.outputs["r"] == {"kind": "elicitation", "action": "decline", "values": {}}


# --- values --------------------------------------------------------------------------------


def test_value_problems_lists_every_problem_not_just_the_first() -> None:
    problems = value_problems(FIELDS, {"limit": "x", "dry": 1, "other": 2})
    assert problems == [
        "there is no field 'other' (fields: table, limit, dry)",
        "field 'table' is required",
        "field 'limit': \"x\" is not a number",
        "field 'dry': 1 is not true or false",
    ]
