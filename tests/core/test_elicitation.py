"""Elicitation handlers (SPEC §4): no-op, function adapter, composite, fixed, inbox and terminal."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterable

import pytest
from pydantic import ValidationError

from gui.core.asks.elicitation import (
    CompositeElicitationHandler,
    ElicitationHandler,
    ElicitationHandlerFunc,
    ElicitationNotHandled,
    FixedElicitationHandler,
    InboxElicitationHandler,
    NoopElicitationHandler,
    TerminalElicitationHandler,
    parse_value,
)
from gui.core.asks.form_values import value_problems
from gui.core.asks.interactions import ElicitationField, ElicitationRequest, ElicitationResponse, ToolSource
from gui.core.asks.memory import MemoryInteractionStore
from gui.core.asks.service import InteractionService, InteractionValidationError
from gui.core.events import Event, EventBus

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
    return InteractionService(store, bus)


@pytest.fixture
def created(bus: EventBus) -> asyncio.Queue[Event]:
    queue: asyncio.Queue[Event] = asyncio.Queue()
    bus.subscribe(lambda e: queue.put_nowait(e) if e.type == "interaction.created" else None)
    return queue


async def next_id(created: asyncio.Queue[Event]) -> str:
    return (await asyncio.wait_for(created.get(), TIMEOUT)).data["interaction_id"]


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
    assert await asyncio.wait_for(asking, TIMEOUT) == ElicitationResponse.accept(values)


async def test_inbox_passes_a_decline_through(service: InteractionService, created: asyncio.Queue[Event]) -> None:
    asking = asyncio.create_task(InboxElicitationHandler(service).handle_elicitation(req()))
    await service.respond(await next_id(created), ElicitationResponse(action="decline"))
    assert (await asyncio.wait_for(asking, TIMEOUT)).action == "decline"


async def test_inbox_refuses_values_that_do_not_fit_and_keeps_waiting(
    service: InteractionService, created: asyncio.Queue[Event]
) -> None:
    asking = asyncio.create_task(InboxElicitationHandler(service).handle_elicitation(req()))
    iid = await next_id(created)
    with pytest.raises(InteractionValidationError, match="field 'dry' is required"):
        await service.respond(iid, ElicitationResponse(action="accept", values={"table": "t"}))
    assert not asking.done()
    await service.respond(iid, ElicitationResponse(action="accept", values={"table": "t", "dry": False}))
    assert (await asyncio.wait_for(asking, TIMEOUT)).values == {"table": "t", "dry": False}


async def test_inbox_answers_cancel_when_nobody_answers_before_the_timeout(
    service: InteractionService, store: MemoryInteractionStore
) -> None:
    reply = await asyncio.wait_for(InboxElicitationHandler(service, timeout=0.05).handle_elicitation(req()), TIMEOUT)
    assert reply.action == "cancel"
    assert [r.status for r in await store.list()] == ["expired"]


async def test_inbox_never_waits_past_the_requests_deadline(
    service: InteractionService, store: MemoryInteractionStore
) -> None:
    handler = InboxElicitationHandler(service, timeout=3600)
    soon = int((time.time() + 0.05) * 1000)
    reply = await asyncio.wait_for(handler.handle_elicitation(req(expires_at=soon)), TIMEOUT)
    assert reply.action == "cancel"
    assert [r.status for r in await store.list()] == ["expired"]


async def test_inbox_answers_cancel_when_the_run_is_stopped(
    service: InteractionService, created: asyncio.Queue[Event]
) -> None:
    asking = asyncio.create_task(InboxElicitationHandler(service).handle_elicitation(req(turn_id="run-1")))
    await next_id(created)
    await service.cancel_run("run-1")
    assert (await asyncio.wait_for(asking, TIMEOUT)).action == "cancel"


async def test_inbox_cancels_the_interaction_when_the_calling_tool_gives_up(
    service: InteractionService, store: MemoryInteractionStore, created: asyncio.Queue[Event]
) -> None:
    asking = asyncio.create_task(InboxElicitationHandler(service).handle_elicitation(req()))
    iid = await next_id(created)
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
    assert (await store.get(iid)).status == "cancelled"


async def test_inbox_handles_concurrent_requests_as_separate_interactions(
    service: InteractionService, created: asyncio.Queue[Event]
) -> None:
    handler = InboxElicitationHandler(service)
    asking = [asyncio.create_task(handler.handle_elicitation(req(server_name=f"s{i}"))) for i in range(2)]
    for _ in asking:
        event = await asyncio.wait_for(created.get(), TIMEOUT)
        server = event.data["record"]["request"]["server_name"]
        values = {"table": server, "dry": True}
        await service.respond(
            event.data["interaction_id"], ElicitationResponse(action="accept", values=values)
        )
    replies = await asyncio.wait_for(asyncio.gather(*asking), TIMEOUT)
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
    assert (await asyncio.wait_for(asking, TIMEOUT)) == ElicitationResponse.accept()


# --- terminal ------------------------------------------------------------------------------


class Script:
    """Plays typed lines to the prompts; end of input when it runs out."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = list(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)


async def ask(lines: list[str], request: ElicitationRequest | None = None) -> tuple[ElicitationResponse, list[str]]:
    output: list[str] = []
    handler = TerminalElicitationHandler(input_fn=Script(lines), output=output.append)
    return await asyncio.wait_for(handler.handle_elicitation(request or req()), TIMEOUT), output


async def test_terminal_converts_each_answer_to_its_field_type() -> None:
    reply, output = await ask(["users", "2.5", "yes"])
    assert reply == ElicitationResponse.accept({"table": "users", "limit": 2.5, "dry": True})
    assert output[0] == "db asks: Which table?"


async def test_terminal_takes_the_default_on_empty_input_and_skips_empty_optional_fields() -> None:
    fields = [*FIELDS, ElicitationField(name="note", type="string")]
    reply, _ = await ask(["users", "", "n", ""], req(fields=fields))
    assert reply.values == {"table": "users", "limit": 10, "dry": False}


async def test_terminal_converts_a_default_sent_as_text() -> None:
    reply, _ = await ask([""], req(fields=[ElicitationField(name="limit", type="number", default="7")]))
    assert reply.values == {"limit": 7}


async def test_terminal_asks_again_for_a_required_field_left_empty() -> None:
    reply, output = await ask(["", "users", "", "no"])
    assert reply.values["table"] == "users"
    assert "  this field is required" in output


async def test_terminal_asks_again_when_the_text_does_not_fit_the_type() -> None:
    reply, output = await ask(["users", "ten", "10", "maybe", "y"])
    assert reply.values == {"table": "users", "limit": 10, "dry": True}
    assert "  'ten' is not a number" in output and "  'maybe' is not yes or no" in output


@pytest.mark.parametrize(("typed", "action"), [("!decline", "decline"), ("!cancel", "cancel")])
async def test_terminal_can_decline_or_cancel_at_any_prompt(typed: str, action: str) -> None:
    reply, _ = await ask(["users", typed])
    assert reply == ElicitationResponse(action=action)


async def test_terminal_end_of_input_cancels() -> None:
    assert (await ask(["users"]))[0].action == "cancel"


@pytest.mark.parametrize(("typed", "action"), [("y", "accept"), ("n", "decline")])
async def test_terminal_url_mode_shows_the_address_and_asks_to_continue(typed: str, action: str) -> None:
    reply, output = await ask(["what", typed], req(fields=[], url="https://example.org/login"))
    assert reply.action == action and reply.values == {}
    assert "Open this address: https://example.org/login" in output


async def test_terminal_prompts_never_interleave() -> None:
    script = Script(["a", "", "y", "b", "", "n"])
    handler = TerminalElicitationHandler(input_fn=script, output=lambda _: None)
    replies = await asyncio.wait_for(
        asyncio.gather(handler.handle_elicitation(req()), handler.handle_elicitation(req())), TIMEOUT
    )
    assert sorted((r.values["table"], r.values["dry"]) for r in replies) == [("a", True), ("b", False)]


# --- values --------------------------------------------------------------------------------


def test_parse_value_checks_enum_membership() -> None:
    field = ElicitationField(name="mode", type="string", enum=["fast", "safe"])
    assert parse_value(field, " safe ") == "safe"
    with pytest.raises(ValueError, match="'slow' is not one of: fast, safe"):
        parse_value(field, "slow")


def test_parse_value_refuses_infinite_numbers() -> None:
    with pytest.raises(ValueError, match="not a finite number"):
        parse_value(ElicitationField(name="n", type="number"), "inf")


def test_value_problems_lists_every_problem_not_just_the_first() -> None:
    problems = value_problems(FIELDS, {"limit": "x", "dry": 1, "other": 2})
    assert problems == [
        "there is no field 'other' (fields: table, limit, dry)",
        "field 'table' is required",
        "field 'limit': \"x\" is not a number",
        "field 'dry': 1 is not true or false",
    ]


def test_a_very_large_whole_number_is_a_number_not_a_crash() -> None:
    field = ElicitationField(name="n", type="number")
    huge = 10**400
    assert value_problems([field], {"n": huge}) == []
    assert parse_value(field, str(huge)) == huge
