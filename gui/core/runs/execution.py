"""One run in progress as the runner holds it, how it came to start, and how its record is saved.

A running run's record is saved at start, at the end, before a tool that changes things starts
(and when it has started a process), when a tool starts waiting for a person, and otherwise at most
every CHECKPOINT_INTERVAL: a crash loses at most that much progress of tools that change nothing,
and a run of many small groups does not rewrite its whole record after every group.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from gui.core.causes import EndCause
from gui.core.runs.records import RunRecord
from gui.core.runs.resume import ResumePlan
from gui.core.runs.store import LeaseLost, RunStore
from gui.core.sequences import Group, Sequence

CHECKPOINT_INTERVAL = 0.5


def copy_record(record: RunRecord) -> RunRecord:
    """A copy that later changes to the live record do not touch. What the runner changes in place
    (the lists of groups, tools, waits and log lines, a group's outputs) is copied; the rest (JSON
    values, progress, process) the runner only ever replaces, so the copy shares it. About 20 times
    faster than a round trip through pydantic, which checked every value again."""
    groups = []
    for grec in record.groups:
        tools = [_shallow(trec, waits=list(trec.waits), log=list(trec.log)) for trec in grec.tools]
        groups.append(_shallow(grec, tools=tools, outputs=dict(grec.outputs)))
    return _shallow(record, groups=groups, outputs=dict(record.outputs))


M = TypeVar("M", bound=BaseModel)


def _shallow(model: M, **changed: Any) -> M:
    """`copy.copy(model)` with some fields `changed`: what pydantic's `__copy__` does for a record
    (no extra fields, no private attributes), without its generic steps (half the time, per tool)."""
    copied = object.__new__(type(model))
    state = model.__dict__.copy()
    state.update(changed)
    object.__setattr__(copied, "__dict__", state)
    object.__setattr__(copied, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    object.__setattr__(copied, "__pydantic_extra__", None)
    object.__setattr__(copied, "__pydantic_private__", None)
    return copied


@dataclass(frozen=True)
class Origin:
    """How a run came to start, when not by a person pressing Run: a schedule, a resume."""

    schedule_id: str | None = None
    note: str | None = None
    plan: ResumePlan | None = None
    run_id: str | None = None  # the new run's id, chosen before (a resume marks the old run with it first)
    started_by: str | None = None  # the signed-in person who started it (a team server)


@dataclass(slots=True)
class Execution:
    record: RunRecord
    sequence: Sequence
    groups: tuple[Group, ...]
    context: dict[str, Any]
    # Each group's step fingerprints (`run_step_fingerprints`), by group and step index (None: its tool
    # did not ask): made once with the run's record, carried by every approval a step asks (what a rule
    # made from it covers).
    steps: tuple[tuple[str | None, ...], ...]
    task: asyncio.Task[RunRecord] | None = None
    # Set once the run has ended and its end is kept (a future: a waiting run keeps no Event's deque).
    done: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    stopping: bool = False
    stop_cause: EndCause | None = None  # what is stopping it, once `stopping`
    stop_by: str | None = None  # where that Stop was pressed, when a team's store says (`RunRecord.stopped_by`)
    fenced: bool = False  # another process took the run over: this copy ends, writing nothing more
    finishing: bool = False
    degraded: bool = False
    save_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    save_task: asyncio.Task[None] | None = None
    last_save: float = 0.0
    began: bool = False  # its task has taken its first step
    ending: Ending | None = None  # `Runner.stop_all` is ending it with others

    def cancel_checkpoint(self) -> None:
        """The run is ending: its final save writes everything a due checkpoint would."""
        if self.save_task is not None and not self.save_task.done():
            self.save_task.cancel()
        self.save_task = None

    async def ended(self) -> None:
        """Wait for the run's end (a waiter cancelled leaves it for the others)."""
        await asyncio.shield(self.done)

    def end(self) -> None:
        if not self.done.done():
            self.done.set_result(None)

    async def save(self, runs: RunStore) -> None:
        """Save the record. Refused because another process took the run over (`LeaseLost`): this copy
        of the run stops (`fence`); inside the run's own task, as if it were cancelled."""
        async with self.save_lock:
            self.last_save = time.monotonic()
            try:
                await runs.save(self.record)
            except LeaseLost:
                self.fence()
                if asyncio.current_task() is self.task and not self.finishing:
                    raise asyncio.CancelledError from None
                raise

    def fence(self) -> None:
        """Another process holds the run now: stop this copy of it (its end is not saved: `Runner._finish`)."""
        self.fenced = self.stopping = True
        current = asyncio.current_task()
        for task in (self.save_task, None if self.finishing else self.task):
            if task is not None and task is not current and not task.done():
                task.cancel()

    async def save_now(self, runs: RunStore) -> None:
        """Save before going on: a tool that changes things is about to start (its start, and every
        group that ended before it, must be on disk before it acts)."""
        if self.save_task is not None and not self.save_task.done():
            self.save_task.cancel()  # this save writes everything a pending one would
        await self.save(runs)

    def checkpoint(self, runs: RunStore, delay: float | None = None) -> None:
        """Save in the background: after `delay` (0: a tool started waiting for a person), by
        default once CHECKPOINT_INTERVAL has passed since the last save. Not once the run is being
        stopped or is ending: its final save comes, and is never cut short."""
        if self.stopping or self.finishing:
            return
        if self.save_task is not None and not self.save_task.done():
            return  # a save is already due; it will write the record as it is then
        wait = max(0.0, self.last_save + CHECKPOINT_INTERVAL - time.monotonic()) if delay is None else delay

        async def later() -> None:
            if wait:
                await asyncio.sleep(wait)  # the checkpoint interval, not a wait for an event
            await self.save(runs)

        self.save_task = asyncio.get_running_loop().create_task(later())
        self.save_task.add_done_callback(self._saved)

    def _saved(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled():
            task.exception()  # a failed checkpoint is retried by the next save, not reported twice
        if self.save_task is task:
            self.save_task = None  # a waiting run keeps no finished task


class Ending:
    """The runs `Runner.stop_all` ends together: each arrives once its record is settled, and its task
    ends there; `stop_all` keeps the ends of each turn's arrivals (their requests cancelled, their
    records saved) and announces them (`Execution.done`: what `Runner.wait` and a second Stop await).
    A run's task waits for nothing after it arrived: no future and no turn of the loop per run, and
    nothing left to cut short in it (its end is kept by `stop_all` whatever happens to its task)."""

    def __init__(self) -> None:
        self.expected = 0
        self._arrived: list[Execution] = []
        self._some = asyncio.Event()

    def arrive(self, ex: Execution) -> None:
        self._arrived.append(ex)
        self._some.set()

    async def next_turn(self) -> list[Execution]:
        """The runs arrived so far, once some have; those arriving in the same turns of the loop come
        together (their tasks unwind side by side)."""
        await self._some.wait()
        while True:
            count = len(self._arrived)
            await asyncio.sleep(0)  # one turn of the loop: let the runs unwinding now arrive
            if len(self._arrived) == count:
                break
        arrived, self._arrived = self._arrived, []
        self._some.clear()
        self.expected -= len(arrived)
        return arrived


class SideBySide:
    """A gathered group's tool calls, each in a task of its own once it waits: they are counted in as
    they start (`starting`) and count themselves out as they end (`ended`); the group is settled once
    all have started (`all_started`) and ended, or once one failed so that the group aborts. Made for
    the common case (every call ends by itself) to cost less per task than `asyncio.gather`, and
    nothing more when every call ended as it started (no future to wait on: `waiter`)."""

    __slots__ = ("tasks", "settled", "_left", "_started", "_waiter")

    def __init__(self) -> None:
        self.tasks: list[asyncio.Task[None]] = []
        self.settled = False
        self._left = 0
        self._started = False
        self._waiter: asyncio.Future[None] | None = None

    def starting(self) -> None:
        self._left += 1

    def all_started(self) -> None:
        self._started = True
        if self._left == 0:
            self._settle()

    def ended(self) -> None:
        self._left -= 1
        if self._left == 0 and self._started:
            self._settle()

    def abort(self, failed: asyncio.Task[Any] | None) -> None:
        """A call failed and the group aborts: every other call is cancelled (a task cancelled before
        its first step never counts itself out: `unsettled` tells the group to wait for them all)."""
        for task in self.tasks:
            if task is not failed:
                task.cancel()
        self._settle()

    def waiter(self) -> asyncio.Future[None]:
        """What the group awaits until it is settled (made only when it is not yet)."""
        if self._waiter is None:
            self._waiter = asyncio.get_running_loop().create_future()
            if self.settled:
                self._waiter.set_result(None)
        return self._waiter

    def _settle(self) -> None:
        self.settled = True
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def unsettled(self) -> bool:
        """Whether some calls may not have ended: the group aborted, or its task was cancelled."""
        return self._left > 0


def apply_plan(record: RunRecord, plan: ResumePlan) -> None:
    """Put what the plan keeps from the previous attempt into the new record."""
    previous = plan.previous
    record.attempt, record.resumed_from = previous.attempt + 1, previous.run_id
    record.schedule_id = record.schedule_id or previous.schedule_id
    for kept in plan.kept[:len(record.groups)]:
        record.groups[kept.index] = kept
    if plan.first < len(record.groups):
        grec = record.groups[plan.first]
        for index, tool in plan.tools.items():
            if index < len(grec.tools) and grec.tools[index].tool == tool.tool:
                grec.tools[index] = tool

