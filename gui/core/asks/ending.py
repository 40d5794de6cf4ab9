"""How requests end that nobody answered: a run stopped (each request of it cancelled, with what
stopped it), many runs ended at once (closing with thousands waiting: one write), every request this
process waits on (the app closing), and what a dead process left pending (`recover`, at start-up).

Every end is stored first (`Waiting.end`, with its entry in the record of decisions) and only then
reaches the waiting tool and the bus, as an answer's does. `InteractionService` holds one `Ending`
beside its other collaborators and offers its calls as its own (`cancel_run`, `cancel_all`, ...).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from gui.core.asks.failures import InteractionNotFoundError, InteractionNotPendingError
from gui.core.asks.interactions import CancelledResult, InteractionRecord
from gui.core.asks.store import InteractionStore
from gui.core.asks.waiting import Waiting
from gui.core.causes import REASON_CAUSES, CancelReason, EndCause, reason_for


class Ending:
    """The ends of requests nobody answered, with their causes, for the service that holds `waiting`."""

    def __init__(self, waiting: Waiting, store: InteractionStore) -> None:
        self.waiting = waiting
        self.store = store
        self._ending: dict[str, EndCause] = {}  # run id -> what is ending it (`note_ending`)

    async def _pending(self) -> list[InteractionRecord]:
        return await self.store.list("pending")

    def note_ending(self, run_id: str, cause: EndCause | None) -> None:
        """`run_id` is being ended by `cause` (None: forget it, the run has ended): a request of that
        run cancelled from now on records that cause, whoever cancels it (the runner, or a form handler
        whose wait was cut short)."""
        if cause is None:
            self._ending.pop(run_id, None)
        else:
            self._ending[run_id] = cause

    async def cancel(self, interaction_id: str, reason: CancelReason, cause: EndCause | None = None) -> bool:
        """Cancel one interaction; False when it had already ended. `cause` says what ended it; when
        not given, what `reason` alone tells (the app closing...), else what is ending its run
        (`note_ending`); a `turn_stopped` then becomes the reason of that cause."""
        async with self.waiting.lock(interaction_id):
            record = self.waiting.get(interaction_id) or await self.store.get(interaction_id)
            if record is None:
                raise InteractionNotFoundError(f"there is no interaction {interaction_id}", interaction_id)
            if record.status != "pending":
                return False
            try:
                await self.waiting.end(record, self._cancelled(record, reason, cause))
            except InteractionNotPendingError:  # ended meanwhile by another process sharing the store
                stored = await self.store.get(interaction_id)
                if stored is not None and interaction_id in self.waiting:
                    self.waiting.settle(stored)
                return False
        return True

    def _cancelled(self, record: InteractionRecord, reason: CancelReason, cause: EndCause | None) -> CancelledResult:
        """The end of a cancelled request: `cause` when given, else what `reason` alone tells, else what
        is ending its run (`note_ending`); a `turn_stopped` then becomes the reason of that cause."""
        cause = cause or REASON_CAUSES.get(reason) or self._ending.get(record.request.turn_id)
        if cause is not None and reason == "turn_stopped":
            reason = reason_for(cause)
        return CancelledResult(interaction_id=record.interaction_id, reason=reason, cause=cause)

    async def cancel_run(self, run_id: str, reason: CancelReason = "turn_stopped",
                         cause: EndCause | None = None) -> list[str]:
        """Cancel every pending interaction of a run; returns the ids it cancelled. A run asks through
        the service that runs it, so they are the ones this service waits for: found without reading
        every pending request (closing with thousands of runs waiting did that once per run)."""
        return [iid for iid in self.waiting.of_run(run_id) if await self.cancel(iid, reason, cause)]

    async def cancel_runs(self, runs: Mapping[str, EndCause | None], reason: CancelReason = "turn_stopped") -> None:
        """`cancel_run` of many runs at once (closing with thousands waiting), each with its cause:
        their requests are stored in one write, then their tools woken and the ends announced, in order.
        A request someone is answering right now (its lock is held) goes the one-by-one way after."""
        taken: list[tuple[InteractionRecord, CancelledResult]] = []
        held: list[asyncio.Lock] = []
        busy: list[tuple[str, EndCause | None]] = []
        for run_id, given in runs.items():
            for iid in self.waiting.of_run(run_id):
                lock = self.waiting.lock(iid)
                record = self.waiting.get(iid)
                if lock.locked() or record is None:
                    busy.append((iid, given))
                    continue
                await lock.acquire()  # free: taken at once, without a turn of the loop
                held.append(lock)
                taken.append((record, self._cancelled(record, reason, given)))
        try:
            try:
                await self.waiting.end_all(taken)
            except InteractionNotPendingError:  # another process sharing the store ended one: one by one
                busy.extend((record.interaction_id, result.cause) for record, result in taken)
        finally:
            for (record, _), lock in zip(taken, held, strict=True):
                self.waiting.drop_lock(record.interaction_id, lock)  # safe: every holder re-reads the status
                lock.release()
        for iid, given in busy:
            await self.cancel(iid, reason, given)

    async def cancel_all(self, reason: CancelReason, cause: EndCause | None = None,
                         keep: frozenset[str] = frozenset()) -> None:
        """Cancel every pending request; on a store other processes share (`shared`), only the ones
        this process waits on: the others' requests are theirs. `keep`: runs that go on without this
        process (on a durable executor): their requests stay for the person to answer."""
        for record in self.waiting.records() if self.waiting.shared else await self._pending():
            if record.request.turn_id not in keep:
                await self.cancel(record.interaction_id, reason, cause)
            else:  # it stays: its follow-ups and end are not planned here any more (the leader's, `watch_all`)
                self.waiting.stop_timers(record.interaction_id)

    async def recover(self, keep: frozenset[str] = frozenset()) -> list[str]:
        """At start-up: cancel what a dead process left pending; returns the runs it touched. `keep`:
        runs still going on (on a durable executor): their requests are still waited for."""
        runs: list[str] = []
        for record in await self._pending():
            if self.waiting.awaited(record.interaction_id) or record.request.turn_id in keep:
                continue  # ours, alive, or a request a run going on still waits for: not left by the dead
            if await self.cancel(record.interaction_id, "runtime_interrupted", "app_stopped"):
                if record.request.turn_id not in runs:
                    runs.append(record.request.turn_id)
        return runs
