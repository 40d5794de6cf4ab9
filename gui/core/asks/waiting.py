"""The requests this process waits on: their records as stored, the tools' futures, their locks and
timers; and every change of one, stored first, then the waiting tool woken and the change announced.

The service (`gui.core.asks.service`) holds one `Waiting`, and hands it to its collaborators: the
approvals of several people (`gui.core.asks.approvers.Approvers`) and the follow-up sweep
(`gui.core.asks.follow_ups.FollowUps`). They all use the methods here, never one another's state.

What is held is as stored: every end goes through `end` or `end_all` under the request's lock, and
a data folder has one process, so an answer reads its request here without waiting on the store's
thread behind someone's listing. A lock is dropped once its request ended (every holder re-reads the
stored status). On a store other processes share (`shared`, a team's database) the requests held
here are only this process's.

Each change is stored with its entry in the record of decisions (`gui.core.asks.audit`), drafted
by the write that stores it (`gui.core.asks.audit`: `decision_of` an ended request, `step_of` a step
on the way). The log chains the draft; the store writes both in one trip when it can.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Literal

from pydantic import BaseModel

from gui.core.asks.audit import Answerer, AuditDraft, AuditLog, decision_of
from gui.core.asks.failures import InteractionError, InteractionNotFoundError, InteractionNotPendingError, ended_message
from gui.core.asks.interactions import (
    CancelledResult,
    InteractionRecord,
    InteractionResult,
)
from gui.core.asks.store import InteractionStore
from gui.core.events import EventBus, InteractionChanged, InteractionCreated, InteractionEnded

TimerKind = Literal["expiry", "follow_up"]  # when it ends; when it is next reminded or escalated


class Handle:
    """The waiting side of one interaction (seed `SessionInteractionHandle`)."""

    __slots__ = ("interaction_id", "_future")

    def __init__(self, interaction_id: str, future: asyncio.Future[InteractionResult]) -> None:
        self.interaction_id = interaction_id
        self._future = future

    async def result(self) -> InteractionResult:
        return await self.wait()

    def wait(self) -> asyncio.Future[InteractionResult]:
        """The result to await, shielded: one waiter giving up must not cancel the outcome for the others.
        A future of this waiter's own, given the outcome when it comes (what `asyncio.shield` does, with
        one callback instead of two closures and their cells: 0.5 KB less a waiting request)."""
        outcome = self._future
        if outcome.done():
            return outcome
        mine: asyncio.Future[InteractionResult] = outcome.get_loop().create_future()
        outcome.add_done_callback(functools.partial(_pass_on, mine))
        return mine

    def done(self) -> bool:
        return self._future.done()


def _pass_on(mine: asyncio.Future[InteractionResult], outcome: asyncio.Future[InteractionResult]) -> None:
    """Give a waiter's own future (`Handle.wait`) the outcome, unless the waiter gave up."""
    if mine.done():  # cancelled: the outcome is still seen as retrieved
        if not outcome.cancelled():
            outcome.exception()
    elif outcome.cancelled():
        mine.cancel()
    elif (exc := outcome.exception()) is not None:
        mine.set_exception(exc)
    else:
        mine.set_result(outcome.result())


class Waiting:
    """The pending requests this process stored and has not ended, and how each changes or ends."""

    def __init__(self, store: InteractionStore, bus: EventBus | None, clock: Callable[[], float],
                 audit: AuditLog | None) -> None:
        self.store, self.bus, self.clock = store, bus, clock
        self.audit = audit  # every end is recorded there before anybody learns of it (`gui.core.asks.audit`)
        self.shared = False  # other processes use the same store (a team's database)
        self._records: dict[str, InteractionRecord] = {}
        self._by_run: dict[str, dict[str, None]] = {}  # run id -> its ids in `_records`, in order
        self._futures: dict[str, asyncio.Future[InteractionResult]] = {}
        self._timers: dict[TimerKind, dict[str, asyncio.TimerHandle]] = {"expiry": {}, "follow_up": {}}
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    # --- what is waited on ----------------------------------------------------------------------

    def get(self, interaction_id: str) -> InteractionRecord | None:
        """The request as stored, if this process waits on it."""
        return self._records.get(interaction_id)

    def __contains__(self, interaction_id: object) -> bool:
        return interaction_id in self._records

    def records(self) -> list[InteractionRecord]:
        """Every request waited on, oldest first."""
        return list(self._records.values())

    def of_run(self, run_id: str) -> list[str]:
        """The ids of the requests of one run waited on, in order."""
        return list(self._by_run.get(run_id, ()))

    def awaited(self, interaction_id: str) -> bool:
        """A tool of this process waits on its answer."""
        return interaction_id in self._futures

    def update(self, record: InteractionRecord) -> None:
        """The request as stored now (changed while pending), when it is waited on here."""
        if record.interaction_id in self._records:
            _share_names(record, record.request, record.request.source)
            self._records[record.interaction_id] = record

    async def pending(self, interaction_id: str) -> InteractionRecord:
        """The pending request (held here, else as stored); refused when there is none, or it ended."""
        record = self._records.get(interaction_id) or await self.store.get(interaction_id)
        if record is None:
            raise InteractionNotFoundError(f"there is no interaction {interaction_id}", interaction_id)
        if record.status != "pending":
            raise InteractionNotPendingError(ended_message(record), interaction_id)
        return record

    async def hold(self, record: InteractionRecord, on_expiry: Callable[[str], None]) -> Handle:
        """Store the new pending `record`, then wait on it: a request with an end (`expires_at`) has its
        timer, which calls `on_expiry(interaction_id)` then. Caller holds its lock."""
        iid = record.interaction_id
        await self.store.save(record)
        _share_names(record, record.request, record.request.source)
        self._records[iid] = record
        self._by_run.setdefault(record.request.turn_id, {})[iid] = None
        future: asyncio.Future[InteractionResult] = asyncio.get_running_loop().create_future()
        self._futures[iid] = future
        if record.request.expires_at is not None:
            self.at("expiry", iid, record.request.expires_at, on_expiry)
        return Handle(iid, future)

    # --- locks, timers, tasks -------------------------------------------------------------------

    def lock(self, interaction_id: str) -> asyncio.Lock:
        """The lock every transition of this request holds (made once: a waiting request has one)."""
        lock = self._locks.get(interaction_id)
        if lock is None:
            lock = self._locks[interaction_id] = asyncio.Lock()
        return lock

    def drop_lock(self, interaction_id: str, lock: asyncio.Lock | None = None) -> None:
        """Forget the request's lock (it ended; `lock`: only if it is still that one)."""
        if lock is None or self._locks.get(interaction_id) is lock:
            self._locks.pop(interaction_id, None)

    def at(self, kind: TimerKind, interaction_id: str, when_ms: int, call: Callable[[str], None]) -> None:
        """Call `call(interaction_id)` at `when_ms` (by the clock), instead of any `kind` timer it had."""
        self.stop(kind, interaction_id)
        delay = max(0.0, when_ms / 1000 - self.clock())
        self._timers[kind][interaction_id] = asyncio.get_running_loop().call_later(delay, call, interaction_id)

    def fired(self, kind: TimerKind, interaction_id: str) -> None:
        """The `kind` timer of the request went off: it has none now."""
        self._timers[kind].pop(interaction_id, None)

    def stop(self, kind: TimerKind, interaction_id: str) -> None:
        timer = self._timers[kind].pop(interaction_id, None)
        if timer is not None:
            timer.cancel()

    def stop_timers(self, interaction_id: str) -> None:
        for kind in self._timers:
            self.stop(kind, interaction_id)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` on the loop, kept until it is done (what a timer starts has nobody to await it)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- changes and ends -----------------------------------------------------------------------

    async def change(self, changed: InteractionRecord, change: str, draft: AuditDraft | None = None,
                     notify: tuple[str, ...] = ()) -> InteractionRecord:
        """Store a change of a pending request (its record of decisions first), then announce it.
        Caller holds the lock. Two processes changing it at once: one wins, the other is told."""
        changed = changed.model_copy(update={"revision": changed.revision + 1})
        try:
            await self.save(changed, draft)
        except InteractionNotPendingError:
            iid = changed.interaction_id
            raise InteractionError(f"interaction {iid} was changed by someone else at the same moment: nothing "
                                   "of this was kept; look at it again", iid) from None
        self.update(changed)
        if self.bus is not None:
            self.bus.publish(InteractionChanged, changed.request.turn_id, interaction_id=changed.interaction_id,
                             change=change, notify=notify, record=changed.model_dump(mode="json"))
        return changed

    def ended(self, record: InteractionRecord, result: InteractionResult, at: int | None = None) -> InteractionRecord:
        """`record` ended with `result`, now (`at`, ms: then), not stored yet: `model_copy` with those three
        fields, without its generic steps (a third of the time: closing with thousands waiting ends each)."""
        # (approvals, hand-overs and follow-ups stay on it: the record of who did what before the end)
        state = record.__dict__.copy()
        state["status"], state["result"] = result.status, result
        state["resolved_at"] = self.now_ms() if at is None else at
        done = _new(InteractionRecord)
        _set_dict(done, state)
        _set_fields_set(done, record.__pydantic_fields_set__ | _ENDED_NAMES)
        _set_extra(done, None)
        _set_private(done, None)
        return done

    async def end(self, record: InteractionRecord, result: InteractionResult,
                  by: Answerer | None = None, *, timed_out: bool = False) -> InteractionRecord:
        """Record the decision, store the final state, then wake the waiter and announce it. Caller
        holds the lock. `timed_out`: nobody answered, the request took its defaults."""
        ended = self.ended(record, result)
        await self.save(ended, self.decision(ended, by, timed_out=timed_out))
        self.settle(ended)
        self.drop_lock(record.interaction_id)
        return ended

    async def end_all(self, ends: Sequence[tuple[InteractionRecord, InteractionResult]]) -> None:
        """Ends of many requests at once (each record with its result), their locks held: their decisions
        in one write, then the records in one write, then each waiter woken and each end announced, in
        order. Each ended record, its decision and (someone listening) its JSON form, once for the store
        and for its event, are made one request after the other, while its parts are at hand (closing with
        thousands waiting went over them all three times). `InteractionNotPendingError`: another process
        sharing the store ended one; nothing is settled."""
        now = self.now_ms()
        audit = self.audit is not None
        listened = self.bus is not None and self.bus.listened
        ended: list[InteractionRecord] = []
        drafts: list[AuditDraft] = []
        documents: list[dict[str, Any]] = []
        for record, result in ends:
            done = self.ended(record, result, now)
            ended.append(done)
            if audit:
                drafts.append(decision_of(done))
            if listened:
                documents.append(done.model_dump(mode="json"))
        if self.audit is not None and drafts:
            await self.audit.append_many(drafts)
        if not listened:
            await self.store.save_many(ended)
            for done in ended:
                self.settle(done)
            return
        await self.store.save_many(ended, documents)
        for done, document in zip(ended, documents, strict=True):
            self.settle(done, document)

    def decision(self, ended: InteractionRecord, by: Answerer | None = None, *,
                 timed_out: bool = False) -> AuditDraft | None:
        """The entry `ended`'s decision makes in the record of decisions (None: none is kept)."""
        if self.audit is None:
            return None
        draft = decision_of(ended, by)
        if timed_out:
            draft = draft.model_copy(update={"by": "timeout", "person": None, "via": None, "token": None,
                                             "detail": f"the defaults it declares: {draft.detail}"})
        return draft

    async def save(self, record: InteractionRecord, decision: AuditDraft | None = None) -> None:
        """Store `record`, its `decision` appended to the record of decisions before it (in the same
        trip to the store when they share one): a decision that took effect is never missing from it
        (a crash in between leaves the entry, and start-up then cancels the request)."""
        if decision is None or self.audit is None:
            await self.store.save(record)
        else:
            await self.store.save_with(record, decision, self.audit)

    def settle(self, ended: InteractionRecord, document: dict[str, Any] | None = None) -> None:
        """Once the end is stored: forget the request, wake its waiter, announce the end (`document`:
        its JSON form, when made already)."""
        iid, result = ended.interaction_id, ended.result
        self._records.pop(iid, None)
        of_run = self._by_run.get(ended.request.turn_id, {})
        of_run.pop(iid, None)
        if not of_run:
            self._by_run.pop(ended.request.turn_id, None)
        self.stop_timers(iid)
        future = self._futures.pop(iid, None)
        if future is not None and not future.done() and result is not None:
            future.set_result(result)
        self.announce_ended(ended, document)

    def announce_created(self, record: InteractionRecord) -> None:
        if self.bus is not None and self.bus.listened:  # (the record dumped only for someone)
            self.bus.publish(
                InteractionCreated,
                record.request.turn_id,
                interaction_id=record.interaction_id,
                kind=record.request.kind,
                record=record.model_dump(mode="json"),
            )

    def announce_ended(self, record: InteractionRecord, document: dict[str, Any] | None = None) -> None:
        """Say that `record` ended (`document`: its JSON form, made already: the stored one, shared)."""
        if self.bus is not None and self.bus.listened:  # (closing with thousands waiting, nobody may listen)
            result = record.result
            self.bus.publish(
                InteractionEnded,
                record.request.turn_id,
                interaction_id=record.interaction_id,
                status=record.status,
                reason=result.reason if isinstance(result, CancelledResult) else None,
                auto=record.auto,
                record=record.model_dump(mode="json") if document is None else document,
            )


# A model's parts set through the slots pydantic's BaseModel declares for them (`Waiting.ended`, as
# `gui.core.runs.records` makes a tool's record).
_new = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_ENDED_NAMES = frozenset({"status", "result", "resolved_at"})  # the fields an end gives (`Waiting.ended`)

# The sets of field names given, one per shape (`_share_names`): a few dozen at most, kept to this bound.
_NAMES: dict[frozenset[str], set[str]] = {}
_MOST_SHAPES = 256


def _share_names(*models: BaseModel) -> None:
    """Give each of these frozen models the one set of its given field names (`model_fields_set`) every
    model given the same names shares. pydantic makes each model a set of its own: 0.2 KB up to 4
    names, 0.7 KB up to 18, 2.2 KB past 18 (a team's request: who answers, the host, who started the
    run, when it ends), of a waiting request's 14 KB. pydantic changes that set only as a field is
    assigned (refused on a frozen model) and in `model_copy`, which copies it first: shared, it never
    changes. The values, and what is stored, are the model's as they were."""
    for model in models:
        if not type(model).model_config.get("frozen"):
            continue
        names = model.__pydantic_fields_set__
        key = frozenset(names)
        shared = _NAMES.get(key)
        if shared is None:
            if len(_NAMES) >= _MOST_SHAPES:
                continue
            shared = _NAMES.setdefault(key, set(key))
        object.__setattr__(model, "__pydantic_fields_set__", shared)
