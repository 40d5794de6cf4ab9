"""The schedules of the door: saving, pausing and deleting them, and the loop that starts their runs.

`ScheduleBook` is a collaborator the engine holds and delegates its schedule operations to (as it
holds a `RuleBook` for the approval rules): it needs the schedule store, the catalog (a schedule names
a saved sequence), the runner and the bus. The loop runs only in the app (`start`): the CLI and
`seqdesk mcp` open the same engine on the data folder when the app is closed, and must not run a
schedule behind the person's back.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from gui.core.door.catalog import Catalog
from gui.core.door.documents import NotFoundError
from gui.core.events import EventBus, SettingsChanged
from gui.core.runs import (
    Executor,
    Origin,
    RunRecord,
    Schedule,
    ScheduleInvalid,
    Scheduler,
    ScheduleStore,
    make_schedule,
    next_time,
)

MAX_SCHEDULES = 100  # a bound on what a script could pile up


class ScheduleBook:
    def __init__(self, store: ScheduleStore, catalog: Catalog, runner: Executor, bus: EventBus,
                 ready: Callable[[], Awaitable[None]]) -> None:
        self.store = store
        self.catalog = catalog
        self.runner = runner
        self.bus = bus
        self.ready = ready  # the engine's wait for tools still arriving (MCP servers at start-up)
        self.scheduler = Scheduler(store, self._run, lambda run_id: runner.snapshot(run_id) is not None)
        self._task: asyncio.Task[None] | None = None

    async def _run(self, schedule: Schedule, note: str | None) -> RunRecord:
        await self.ready()  # a turn missed while the app was closed runs right at start-up
        sequence = await self.catalog.get(schedule.sequence)
        if sequence is None:
            raise NotFoundError(f"there is no saved sequence named '{schedule.sequence}' any more")
        origin = Origin(schedule_id=schedule.schedule_id,
                        note=note or f"started by a schedule ({schedule.when_words()})")
        return await self.runner.start(sequence, schedule.args, origin=origin)

    async def list(self) -> list[Schedule]:
        return await self.store.list()

    async def create(self, sequence: Any, args: Any = None, every: Any = None, cron: Any = None) -> Schedule:
        """Save a schedule for a saved sequence with fixed args (`every` "15m", or `cron`);
        ScheduleInvalid naming each field at fault, and then nothing is stored."""
        found = await self.catalog.get(sequence) if isinstance(sequence, str) and sequence else None
        schedule = make_schedule(found, sequence, args, every, cron, self.scheduler.clock())
        if len(await self.store.list()) >= MAX_SCHEDULES:
            raise ScheduleInvalid({"sequence": f"there are {MAX_SCHEDULES} schedules already: delete one first"})
        await self.store.save(schedule)
        self._changed(schedule.schedule_id, "added")
        return schedule

    async def pause(self, schedule_id: str, paused: bool = True) -> Schedule:
        """Pause (or go on with) a schedule; LookupError for an unknown id. Going on computes the
        next turn from now: what came due while paused is not made up."""
        schedule = await self.store.get(schedule_id)
        if schedule is None:
            raise LookupError(f"there is no schedule {schedule_id}")
        if schedule.paused != paused:
            schedule.paused = paused
            if not paused:
                schedule.next_at = next_time(schedule, self.scheduler.clock())
            await self.store.save(schedule)
            self._changed(schedule_id, "paused" if paused else "resumed")
        return schedule

    async def delete(self, schedule_id: str) -> bool:
        deleted = await self.store.delete(schedule_id)
        if deleted:
            self._changed(schedule_id, "deleted")
        return deleted

    def _changed(self, schedule_id: str, what: str) -> None:
        self.scheduler.changed.set()
        self.bus.publish(SettingsChanged, setting="schedule", details={"schedule_id": schedule_id, "change": what})

    def start(self) -> None:
        """Run the schedules from now on (the app does, while it is open): a turn missed while it was
        closed runs once, now."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.scheduler.run_forever(), name="schedules")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
