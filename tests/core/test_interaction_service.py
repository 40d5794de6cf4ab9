"""InteractionService: the rules of SPEC §3 (persist first, validate, one winner, expiry, cancel)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from support.interactions import (
    APPROVE,
    GOOD_ANSWERS,
    GateStore,
    LoggingStore,
    elicitation,
    now_ms,
    question,
    shell,
    tool_approval,
)
from support.waiting import within

from gui.core.asks import (
    InteractionError,
    InteractionNotFoundError,
    InteractionNotPendingError,
    InteractionService,
    InteractionValidationError,
)
from gui.core.asks.interactions import (
    Answer,
    ApprovalResponse,
    ElicitationResponse,
    ExpiredResult,
    InteractionRecord,
    QuestionResponse,
    ResolvedResult,
)
from gui.core.events import Event, EventBus, InteractionEnded
from gui.memory import MemoryApprovalModes, MemoryInteractionStore

# --- persist before notify -------------------------------------------------------------------


async def test_request_is_stored_before_the_created_event_is_published(bus: EventBus) -> None:
    log: list[str] = []
    bus.subscribe(lambda e: log.append(e.type))
    await InteractionService(LoggingStore(log), bus, modes=MemoryApprovalModes()).request(shell())
    assert log == ["saved pending", "interaction.created"]


async def test_created_event_carries_run_id_kind_and_the_stored_record(
    service: InteractionService, events: list[Event]
) -> None:
    await service.request(question(run="run-7"))
    (event,) = events
    assert event.type == "interaction.created" and event.run_id == "run-7"
    assert event.data["interaction_id"] == "q1" and event.data["kind"] == "question"
    assert InteractionRecord.model_validate(event.data["record"]).status == "pending"


async def test_answer_is_stored_before_the_ended_event_is_published(bus: EventBus) -> None:
    log: list[str] = []
    bus.subscribe(lambda e: log.append(e.type))
    service = InteractionService(LoggingStore(log), bus, modes=MemoryApprovalModes())
    await service.request(shell())
    await service.respond("a1", APPROVE)
    assert log == ["saved pending", "interaction.created", "saved resolved", "interaction.ended"]


async def test_waiter_does_not_resume_until_the_answer_is_stored() -> None:
    store = GateStore()
    service = InteractionService(store, modes=MemoryApprovalModes())
    handle = await service.request(shell())
    waiter = asyncio.create_task(handle.result())
    responder = asyncio.create_task(service.respond("a1", APPROVE))
    await within(store.entered.wait(), "the answer to start saving")
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(asyncio.shield(waiter), 0.05)
    assert (await store.get("a1")).status == "pending"
    store.gate.set()
    result = await within(waiter, "a1's outcome")
    assert result == ResolvedResult(interaction_id="a1", response=APPROVE)
    await within(responder, "the answer to be stored")


async def test_store_already_holds_the_answer_when_the_waiter_resumes(
    service: InteractionService, store: MemoryInteractionStore
) -> None:
    handle = await service.request(shell())

    async def wait_then_look() -> str:
        await handle.result()
        return (await store.get("a1")).status

    waiter = asyncio.create_task(wait_then_look())
    await service.respond("a1", APPROVE)
    assert await within(waiter, "the waiter to look at the store") == "resolved"


async def test_a_waiter_that_gives_up_does_not_cancel_the_interaction(service: InteractionService) -> None:
    handle = await service.request(shell())
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(handle.result(), 0.01)
    await service.respond("a1", APPROVE)
    assert (await within(handle.result(), "a1's outcome")).status == "resolved"


# --- refusals ------------------------------------------------------------------------------


async def test_second_answer_is_refused_saying_when_the_first_was_given(service: InteractionService) -> None:
    await service.request(shell())
    await service.respond("a1", APPROVE)
    with pytest.raises(InteractionNotPendingError, match=r"interaction a1 was already answered at \d\d:\d\d:\d\d"):
        await service.respond("a1", ApprovalResponse(decision="denied"))


async def test_answer_to_an_unknown_interaction_is_not_found(service: InteractionService) -> None:
    with pytest.raises(InteractionNotFoundError, match="there is no interaction nope") as info:
        await service.respond("nope", APPROVE)
    assert isinstance(info.value, InteractionNotPendingError) and isinstance(info.value, InteractionError)
    assert info.value.code == "not-found"


async def test_answer_to_an_expired_interaction_is_refused_as_expired(service: InteractionService) -> None:
    handle = await service.request(shell(expires_at=now_ms() + 20))
    await within(handle.result(), "a1 to expire")
    with pytest.raises(InteractionNotPendingError, match="interaction a1 has expired"):
        await service.respond("a1", APPROVE)


async def test_answer_after_expires_at_is_refused_even_before_the_timer_fires(
    store: MemoryInteractionStore,
) -> None:
    clock = [1000.0]
    service = InteractionService(store, clock=lambda: clock[0], modes=MemoryApprovalModes())
    handle = await service.request(shell(expires_at=1_000_000 + 60_000))
    clock[0] += 61
    with pytest.raises(InteractionNotPendingError, match="has expired"):
        await service.respond("a1", APPROVE)
    assert await within(handle.result(), "a1's outcome") == ExpiredResult(interaction_id="a1")
    assert (await store.get("a1")).status == "expired"


async def test_answer_to_a_cancelled_interaction_is_refused_naming_the_reason(service: InteractionService) -> None:
    await service.request(shell())
    await service.cancel_run("run-1")
    with pytest.raises(InteractionNotPendingError, match=r"interaction a1 was cancelled \(turn_stopped\)"):
        await service.respond("a1", APPROVE)


async def test_of_two_concurrent_answers_exactly_one_wins() -> None:
    store = GateStore()
    service = InteractionService(store, modes=MemoryApprovalModes())
    handle = await service.request(shell())
    answers = asyncio.gather(
        service.respond("a1", APPROVE),
        service.respond("a1", ApprovalResponse(decision="denied", reason="no")),
        return_exceptions=True,
    )
    await within(store.entered.wait(), "an answer to start saving")
    store.gate.set()
    outcomes = await within(answers, "both answers")
    winners = [o for o in outcomes if isinstance(o, ResolvedResult)]
    losers = [o for o in outcomes if isinstance(o, InteractionNotPendingError)]
    assert len(winners) == 1 and len(losers) == 1
    assert await within(handle.result(), "a1's outcome") == winners[0]
    assert (await store.get("a1")).result == winners[0]


async def test_duplicate_request_id_is_refused(service: InteractionService) -> None:
    await service.request(shell())
    with pytest.raises(InteractionError, match="already exists"):
        await service.request(shell())


# --- validation ----------------------------------------------------------------------------


def answers(*pairs: tuple[str, str | list[str]]) -> QuestionResponse:
    return QuestionResponse(answers=[Answer(question_id=q, value=v) for q, v in pairs])


def values(**kwargs: object) -> ElicitationResponse:
    return ElicitationResponse(action="accept", values=kwargs)


OK_REST = (("note", "x"), ("tags", ["a"]))

INVALID = [
    ("approval-to-question", question(), APPROVE, "interaction q1 is a question: an approval response does not fit"),
    ("question-to-approval", shell(), GOOD_ANSWERS, "interaction a1 is an approval: a question response"),
    ("always-allow-on-denial", shell(), ApprovalResponse(decision="denied", always_allow=True), "'always allow'"),
    ("unknown-question", question(), answers(("env", "dev"), *OK_REST, ("zzz", "x")), "question 'zzz': there is no"),
    ("answered-twice", question(), answers(("env", "dev"), ("env", "prod"), *OK_REST), "answered more than once"),
    ("unanswered", question(), answers(("env", "dev"), ("note", "x")), "question 'tags' has no answer"),
    ("text-as-list", question(), answers(("env", "dev"), ("note", ["x"]), ("tags", [])), "'note' must be text"),
    (
        "single-not-an-option",
        question(),
        answers(("env", "prod2"), *OK_REST),
        "answer to question 'env': 'prod2' is not one of the options: dev, prod",
    ),
    ("single-as-list", question(), answers(("env", ["dev"]), *OK_REST), "'env' must be one option"),
    ("multi-as-text", question(), answers(("env", "dev"), ("note", "x"), ("tags", "a")), "must be a list"),
    ("multi-bad-option", question(), answers(("env", "dev"), ("note", "x"), ("tags", ["c"])), "'c' is not one of"),
    ("multi-repeated", question(), answers(("env", "dev"), ("note", "x"), ("tags", ["a", "a"])), "chosen more"),
    ("required-missing", elicitation(), values(table="t"), "field 'limit' is required"),
    ("string-typed", elicitation(), values(table=3, limit=1), "field 'table': 3 is not text"),
    ("number-typed", elicitation(), values(table="t", limit="10"), "field 'limit': \"10\" is not a number"),
    ("bool-is-no-number", elicitation(), values(table="t", limit=True), "field 'limit': true is not a number"),
    ("boolean-typed", elicitation(), values(table="t", limit=1, dry="yes"), "field 'dry': \"yes\" is not true or"),
    ("enum", elicitation(), values(table="t", limit=1, mode="slow"), '"slow" is not one of: fast, safe'),
    ("unknown-field", elicitation(), values(table="t", limit=1, extra=1), "there is no field 'extra'"),
    (
        "decline-with-values",
        elicitation(),
        {"kind": "elicitation", "action": "decline", "values": {"table": "t"}},  # no ElicitationResponse holds it
        "a decline carries no values",
    ),
    (
        "elicitation-to-question",
        question(),
        ElicitationResponse(action="cancel"),
        "an elicitation response does not fit",
    ),
]


@pytest.mark.parametrize(("request_", "response", "message"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
async def test_invalid_response_is_refused_with_what_and_where_and_stays_pending(
    service: InteractionService, store: MemoryInteractionStore, request_, response, message: str
) -> None:
    handle = await service.request(request_)
    with pytest.raises(InteractionValidationError) as info:
        await service.respond(request_.interaction_id, response)
    assert message in str(info.value)
    assert info.value.code == "invalid-response"
    assert (await store.get(request_.interaction_id)).status == "pending" and not handle.done()


VALID = [
    ("approval", shell(), ApprovalResponse(decision="denied", reason="not now")),
    ("tool-approval", tool_approval(), ApprovalResponse(decision="approved", always_allow=True)),
    ("questions", question(), GOOD_ANSWERS),
    ("empty-multi-select", question(), answers(("env", "dev"), ("note", ""), ("tags", []))),
    ("elicitation-int", elicitation(), values(table="t", limit=10, dry=False, mode="safe")),
    ("elicitation-float", elicitation(), values(table="t", limit=2.5)),
    ("elicitation-decline", elicitation(), ElicitationResponse(action="decline")),
    ("elicitation-cancel", elicitation(), ElicitationResponse(action="cancel")),
]


@pytest.mark.parametrize(("request_", "response"), [c[1:] for c in VALID], ids=[c[0] for c in VALID])
async def test_valid_response_resolves_and_the_waiter_gets_it(service: InteractionService, request_, response) -> None:
    handle = await service.request(request_)
    result = await service.respond(request_.interaction_id, response)
    assert result == ResolvedResult(interaction_id=request_.interaction_id, response=response)
    assert await within(handle.result(), "the request's outcome") == result


async def test_response_given_as_json_dict_is_parsed(service: InteractionService) -> None:
    await service.request(shell())
    result = await service.respond("a1", {"kind": "approval", "decision": "approved"})
    assert result.response == APPROVE


async def test_malformed_response_dict_is_refused_saying_which_part(service: InteractionService) -> None:
    await service.request(shell())
    with pytest.raises(InteractionValidationError, match="decision"):
        await service.respond("a1", {"kind": "approval", "decision": "maybe"})


# --- cancelling many runs at once ------------------------------------------------------------


class _BulkLoggingStore(MemoryInteractionStore):
    def __init__(self, log: list[str]) -> None:
        super().__init__()
        self.log = log
        self.documents: list[dict[str, Any]] = []  # the JSON forms `save_many` was given

    async def save_many(self, records, documents=None) -> None:  # type: ignore[no-untyped-def]
        records = list(records)
        self.documents += documents or []
        await super().save_many(records, documents)
        self.log.append(f"saved {len(records)} {sorted({r.status for r in records})}")


async def test_cancelling_many_runs_stores_their_requests_in_one_write_before_anyone_hears(bus: EventBus) -> None:
    log: list[str] = []
    bus.subscribe(lambda e: log.append(e.type) if e.type == "interaction.ended" else None)
    service = InteractionService(_BulkLoggingStore(log), bus, modes=MemoryApprovalModes())
    handles = [await service.request(shell(f"a{n}", run=f"run-{n % 2}")) for n in range(4)]
    await service.request(shell("other", run="run-9"))
    await service.cancel_runs({"run-0": "app_closed", "run-1": None})
    assert log == ["saved 4 ['cancelled']"] + ["interaction.ended"] * 4
    results = [await within(h.result(), "a cancelled request's outcome") for h in handles]
    assert [(r.status, r.reason, r.cause) for r in results] == [
        ("cancelled", "session_disposed", "app_closed"), ("cancelled", "turn_stopped", None)] * 2
    assert [r.interaction_id for r in await service.pending()] == ["other"]


async def test_cancelling_many_runs_dumps_each_request_once_for_the_store_and_its_event(bus: EventBus) -> None:
    """Closing with thousands waiting dumped each ended request twice (the store's, the event's)."""
    ended: list[InteractionEnded] = []
    bus.subscribe(lambda e: ended.append(e) if isinstance(e, InteractionEnded) else None)
    store = _BulkLoggingStore([])
    service = InteractionService(store, bus, modes=MemoryApprovalModes())
    for n in range(3):
        await service.request(shell(f"a{n}", run=f"run-{n}"))
    await service.cancel_runs({"run-0": "app_closed", "run-1": "app_closed", "run-2": None})
    assert [e.interaction_id for e in ended] == ["a0", "a1", "a2"]
    assert len(store.documents) == 3 and all(e.record is d for e, d in zip(ended, store.documents, strict=True))
    for event in ended:  # the very form the record dumps to, as stored
        stored = await store.get(event.interaction_id)
        assert stored is not None and event.record == stored.model_dump(mode="json")


async def test_cancelling_many_runs_leaves_a_request_being_answered_to_its_answer(bus: EventBus) -> None:
    store = GateStore()
    service = InteractionService(store, bus, modes=MemoryApprovalModes())
    handle = await service.request(shell("a1", run="run-1"))
    other = await service.request(shell("a2", run="run-1"))
    answering = asyncio.create_task(service.respond("a1", APPROVE))
    await within(store.entered.wait(), "a1's answer to start saving")  # the answer holds a1's lock, saving
    cancelling = asyncio.create_task(service.cancel_runs({"run-1": "app_closed"}))
    await within(other.result(), "a2's cancellation")  # a2 is cancelled in bulk meanwhile
    store.gate.set()
    await within(answering, "a1's answer to be stored")
    await within(cancelling, "the runs' requests to be cancelled")
    assert (await within(handle.result(), "a1's outcome")).status == "resolved"
    assert [(r.interaction_id, r.status) for r in await store.list()] == [("a1", "resolved"), ("a2", "cancelled")]
