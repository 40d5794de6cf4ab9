"""The interaction service over time: expiry, cancel, recovery, and approval modes."""

from __future__ import annotations

import asyncio
import time

import pytest
from support.interactions import (
    APPROVE,
    now_ms,
    question,
    queue_of,
    shell,
    tool_approval,
)
from support.waiting import within

from gui.core.asks import (
    InteractionNotFoundError,
    InteractionNotPendingError,
    InteractionService,
)
from gui.core.asks.interactions import (
    ApprovalResponse,
    CancelledResult,
    ExpiredResult,
    InteractionRecord,
    ResolvedResult,
)
from gui.core.events import Event, EventBus
from gui.memory import MemoryApprovalModes, MemoryInteractionStore

# --- expiry --------------------------------------------------------------------------------


async def test_interaction_expires_at_expires_at_and_the_waiter_gets_expired(
    service: InteractionService, store: MemoryInteractionStore, events: list[Event]
) -> None:
    handle = await service.request(shell(expires_at=now_ms() + 50))
    assert await within(handle.result(), "a1 to expire") == ExpiredResult(interaction_id="a1")
    assert (await store.get("a1")).status == "expired"
    assert events[-1].type == "interaction.ended" and events[-1].data["status"] == "expired"


async def test_expiry_already_past_expires_at_once(service: InteractionService) -> None:
    handle = await service.request(shell(expires_at=now_ms() - 1000))
    assert (await within(handle.result(), "a1 to expire")).status == "expired"


async def test_deadline_caps_a_later_expiry(service: InteractionService, store: MemoryInteractionStore) -> None:
    deadline = time.time() + 0.05
    handle = await service.request(shell(expires_at=now_ms() + 3_600_000), deadline=deadline)
    assert (await store.get("a1")).request.expires_at == int(deadline * 1000)
    assert (await within(handle.result(), "a1 to expire at the deadline")).status == "expired"


async def test_deadline_sets_expiry_when_the_request_has_none(
    service: InteractionService, store: MemoryInteractionStore
) -> None:
    handle = await service.request(shell(), deadline=time.time() + 0.05)
    assert (await store.get("a1")).request.expires_at is not None
    assert (await within(handle.result(), "a1 to expire at the deadline")).status == "expired"


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
    assert (await within(ended.get(), "a1's end")).data["status"] == "resolved"
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
        result = await within(handle.result(), "a cancelled request's outcome")
        assert result == CancelledResult(interaction_id=handle.interaction_id, reason="turn_stopped")
    assert not other.done() and (await store.get("a2")).status == "pending"


async def test_cancel_all_cancels_every_pending_interaction_with_the_reason(
    service: InteractionService, events: list[Event]
) -> None:
    handles = [await service.request(shell("a1", run="r1")), await service.request(shell("a2", run="r2"))]
    await service.cancel_all("session_disposed")
    for handle in handles:
        assert (await within(handle.result(), "a cancelled request's outcome")).reason == "session_disposed"
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
    assert await InteractionService(store, modes=MemoryApprovalModes()).recover() == ["r1", "r2"]
    for iid in ("a1", "q1"):
        record = await store.get(iid)
        assert record.result == CancelledResult(interaction_id=iid, reason="runtime_interrupted", cause="app_stopped")
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
    event = await within(queue_of(bus, "interaction.created").get(), "the next request")
    await service.respond(event.data["interaction_id"], response)


async def test_approve_and_always_allow_sets_the_tools_mode(service: InteractionService, bus: EventBus) -> None:
    asking = asyncio.create_task(service.approve(shell(), "cmd_run"))
    await answer_next(service, bus, ApprovalResponse(decision="approved", always_allow=True))
    outcome = await within(asking, "the approval's outcome")
    assert outcome.approved and not outcome.auto
    assert service.modes.get("cmd_run") == "always-allow"
    assert (await service.approve(shell("a2"), "cmd_run")).auto


class SlowDiskModes(MemoryApprovalModes):
    """Approval modes whose writes reach the disk only when the test opens `disk`."""

    def __init__(self) -> None:
        super().__init__()
        self.applied = asyncio.Event()
        self.disk = asyncio.Event()
        self.on_disk: list[str] = []

    def set(self, tool_name, mode):  # type: ignore[no-untyped-def]
        super().set(tool_name, mode)
        self.applied.set()

        async def write() -> None:
            await self.disk.wait()
            self.on_disk.append(tool_name)

        return write()


async def test_approve_and_always_allow_is_on_disk_before_respond_returns(store: MemoryInteractionStore) -> None:
    modes = SlowDiskModes()
    service = InteractionService(store, modes=modes)
    await service.request(shell())
    answering = asyncio.create_task(service.respond("a1", ApprovalResponse(decision="approved", always_allow=True)))
    await within(modes.applied.wait(), "the tool's mode to be applied")
    assert not answering.done() and modes.on_disk == []
    assert (await store.get("a1")).status == "pending"  # the answer is stored after the mode, not before
    modes.disk.set()
    await within(answering, "the answer to be stored")
    assert modes.on_disk == ["cmd_run"] and (await store.get("a1")).status == "resolved"


async def test_plain_approval_leaves_the_tool_in_ask_mode(service: InteractionService, bus: EventBus) -> None:
    asking = asyncio.create_task(service.approve(tool_approval(), "file_write"))
    await answer_next(service, bus, APPROVE)
    assert (await within(asking, "the approval's outcome")).approved
    assert service.modes.get("file_write") == "ask"


@pytest.mark.parametrize(("reason", "expected"), [("too risky", "denied by the user: too risky"),
                                                 (None, "denied by the user")])
async def test_denied_approval_returns_the_persons_reason(
    service: InteractionService, bus: EventBus, reason: str | None, expected: str
) -> None:
    asking = asyncio.create_task(service.approve(shell(), "cmd_run"))
    await answer_next(service, bus, ApprovalResponse(decision="denied", reason=reason))
    outcome = await within(asking, "the approval's outcome")
    assert not outcome.approved and outcome.reason == expected


async def test_expired_approval_says_nobody_answered(service: InteractionService) -> None:
    outcome = await within(service.approve(shell(expires_at=now_ms() + 50), "cmd_run"), "the approval to expire")
    assert not outcome.approved and outcome.reason == "not approved: the request expired before anyone answered"


async def test_cancelled_approval_says_the_run_stopped(service: InteractionService, bus: EventBus) -> None:
    created = queue_of(bus, "interaction.created")
    asking = asyncio.create_task(service.approve(shell(), "cmd_run"))
    await within(created.get(), "the approval request")
    await service.cancel_run("run-1")
    outcome = await within(asking, "the cancelled approval's outcome")
    assert not outcome.approved and outcome.reason == "not approved: the request was cancelled (the run was stopped)"


def test_memory_approval_modes_default_to_ask_and_refuse_unknown_modes() -> None:
    modes = MemoryApprovalModes()
    assert modes.get("cmd_run") == "ask"
    modes.set("cmd_run", "always-allow")
    modes.set("file_write", "ask")
    assert modes.all() == {"cmd_run": "always-allow"}  # `ask` is no entry, as in the TinyDB store
    with pytest.raises(ValueError, match="not an approval mode"):
        modes.set("cmd_run", "sometimes")  # type: ignore[arg-type]


async def test_memory_store_lists_by_status_in_request_order(store: MemoryInteractionStore) -> None:
    service = InteractionService(store, modes=MemoryApprovalModes())
    await service.request(shell("a1"))
    await service.request(shell("a2"))
    await service.respond("a1", APPROVE)
    assert [r.interaction_id for r in await store.list()] == ["a1", "a2"]
    assert [r.interaction_id for r in await store.list("pending")] == ["a2"]
