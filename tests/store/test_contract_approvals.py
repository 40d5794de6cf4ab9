"""The store contract for requests several people answer (issue 26), over memory, TinyDB and PostgreSQL:
a pending request's approvals, hand-overs and follow-ups are stored, survive reopening, and a
request two approvals in finishes on a service started afresh over the same store."""

from __future__ import annotations

import asyncio

import pytest
from contract_support import Backend, ids, interaction
from support.team_directory import TEAM, Team
from support.waiting import within

from gui.core.asks import (
    AlreadyApproved,
    Answerer,
    ApprovalResponse,
    Handover,
    InteractionError,
    InteractionNotPendingError,
    InteractionRecord,
    InteractionService,
    ResolvedResult,
    Signoff,
    StillWaiting,
)
from gui.core.events import EventBus, InteractionChanged
from gui.core.sequences import Asking

APPROVE = ApprovalResponse(decision="approved")


def gated(iid: str, required: int = 2) -> InteractionRecord:
    record = interaction(iid)
    request = record.request.model_copy(update={"asking": Asking(approvers=("role:oncall",), required=required,
                                                                 remind_after="30m"), "started_by": "runner"})
    return record.model_copy(update={"request": request})


async def test_approvals_hand_overs_and_follow_ups_of_a_pending_request_come_back_equal(backend: Backend) -> None:
    record = gated("p1")
    await backend.interactions.save(record)
    changed = record.model_copy(update={
        "approvals": (Signoff(person="ana", via="app", at=1_000_100),),
        "handovers": (Handover(by="ana", to="person:sam", note="you know it", at=1_000_200),),
        "reminded_at": 1_000_300, "revision": 1})
    await backend.interactions.save(changed)
    assert await backend.interactions.get("p1") == changed
    assert ids(await backend.interactions.list("pending")) == ["p1"]
    await backend.reopen()
    again = await backend.interactions.get("p1")
    assert again == changed and again.request.asking.required == 2 and again.request.started_by == "runner"
    assert ids((await backend.interactions.query(status="pending")).items) == ["p1"]


async def test_a_record_without_people_is_stored_as_it_always_was(backend: Backend) -> None:
    record = interaction("p2")
    document = record.model_dump(mode="json")
    assert not {"approvals", "handovers", "revision", "reminded_at"} & set(document)
    assert not {"asking", "started_by"} & set(document["request"])
    await backend.interactions.save(record)
    await backend.reopen()
    assert await backend.interactions.get("p2") == record


async def test_a_partial_approval_survives_reopening_and_a_second_person_finishes_it(backend: Backend) -> None:
    first = InteractionService(backend.interactions, modes=backend.modes, directory=Team(TEAM))
    await first.request(gated("p3").request)
    assert isinstance(await first.respond("p3", APPROVE, Answerer(person="ana", via="app")), StillWaiting)
    await backend.reopen()
    second = InteractionService(backend.interactions, modes=backend.modes, directory=Team(TEAM))
    with pytest.raises(AlreadyApproved):
        await second.respond("p3", APPROVE, Answerer(person="ana", via="cli", token="laptop"))
    assert isinstance(await second.respond("p3", APPROVE, Answerer(person="li.wei", via="phone")), ResolvedResult)
    await backend.reopen()
    ended = await backend.interactions.get("p3")
    assert ended.status == "resolved" and [(a.person, a.via) for a in ended.approvals] == [
        ("ana", "app"), ("li.wei", "phone")]


@pytest.mark.postgres
async def test_on_a_shared_database_a_change_made_from_a_stale_revision_is_refused(
        seqdesk_database_url: str) -> None:
    backend = await Backend.postgresql(seqdesk_database_url)
    try:
        record = gated("p4", required=3)
        await backend.interactions.save(record)
        one = record.model_copy(update={"approvals": (Signoff(person="ana", at=1),), "revision": 1})
        other = record.model_copy(update={"approvals": (Signoff(person="li.wei", at=2),), "revision": 1})
        await backend.interactions.save(one)
        with pytest.raises(InteractionNotPendingError, match="changed"):
            await backend.interactions.save(other)  # made from revision 0 too: the first one won
        assert await backend.interactions.get("p4") == one
    finally:
        await backend.close()


class _HeldAfterRead:
    """A store whose `hold_at`-th read of a pending request waits until `go` is set: another process
    answers meanwhile (the service reads it to find it, then again, fresh, just before it decides)."""

    def __init__(self, store: object, hold_at: int) -> None:
        self._store, self.read, self.go = store, asyncio.Event(), asyncio.Event()
        self._reads, self._hold_at = 0, hold_at

    async def get(self, interaction_id: str) -> InteractionRecord | None:
        found = await self._store.get(interaction_id)  # type: ignore[attr-defined]
        if found is not None and found.status == "pending":
            self._reads += 1
            if self._reads == self._hold_at:
                self.read.set()
                await self.go.wait()
        return found

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)


@pytest.mark.postgres
async def test_an_approval_read_before_another_process_approved_builds_on_it(seqdesk_database_url: str) -> None:
    one, two = await Backend.postgresql(seqdesk_database_url), await Backend.postgresql(seqdesk_database_url)
    try:
        first = InteractionService(one.interactions, modes=one.modes, directory=Team(TEAM))
        held = _HeldAfterRead(two.interactions, hold_at=1)  # found before ana approved; read again after
        second = InteractionService(held, modes=two.modes, directory=Team(TEAM))  # type: ignore[arg-type]
        first.shared = second.shared = True
        await first.request(gated("p6", required=3).request)
        late = asyncio.create_task(second.respond("p6", APPROVE, Answerer(person="li.wei", via="app")))
        await within(held.read.wait(), "li.wei's process to read the request")
        await first.respond("p6", APPROVE, Answerer(person="ana", via="app"))
        held.go.set()
        answered = await within(late, "li.wei's approval")
        assert isinstance(answered, StillWaiting) and [a.person for a in answered.approvals] == ["ana", "li.wei"]
    finally:
        await one.close()
        await two.close()


@pytest.mark.postgres
async def test_two_processes_approving_at_once_keep_one_and_tell_the_other(seqdesk_database_url: str) -> None:
    one, two = await Backend.postgresql(seqdesk_database_url), await Backend.postgresql(seqdesk_database_url)
    try:
        first = InteractionService(one.interactions, modes=one.modes, directory=Team(TEAM))
        held = _HeldAfterRead(two.interactions, hold_at=2)  # read fresh just before deciding, then held
        second = InteractionService(held, modes=two.modes, directory=Team(TEAM))  # type: ignore[arg-type]
        first.shared = second.shared = True
        await first.request(gated("p5", required=3).request)
        late = asyncio.create_task(second.respond("p5", APPROVE, Answerer(person="li.wei", via="app")))
        await within(held.read.wait(), "li.wei's process to read the request with no approval yet")
        assert isinstance(await first.respond("p5", APPROVE, Answerer(person="ana", via="app")), StillWaiting)
        held.go.set()
        with pytest.raises(InteractionError, match="changed by someone else at the same moment"):
            await within(late, "li.wei's approval")
        assert [a.person for a in (await one.interactions.get("p5")).approvals] == ["ana"]
        again = await second.respond("p5", APPROVE, Answerer(person="li.wei", via="app"))
        assert isinstance(again, StillWaiting) and [a.person for a in again.approvals] == ["ana", "li.wei"]
    finally:
        await one.close()
        await two.close()


@pytest.mark.postgres
async def test_the_leader_reminds_and_expires_requests_whose_asking_process_has_gone_once(
        seqdesk_database_url: str) -> None:
    """The process that asked closed (its run goes on elsewhere, so its requests stay); the clock moves
    on; the process that leads sends the reminder (once, however many sweep at the same moment) and
    ends a request past its end."""
    now = [1_000.0]  # seconds: the requests were made at 1,000,000 ms
    asker_side = await Backend.postgresql(seqdesk_database_url)
    one, two = await Backend.postgresql(seqdesk_database_url), await Backend.postgresql(seqdesk_database_url)
    try:
        asker = InteractionService(asker_side.interactions, clock=lambda: now[0], modes=asker_side.modes,
                                   directory=Team(TEAM))
        asker.shared = True
        await asker.request(gated("f1").request)
        ending = gated("f2").request
        await asker.request(ending.model_copy(update={"asking": ending.asking.model_copy(
            update={"expire_after": "1h"})}))
        await asker.cancel_all("session_disposed", "app_closed", keep=frozenset({"run-1"}))
        await asker_side.close()
        assert ids(await one.interactions.list("pending")) == ["f1", "f2"]

        buses = [EventBus(), EventBus()]
        told: list[str] = []
        for bus in buses:
            bus.subscribe(lambda e: told.append(e.interaction_id) if isinstance(e, InteractionChanged) else None)
        leaders = [InteractionService(b.interactions, bus, clock=lambda: now[0], modes=b.modes, directory=Team(TEAM))
                   for b, bus in zip((one, two), buses, strict=True)]
        for leader in leaders:
            leader.shared = True
        assert await leaders[0].follow_up(everywhere=True) == []  # not yet: nothing due
        now[0] += 31 * 60
        assert await leaders[0].follow_up() == []  # a process follows up only its own requests, unless it leads
        swept = await asyncio.gather(*(leader.follow_up(everywhere=True) for leader in leaders))
        assert sorted(done for found in swept for done in found) == [("f1", "remind"), ("f2", "remind")]
        assert sorted(told) == ["f1", "f2"]  # announced once each, for the notifier to send
        reminded = await one.interactions.get("f1")
        assert reminded.status == "pending" and reminded.reminded_at == int(now[0] * 1000)
        assert reminded.revision == 1
        assert await leaders[1].follow_up(everywhere=True) == []  # sent once: not again at the next sweep

        now[0] += 30 * 60  # past f2's hour: an approval nobody answered is denied by time, never approved
        await leaders[1].follow_up(everywhere=True)
        assert (await one.interactions.get("f2")).status == "expired"
        assert (await one.interactions.get("f1")).status == "pending"
    finally:
        await one.close()
        await two.close()
