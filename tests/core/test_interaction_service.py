"""InteractionService: the rules of SPEC §3 (persist first, validate, one winner, expiry, cancel)."""

from __future__ import annotations

import asyncio
import time

import pytest

from gui.core.events import Event, EventBus
from gui.core.interaction_service import (
    InteractionError,
    InteractionNotFoundError,
    InteractionNotPendingError,
    InteractionService,
    InteractionValidationError,
)
from gui.core.interactions import (
    Answer,
    ApprovalResponse,
    CancelledResult,
    ElicitationFieldSpec,
    ElicitationInteractionRequest,
    ElicitationInteractionResponse,
    ExecutionSource,
    ExpiredResult,
    InteractionRecord,
    Question,
    QuestionOption,
    QuestionRequest,
    QuestionResponse,
    ResolvedResult,
    ShellApprovalRequest,
    ToolApprovalRequest,
    ToolSource,
)
from gui.core.memory import MemoryApprovalModes, MemoryInteractionStore

TIMEOUT = 2.0


def now_ms() -> int:
    return int(time.time() * 1000)


def shell(iid: str = "a1", run: str = "run-1", expires_at: int | None = None) -> ShellApprovalRequest:
    return ShellApprovalRequest(
        interaction_id=iid,
        turn_id=run,
        source=ToolSource(tool_call_id="c1", tool_name="cmd_run"),
        created_at=now_ms(),
        expires_at=expires_at,
        title="Run a command",
        command="rm -rf build",
        cwd="/tmp",
        reason="clean the build",
        operation="exec",
    )


def tool_approval(iid: str = "t1", run: str = "run-1") -> ToolApprovalRequest:
    return ToolApprovalRequest(
        interaction_id=iid,
        turn_id=run,
        source=ToolSource(tool_call_id="c2", tool_name="file_write"),
        created_at=now_ms(),
        validated_input={"path": "a.txt"},
    )


def options(*values: str) -> list[QuestionOption]:
    return [QuestionOption(value=v, label=v.title()) for v in values]


def question(iid: str = "q1", run: str = "run-1") -> QuestionRequest:
    return QuestionRequest(
        interaction_id=iid,
        turn_id=run,
        source=ExecutionSource(),
        created_at=now_ms(),
        title="Deploy",
        questions=[
            Question(question_id="env", prompt="Where?", response_type="single_select", options=options("dev", "prod")),
            Question(question_id="note", prompt="Why?", response_type="text"),
            Question(question_id="tags", prompt="Tags?", response_type="multi_select", options=options("a", "b")),
        ],
    )


def elicitation(iid: str = "e1", run: str = "run-1") -> ElicitationInteractionRequest:
    return ElicitationInteractionRequest(
        interaction_id=iid,
        turn_id=run,
        source=ExecutionSource(),
        created_at=now_ms(),
        server_name="db",
        message="Which table?",
        fields=[
            ElicitationFieldSpec(name="table", type="string", required=True),
            ElicitationFieldSpec(name="limit", type="number", required=True),
            ElicitationFieldSpec(name="dry", type="boolean"),
            ElicitationFieldSpec(name="mode", type="string", enum=["fast", "safe"]),
        ],
    )


APPROVE = ApprovalResponse(decision="approved")
GOOD_ANSWERS = QuestionResponse(
    answers=[
        Answer(question_id="env", value="prod"),
        Answer(question_id="note", value="release"),
        Answer(question_id="tags", value=["a", "b"]),
    ]
)


class LoggingStore(MemoryInteractionStore):
    """Writes 'saved <status>' into a shared log, beside the bus events, to check their order."""

    def __init__(self, log: list[str]) -> None:
        super().__init__()
        self.log = log

    async def save(self, record: InteractionRecord) -> None:
        await super().save(record)
        self.log.append(f"saved {record.status}")


class GateStore(MemoryInteractionStore):
    """Holds every save of a finished record until the test opens `gate`."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = asyncio.Event()
        self.gate = asyncio.Event()

    async def save(self, record: InteractionRecord) -> None:
        if record.status != "pending":
            self.entered.set()
            await self.gate.wait()
        await super().save(record)


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


@pytest.fixture
def events(bus: EventBus) -> list[Event]:
    seen: list[Event] = []
    bus.subscribe(seen.append)
    return seen


@pytest.fixture
def store() -> MemoryInteractionStore:
    return MemoryInteractionStore()


@pytest.fixture
def service(store: MemoryInteractionStore, bus: EventBus) -> InteractionService:
    return InteractionService(store, bus)


def queue_of(bus: EventBus, type_: str) -> asyncio.Queue[Event]:
    queue: asyncio.Queue[Event] = asyncio.Queue()
    bus.subscribe(lambda e: queue.put_nowait(e) if e.type == type_ else None)
    return queue


# --- persist before notify -------------------------------------------------------------------


async def test_request_is_stored_before_the_created_event_is_published(bus: EventBus) -> None:
    log: list[str] = []
    bus.subscribe(lambda e: log.append(e.type))
    await InteractionService(LoggingStore(log), bus).request(shell())
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
    service = InteractionService(LoggingStore(log), bus)
    await service.request(shell())
    await service.respond("a1", APPROVE)
    assert log == ["saved pending", "interaction.created", "saved resolved", "interaction.ended"]


async def test_waiter_does_not_resume_until_the_answer_is_stored() -> None:
    store = GateStore()
    service = InteractionService(store)
    handle = await service.request(shell())
    waiter = asyncio.create_task(handle.result())
    responder = asyncio.create_task(service.respond("a1", APPROVE))
    await asyncio.wait_for(store.entered.wait(), TIMEOUT)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(asyncio.shield(waiter), 0.05)
    assert (await store.get("a1")).status == "pending"
    store.gate.set()
    result = await asyncio.wait_for(waiter, TIMEOUT)
    assert result == ResolvedResult(interaction_id="a1", response=APPROVE)
    await responder


async def test_store_already_holds_the_answer_when_the_waiter_resumes(
    service: InteractionService, store: MemoryInteractionStore
) -> None:
    handle = await service.request(shell())

    async def wait_then_look() -> str:
        await handle.result()
        return (await store.get("a1")).status

    waiter = asyncio.create_task(wait_then_look())
    await service.respond("a1", APPROVE)
    assert await asyncio.wait_for(waiter, TIMEOUT) == "resolved"


async def test_a_waiter_that_gives_up_does_not_cancel_the_interaction(service: InteractionService) -> None:
    handle = await service.request(shell())
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(handle.result(), 0.01)
    await service.respond("a1", APPROVE)
    assert (await asyncio.wait_for(handle.result(), TIMEOUT)).status == "resolved"


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
    await asyncio.wait_for(handle.result(), TIMEOUT)
    with pytest.raises(InteractionNotPendingError, match="interaction a1 has expired"):
        await service.respond("a1", APPROVE)


async def test_answer_after_expires_at_is_refused_even_before_the_timer_fires(
    store: MemoryInteractionStore,
) -> None:
    clock = [1000.0]
    service = InteractionService(store, clock=lambda: clock[0])
    handle = await service.request(shell(expires_at=1_000_000 + 60_000))
    clock[0] += 61
    with pytest.raises(InteractionNotPendingError, match="has expired"):
        await service.respond("a1", APPROVE)
    assert await asyncio.wait_for(handle.result(), TIMEOUT) == ExpiredResult(interaction_id="a1")
    assert (await store.get("a1")).status == "expired"


async def test_answer_to_a_cancelled_interaction_is_refused_naming_the_reason(service: InteractionService) -> None:
    await service.request(shell())
    await service.cancel_run("run-1")
    with pytest.raises(InteractionNotPendingError, match=r"interaction a1 was cancelled \(turn_stopped\)"):
        await service.respond("a1", APPROVE)


async def test_of_two_concurrent_answers_exactly_one_wins() -> None:
    store = GateStore()
    service = InteractionService(store)
    handle = await service.request(shell())
    answers = asyncio.gather(
        service.respond("a1", APPROVE),
        service.respond("a1", ApprovalResponse(decision="denied", reason="no")),
        return_exceptions=True,
    )
    await asyncio.wait_for(store.entered.wait(), TIMEOUT)
    store.gate.set()
    outcomes = await asyncio.wait_for(answers, TIMEOUT)
    winners = [o for o in outcomes if isinstance(o, ResolvedResult)]
    losers = [o for o in outcomes if isinstance(o, InteractionNotPendingError)]
    assert len(winners) == 1 and len(losers) == 1
    assert await handle.result() == winners[0]
    assert (await store.get("a1")).result == winners[0]


async def test_duplicate_request_id_is_refused(service: InteractionService) -> None:
    await service.request(shell())
    with pytest.raises(InteractionError, match="already exists"):
        await service.request(shell())


# --- validation ----------------------------------------------------------------------------


def answers(*pairs: tuple[str, str | list[str]]) -> QuestionResponse:
    return QuestionResponse(answers=[Answer(question_id=q, value=v) for q, v in pairs])


def values(**kwargs: object) -> ElicitationInteractionResponse:
    return ElicitationInteractionResponse(action="accept", values=kwargs)


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
        ElicitationInteractionResponse(action="decline", values={"table": "t"}),
        "a decline carries no values",
    ),
    (
        "elicitation-to-question",
        question(),
        ElicitationInteractionResponse(action="cancel"),
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
    ("elicitation-decline", elicitation(), ElicitationInteractionResponse(action="decline")),
    ("elicitation-cancel", elicitation(), ElicitationInteractionResponse(action="cancel")),
]


@pytest.mark.parametrize(("request_", "response"), [c[1:] for c in VALID], ids=[c[0] for c in VALID])
async def test_valid_response_resolves_and_the_waiter_gets_it(service: InteractionService, request_, response) -> None:
    handle = await service.request(request_)
    result = await service.respond(request_.interaction_id, response)
    assert result == ResolvedResult(interaction_id=request_.interaction_id, response=response)
    assert await asyncio.wait_for(handle.result(), TIMEOUT) == result


async def test_response_given_as_json_dict_is_parsed(service: InteractionService) -> None:
    await service.request(shell())
    result = await service.respond("a1", {"kind": "approval", "decision": "approved"})
    assert result.response == APPROVE


async def test_malformed_response_dict_is_refused_saying_which_part(service: InteractionService) -> None:
    await service.request(shell())
    with pytest.raises(InteractionValidationError, match="decision"):
        await service.respond("a1", {"kind": "approval", "decision": "maybe"})


# --- expiry --------------------------------------------------------------------------------


async def test_interaction_expires_at_expires_at_and_the_waiter_gets_expired(
    service: InteractionService, store: MemoryInteractionStore, events: list[Event]
) -> None:
    handle = await service.request(shell(expires_at=now_ms() + 50))
    assert await asyncio.wait_for(handle.result(), TIMEOUT) == ExpiredResult(interaction_id="a1")
    assert (await store.get("a1")).status == "expired"
    assert events[-1].type == "interaction.ended" and events[-1].data["status"] == "expired"


async def test_expiry_already_past_expires_at_once(service: InteractionService) -> None:
    handle = await service.request(shell(expires_at=now_ms() - 1000))
    assert (await asyncio.wait_for(handle.result(), TIMEOUT)).status == "expired"


async def test_deadline_caps_a_later_expiry(service: InteractionService, store: MemoryInteractionStore) -> None:
    deadline = time.time() + 0.05
    handle = await service.request(shell(expires_at=now_ms() + 3_600_000), deadline=deadline)
    assert (await store.get("a1")).request.expires_at == int(deadline * 1000)
    assert (await asyncio.wait_for(handle.result(), TIMEOUT)).status == "expired"


async def test_deadline_sets_expiry_when_the_request_has_none(
    service: InteractionService, store: MemoryInteractionStore
) -> None:
    handle = await service.request(shell(), deadline=time.time() + 0.05)
    assert (await store.get("a1")).request.expires_at is not None
    assert (await asyncio.wait_for(handle.result(), TIMEOUT)).status == "expired"


async def test_later_deadline_does_not_extend_expiry(
    service: InteractionService, store: MemoryInteractionStore
) -> None:
    expires_at = now_ms() + 60_000
    await service.request(shell(expires_at=expires_at), deadline=time.time() + 3600)
    assert (await store.get("a1")).request.expires_at == expires_at


async def test_answered_interaction_does_not_expire_afterwards(
    service: InteractionService, store: MemoryInteractionStore, bus: EventBus
) -> None:
    ended = queue_of(bus, "interaction.ended")
    await service.request(shell(expires_at=now_ms() + 50))
    await service.respond("a1", APPROVE)
    assert (await asyncio.wait_for(ended.get(), TIMEOUT)).data["status"] == "resolved"
    with pytest.raises(TimeoutError):  # no second end comes after expires_at has passed
        await asyncio.wait_for(ended.get(), 0.2)
    assert (await store.get("a1")).status == "resolved"


# --- cancel and recover --------------------------------------------------------------------


async def test_cancel_run_cancels_only_that_runs_pending_interactions(
    service: InteractionService, store: MemoryInteractionStore
) -> None:
    mine = await service.request(shell("a1", run="run-1"))
    also_mine = await service.request(question("q1", run="run-1"))
    other = await service.request(shell("a2", run="run-2"))
    assert sorted(await service.cancel_run("run-1")) == ["a1", "q1"]
    for handle in (mine, also_mine):
        result = await asyncio.wait_for(handle.result(), TIMEOUT)
        assert result == CancelledResult(interaction_id=handle.interaction_id, reason="turn_stopped")
    assert not other.done() and (await store.get("a2")).status == "pending"


async def test_cancel_all_cancels_every_pending_interaction_with_the_reason(
    service: InteractionService, events: list[Event]
) -> None:
    handles = [await service.request(shell("a1", run="r1")), await service.request(shell("a2", run="r2"))]
    await service.cancel_all("session_disposed")
    for handle in handles:
        assert (await asyncio.wait_for(handle.result(), TIMEOUT)).reason == "session_disposed"
    ended = [e for e in events if e.type == "interaction.ended"]
    assert [(e.data["status"], e.data["reason"]) for e in ended] == [("cancelled", "session_disposed")] * 2


async def test_cancel_reports_whether_it_cancelled_and_refuses_unknown_ids(service: InteractionService) -> None:
    await service.request(shell())
    assert await service.cancel("a1", "turn_stopped") is True
    assert await service.cancel("a1", "turn_stopped") is False
    with pytest.raises(InteractionNotFoundError):
        await service.cancel("nope", "turn_stopped")


async def test_recover_cancels_what_a_dead_process_left_pending_and_returns_the_runs() -> None:
    left = [InteractionRecord(request=shell("a1", run="r1")), InteractionRecord(request=question("q1", run="r2"))]
    done = InteractionRecord(
        request=shell("a2", run="r3"),
        status="resolved",
        result=ResolvedResult(interaction_id="a2", response=APPROVE),
        resolved_at=now_ms(),
    )
    store = MemoryInteractionStore([*left, done])
    assert await InteractionService(store).recover() == ["r1", "r2"]
    for iid in ("a1", "q1"):
        record = await store.get(iid)
        assert record.result == CancelledResult(interaction_id=iid, reason="runtime_interrupted")
    assert (await store.get("a2")).status == "resolved"


async def test_recover_leaves_this_process_live_interactions_alone(service: InteractionService) -> None:
    handle = await service.request(shell())
    assert await service.recover() == []
    assert not handle.done()


# --- approvals -----------------------------------------------------------------------------


async def test_always_allowed_tool_is_recorded_as_auto_approval_without_asking(
    store: MemoryInteractionStore, bus: EventBus, events: list[Event]
) -> None:
    service = InteractionService(store, bus, modes=MemoryApprovalModes({"cmd_run": "always-allow"}))
    outcome = await service.approve(shell(), "cmd_run")
    assert outcome.approved and outcome.auto and outcome.interaction_id == "a1"
    record = await store.get("a1")
    assert record.status == "resolved" and record.auto and record.result.response == APPROVE
    assert [e.type for e in events] == ["interaction.created", "interaction.ended"]
    assert events[-1].data["auto"] is True
    with pytest.raises(InteractionNotPendingError, match="was already approved automatically"):
        await service.respond("a1", ApprovalResponse(decision="denied"))


async def answer_next(service: InteractionService, bus: EventBus, response: ApprovalResponse) -> None:
    event = await asyncio.wait_for(queue_of(bus, "interaction.created").get(), TIMEOUT)
    await service.respond(event.data["interaction_id"], response)


async def test_approve_and_always_allow_sets_the_tools_mode(service: InteractionService, bus: EventBus) -> None:
    asking = asyncio.create_task(service.approve(shell(), "cmd_run"))
    await answer_next(service, bus, ApprovalResponse(decision="approved", always_allow=True))
    outcome = await asyncio.wait_for(asking, TIMEOUT)
    assert outcome.approved and not outcome.auto
    assert service.modes.get("cmd_run") == "always-allow"
    assert (await service.approve(shell("a2"), "cmd_run")).auto


async def test_plain_approval_leaves_the_tool_in_ask_mode(service: InteractionService, bus: EventBus) -> None:
    asking = asyncio.create_task(service.approve(tool_approval(), "file_write"))
    await answer_next(service, bus, APPROVE)
    assert (await asyncio.wait_for(asking, TIMEOUT)).approved
    assert service.modes.get("file_write") == "ask"


@pytest.mark.parametrize(("reason", "expected"), [("too risky", "too risky"), (None, "denied by the person")])
async def test_denied_approval_returns_the_persons_reason(
    service: InteractionService, bus: EventBus, reason: str | None, expected: str
) -> None:
    asking = asyncio.create_task(service.approve(shell(), "cmd_run"))
    await answer_next(service, bus, ApprovalResponse(decision="denied", reason=reason))
    outcome = await asyncio.wait_for(asking, TIMEOUT)
    assert not outcome.approved and outcome.reason == expected


async def test_expired_approval_says_nobody_answered(service: InteractionService) -> None:
    outcome = await asyncio.wait_for(service.approve(shell(expires_at=now_ms() + 50), "cmd_run"), TIMEOUT)
    assert not outcome.approved and outcome.reason == "the request expired before anyone answered"


async def test_cancelled_approval_says_the_run_stopped(service: InteractionService, bus: EventBus) -> None:
    created = queue_of(bus, "interaction.created")
    asking = asyncio.create_task(service.approve(shell(), "cmd_run"))
    await asyncio.wait_for(created.get(), TIMEOUT)
    await service.cancel_run("run-1")
    outcome = await asyncio.wait_for(asking, TIMEOUT)
    assert not outcome.approved and outcome.reason == "cancelled: run stopped"


def test_memory_approval_modes_default_to_ask_and_refuse_unknown_modes() -> None:
    modes = MemoryApprovalModes()
    assert modes.get("cmd_run") == "ask"
    modes.set("cmd_run", "always-allow")
    modes.set("file_write", "ask")
    assert modes.all() == {"cmd_run": "always-allow", "file_write": "ask"}
    with pytest.raises(ValueError, match="not an approval mode"):
        modes.set("cmd_run", "sometimes")  # type: ignore[arg-type]


async def test_memory_store_lists_by_status_in_request_order(store: MemoryInteractionStore) -> None:
    service = InteractionService(store)
    await service.request(shell("a1"))
    await service.request(shell("a2"))
    await service.respond("a1", APPROVE)
    assert [r.interaction_id for r in await store.list()] == ["a1", "a2"]
    assert [r.interaction_id for r in await store.list("pending")] == ["a2"]
