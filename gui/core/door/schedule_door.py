"""The schedule operations of the door (`Operations`), as the engine implements them.

A mixin of `Engine`, so that the engine's module stays one concept: it needs the engine's catalog,
runner, bus and schedule store. The scheduler runs only in the app (`start_schedules`): the CLI
and `seqdesk mcp` open the same engine on the data folder when the app is closed, and must not run
a schedule behind the person's back.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from gui.core.door.documents import NotFoundError
from gui.core.events import SettingsChanged
from gui.core.runs import Origin, RunRecord, Schedule, ScheduleInvalid, Scheduler, make_schedule, next_time

MAX_SCHEDULES = 100  # a bound on what a script could pile up

if TYPE_CHECKING:
    from gui.core.door.catalog import Catalog
    from gui.core.events import EventBus
    from gui.core.runs import Executor, ScheduleStore


class ScheduleDoor:
    catalog: Catalog
    runner: Executor
    bus: EventBus
    schedules: ScheduleStore
    _scheduler: Scheduler | None = None
    _scheduler_task: asyncio.Task[None] | None = None

    @property
    def scheduler(self) -> Scheduler:
        if self._scheduler is None:
            self._scheduler = Scheduler(self.schedules, self._scheduled_run,
                                        lambda run_id: self.runner.snapshot(run_id) is not None)
        return self._scheduler

    async def _tools_ready(self) -> None:
        """The engine's own: MCP servers still connecting at start-up are waited for (bounded)."""

    async def _scheduled_run(self, schedule: Schedule, note: str | None) -> RunRecord:
        await self._tools_ready()  # a turn missed while the app was closed runs right at start-up
        sequence = await self.catalog.get(schedule.sequence)
        if sequence is None:
            raise NotFoundError(f"there is no saved sequence named '{schedule.sequence}' any more")
        origin = Origin(schedule_id=schedule.schedule_id,
                        note=note or f"started by a schedule ({schedule.when_words()})")
        return await self.runner.start(sequence, schedule.args, origin=origin)

    async def list_schedules(self) -> list[Schedule]:
        return await self.schedules.list()

    async def create_schedule(self, sequence: Any, args: Any = None, every: Any = None, cron: Any = None) -> Schedule:
        """Save a schedule for a saved sequence with fixed args (`every` "15m", or `cron`);
        ScheduleInvalid naming each field at fault, and then nothing is stored."""
        found = await self.catalog.get(sequence) if isinstance(sequence, str) and sequence else None
        schedule = make_schedule(found, sequence, args, every, cron, self.scheduler.clock())
        if len(await self.schedules.list()) >= MAX_SCHEDULES:
            raise ScheduleInvalid({"sequence": f"there are {MAX_SCHEDULES} schedules already: delete one first"})
        await self.schedules.save(schedule)
        self._schedules_changed(schedule.schedule_id, "added")
        return schedule

    async def pause_schedule(self, schedule_id: str, paused: bool = True) -> Schedule:
        """Pause (or go on with) a schedule; LookupError for an unknown id. Going on computes the
        next turn from now: what came due while paused is not made up."""
        schedule = await self.schedules.get(schedule_id)
        if schedule is None:
            raise LookupError(f"there is no schedule {schedule_id}")
        if schedule.paused != paused:
            schedule.paused = paused
            if not paused:
                schedule.next_at = next_time(schedule, self.scheduler.clock())
            await self.schedules.save(schedule)
            self._schedules_changed(schedule_id, "paused" if paused else "resumed")
        return schedule

    async def delete_schedule(self, schedule_id: str) -> bool:
        deleted = await self.schedules.delete(schedule_id)
        if deleted:
            self._schedules_changed(schedule_id, "deleted")
        return deleted

    def _schedules_changed(self, schedule_id: str, what: str) -> None:
        self.scheduler.changed.set()
        self.bus.publish(SettingsChanged, setting="schedule", details={"schedule_id": schedule_id, "change": what})

    def start_schedules(self) -> None:
        """Run the schedules from now on (the app does, while it is open): a turn missed while it was
        closed runs once, now."""
        if self._scheduler_task is None:
            self._scheduler_task = asyncio.get_running_loop().create_task(self.scheduler.run_forever(),
                                                                          name="schedules")

    async def stop_schedules(self) -> None:
        task, self._scheduler_task = self._scheduler_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
