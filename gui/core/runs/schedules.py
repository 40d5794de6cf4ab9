"""Schedules: a saved sequence run with fixed args, every N minutes or hours, or by a cron expression.

Pure core: the clock and the run starter are handed in, the schedules live behind a store port
(TinyDB in the app, `gui.memory` in tests). Schedules run only while the app is open
(`Scheduler.run_forever`); a turn missed while it was closed is run once at start-up, said so in
the run's record, and never as a burst: after any turn the next one is computed from now. A turn
whose previous run still runs is skipped, and the skip is recorded. A scheduled run is a run like
any other: its risky steps ask in the inbox, unless a rule the person made allows them.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from gui.core.causes import EndCause
from gui.core.errors import Invalid
from gui.core.marks import N_
from gui.core.runs.records import RunRecord
from gui.core.sequences import (
    DslError,
    RunArgsError,
    Sequence,
    SlotType,
    check_args,
    format_duration,
    parse_duration,
    signature_of,
)

log = logging.getLogger(__name__)

MIN_INTERVAL = 10.0
KEPT_TURNS = 20
MAX_WAIT = 60.0  # the loop looks again at least this often (the clock may have jumped)
TurnOutcome = Literal["started", "skipped", "failed"]


class ScheduleTurn(BaseModel):
    """One moment a schedule came due: the run it started, or why it did not start one."""

    at: float
    outcome: TurnOutcome
    run_id: str | None = None
    detail: str | None = None
    cause: EndCause | None = None  # why it started no run, when a cause says it (`gui.core.causes`)


class Schedule(BaseModel):
    schedule_id: str
    sequence: str
    args: dict[str, Any] = Field(default_factory=dict)
    every: float | None = None  # seconds between turns
    cron: str | None = None
    paused: bool = False
    created_at: float
    next_at: float  # when it comes due next (epoch seconds)
    turns: list[ScheduleTurn] = Field(default_factory=list)  # the latest, newest last

    @property
    def last(self) -> ScheduleTurn | None:
        return self.turns[-1] if self.turns else None

    def when_words(self) -> str:
        """How often, in words: "every 15m", "at set times (*/15 * * * *)"."""
        return f"every {format_duration(self.every)}" if self.every is not None else f"at set times ({self.cron})"


class ScheduleInvalid(Invalid):
    """A schedule that cannot be made; `fields` maps each field at fault to what is wrong with it
    (the message says so too, unless it is given)."""

    code = "invalid-schedule"

    def __init__(self, fields: dict[str, str], message: str | None = None) -> None:
        self.fields = fields
        super().__init__(message or "; ".join(f"{name}: {why}" for name, why in fields.items()))


class ScheduleStore(Protocol):
    async def list(self) -> builtins.list[Schedule]: ...

    async def get(self, schedule_id: str) -> Schedule | None: ...

    async def save(self, schedule: Schedule) -> None: ...

    async def delete(self, schedule_id: str) -> bool: ...


def next_time(schedule: Schedule, after: float) -> float:
    """The first moment after `after` that the schedule comes due (cron times are the machine's)."""
    if schedule.every is not None:
        passed = max(0, int((after - schedule.created_at) // schedule.every) + 1)
        return schedule.created_at + passed * schedule.every
    assert schedule.cron is not None
    from croniter import croniter  # here: its import runs `file` on Python's executable (its bitness)

    base = datetime.fromtimestamp(after).astimezone()
    return float(croniter(schedule.cron, base).get_next(float))


def _cron_valid(cron: str) -> bool:
    """A cron expression of five fields that croniter reads (imported only once a schedule uses cron:
    its import runs the `file` program on Python's executable, at every app's and command's start)."""
    from croniter import croniter

    return len(cron.split()) == 5 and bool(croniter.is_valid(cron))


def make_schedule(sequence: Sequence | None, name: Any, args: Any, every: Any, cron: Any, now: float) -> Schedule:
    """A new schedule, checked field by field; ScheduleInvalid names every field at fault."""
    problems: dict[str, str] = {}
    if not isinstance(name, str) or not name:
        problems["sequence"] = "name a saved sequence"
    elif sequence is None:
        problems["sequence"] = f"there is no saved sequence named '{name}'"
    if args is None:
        args = {}
    if sequence is not None:
        inputs = signature_of(sequence).inputs
        try:
            args = check_args(inputs, args)
        except RunArgsError as exc:
            problems["args"] = "; ".join(exc.problems)
        problems.update(blank_inputs(inputs, args))
    seconds: float | None = None
    if (every is None) == (cron is None):
        problems["every"] = 'give either "every" (like "15m") or "cron" (like "*/15 * * * *"), not both'
    elif every is not None:
        if not isinstance(every, str):
            problems["every"] = 'write how often as text, like "30s", "15m" or "2h"'
        else:
            try:
                seconds = parse_duration(every)
            except ValueError as exc:
                problems["every"] = str(exc).replace("a time limit", "an interval")
            else:
                if seconds < MIN_INTERVAL:
                    problems["every"] = f"'{every}' is too often: a schedule runs at most every {MIN_INTERVAL:g}s"
    elif not isinstance(cron, str) or not _cron_valid(cron):
        problems["cron"] = (f"{cron!r} is not a cron expression: write five fields (minute hour day month weekday), "
                            'like "*/15 * * * *" or "0 9 * * 1-5"')
    if problems:
        raise ScheduleInvalid(problems)
    assert isinstance(name, str)
    schedule = Schedule(schedule_id=uuid.uuid4().hex[:12], sequence=name, args=args, every=seconds,
                        cron=cron if seconds is None else None, created_at=now, next_at=now)
    schedule.next_at = next_time(schedule, now)
    return schedule


# A schedule runs with nobody there: a text input left blank would run with nothing in it.
BLANK_INPUT = N_("is empty, and a schedule runs with nobody there to fill it in: give it a value")


def blank_inputs(inputs: Mapping[str, SlotType], args: Any) -> dict[str, str]:
    """`args.<name>` → why, for each text input whose value is empty or only spaces."""
    if not isinstance(args, dict):
        return {}
    return {f"args.{name}": BLANK_INPUT for name, slot_type in inputs.items()
            if slot_type is SlotType.STRING and isinstance(args.get(name), str) and not args[name].strip()}


StartRun = Callable[[Schedule, str | None], Awaitable[RunRecord]]


class Scheduler:
    """Starts each schedule's runs when they come due (`tick`), and keeps doing so (`run_forever`)."""

    def __init__(self, store: ScheduleStore, start_run: StartRun, is_running: Callable[[str], bool], *,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.start_run = start_run
        self.is_running = is_running
        self.clock = clock
        self.changed = asyncio.Event()
        self._lock = asyncio.Lock()

    async def tick(self, *, at_start_up: bool = False) -> list[tuple[Schedule, ScheduleTurn]]:
        """Take every turn that is due now, once; `at_start_up`: those turns were missed while the
        app was closed. Returns the turns taken."""
        taken = []
        async with self._lock:
            now = self.clock()
            for schedule in await self.store.list():
                if schedule.paused or schedule.next_at > now:
                    continue
                turn = await self._turn(schedule, now, at_start_up)
                schedule.turns = [*schedule.turns, turn][-KEPT_TURNS:]
                schedule.next_at = next_time(schedule, now)  # from now: missed turns are not made up
                await self.store.save(schedule)
                taken.append((schedule, turn))
        return taken

    async def _turn(self, schedule: Schedule, now: float, missed: bool) -> ScheduleTurn:
        last = next((t for t in reversed(schedule.turns) if t.run_id), None)
        if last is not None and last.run_id is not None and self.is_running(last.run_id):
            return ScheduleTurn(at=now, outcome="skipped", run_id=None, cause="schedule_busy",
                                detail=f"skipped: the previous run ({last.run_id}) is still running")
        note = None
        if missed:
            due = datetime.fromtimestamp(schedule.next_at).strftime("%Y-%m-%d %H:%M")
            note = (f"started by a schedule ({schedule.when_words()}) at start-up: its turn at {due} was missed "
                    "while the app was closed, so it runs once now")
        try:
            record = await self.start_run(schedule, note)
        except DslError as exc:  # it is over the size limits (saved before there were any)
            return ScheduleTurn(at=now, outcome="failed", detail=f"could not start: {exc.errors[0].message}")
        except (LookupError, ValueError) as exc:  # the sequence was deleted, or its inputs changed
            return ScheduleTurn(at=now, outcome="failed", detail=f"could not start: {exc}")
        return ScheduleTurn(at=now, outcome="started", run_id=record.run_id, detail=note)

    async def wait(self) -> None:
        """Until the next schedule comes due (or one was changed), at most MAX_WAIT."""
        self.changed.clear()
        pending = [s.next_at for s in await self.store.list() if not s.paused]
        delay = min([MAX_WAIT, *(t - self.clock() for t in pending)])
        try:
            await asyncio.wait_for(self.changed.wait(), max(0.0, delay))
        except TimeoutError:
            pass

    async def run_forever(self) -> None:
        """While the app is open: the missed turns once at start-up, then each turn when it is due."""
        at_start_up = True
        while True:
            try:
                await self.tick(at_start_up=at_start_up)
            except Exception:  # a store failure must not end the schedules for the session
                log.exception("a schedule could not be run")
            at_start_up = False
            await self.wait()
