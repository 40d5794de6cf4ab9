"""Leases of running runs on a shared database: while a process runs a run it renews the run's lease;
a run whose process is gone (its lease expired) is taken over by one other process, which marks it
interrupted and cancels what it still asked, instead of every process ending every running run at
start-up as a lone process on a data folder does. A run someone pressed Stop for before its process
died (the claim is on its row: `gui.pgstore.stops`) is ended as stopped by them, not interrupted.

The commands a run had started are not killed here: they ran on the machine of the process that is
gone, which may not be this one. What of the run goes on outside any process (on Temporal: its
workflow, its steps on hosts) is ended first (`Executor.end_left`), so the record that says
interrupted is true: nothing of the run goes on with no process holding it.

A process that merely stopped renewing (paused, or cut off for longer than a lease) and comes back
finds, on its next turn, the runs that were taken over meanwhile (their epoch moved on: `PgRunStore`)
and stops its copies of them, writing nothing more of them (`Executor.abandon`); any write of them
it tries first is refused anyway. Each turn also stops the runs a Stop was claimed for elsewhere
(`gui.pgstore.stops`), should their notice have been missed.
"""

from __future__ import annotations

import asyncio
import logging

from gui.core.causes import CancelReason, EndCause
from gui.core.door import Engine
from gui.core.events import RunFinished
from gui.core.runs import interrupt, stop_left
from gui.pgstore.runs import PgRunStore
from gui.pgstore.stops import StopsHeard

log = logging.getLogger(__name__)

LEASE = 30.0  # seconds a run's lease lasts without renewal


async def take_over_expired(engine: Engine, runs: PgRunStore, lease: float = LEASE) -> list[str]:
    """End the runs whose lease expired (this process took them over): interrupted, or stopped when a
    Stop was claimed for them; their pending requests cancelled; their ids."""
    taken = await runs.take_over_expired(lease)
    for over in taken:
        record = over.record
        why = (f"SeqDesk process {runs.holder} took run {record.run_id} over to end it: the process that ran it "
               f"stopped renewing its lease for {lease:g} s")
        try:
            await engine.runner.end_left(record, why)
        except Exception as exc:  # its work cannot go on anyway: written for no one, its writes are refused
            log.warning("could not end what still went on of run %s: %s", record.run_id, exc)
        reason: CancelReason = "turn_stopped" if over.stop is not None else "runtime_interrupted"
        cause: EndCause = over.stop[0] if over.stop is not None else "app_stopped"
        for pending in await engine.interactions.pending(record.run_id):
            await engine.interactions.cancel(pending.interaction_id, reason, cause)
        if over.stop is not None:
            stop_left(record, *over.stop)
        else:
            interrupt(record, None)
        await runs.save(record)
        engine.bus.publish(RunFinished, record.run_id, sequence=record.sequence, status=record.status,
                           error=record.error, outputs=record.outputs, cause=record.cause)
    return [over.record.run_id for over in taken]


async def stop_lost(engine: Engine, runs: PgRunStore) -> list[str]:
    """Stop this process's copies of the runs another process took over meanwhile; their ids."""
    lost = await runs.lost_leases()
    for run_id in lost:
        runs.held.pop(run_id, None)
        await engine.runner.abandon(run_id)
    return lost


class Leases:
    """Renews this process's leases every `lease / 3` seconds, stops its copies of runs it lost, takes
    over expired ones, and stops the runs a Stop was claimed for elsewhere (`stops`)."""

    def __init__(self, engine: Engine, runs: PgRunStore, lease: float = LEASE, stops: StopsHeard | None = None) -> None:
        self._engine, self._runs, self.lease, self._stops = engine, runs, lease, stops
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._keep())

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(self.lease / 3)  # the pace of renewals, not a wait for an event
            try:
                await self._runs.renew_leases()
                lost = await stop_lost(self._engine, self._runs)
                if lost:
                    log.warning("runs another process took over while this one did not renew their leases were "
                                "stopped here: %s", ", ".join(lost))
                taken = await take_over_expired(self._engine, self._runs, self.lease)
                if taken:
                    log.warning("runs whose process is gone were marked interrupted: %s", ", ".join(taken))
                if self._stops is not None:
                    await self._stops.sweep()
            except Exception as exc:  # the database is away for now: the next turn tries again
                log.warning("could not renew the leases of running runs: %s", exc)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
