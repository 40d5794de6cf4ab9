"""The door runs over any `Executor` it is given: here one that runs nothing, in memory, so every
operation on runs is seen to ask only the seam (start, wait, stop, stop_all, snapshot, active ids)."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import pytest
from support.builders import seq
from support.waiting import within

from gui.core.asks import InteractionService
from gui.core.causes import EndCause
from gui.core.door import Engine
from gui.core.door.catalog import Catalog
from gui.core.events import EventBus
from gui.core.runs import Executor, Origin, ResumeRefused, RunRecord, RunStore
from gui.core.sequences import Group, Sequence
from gui.core.tools import Registry
from gui.memory import MemoryStores
from gui.tools import builtin_tools


class InMemoryExecutor:
    """Runs nothing: a run stays running until the test ends it (`finish`) or the door stops it."""

    def __init__(self, runs: RunStore) -> None:
        self.runs = runs
        self.origins: dict[str, Origin | None] = {}
        self.started: asyncio.Queue[str] = asyncio.Queue()
        self._live: dict[str, RunRecord] = {}
        self._ended: dict[str, asyncio.Event] = {}

    async def start(self, sequence: Sequence, args: dict[str, Any], *, group: Group | None = None,
                    origin: Origin | None = None) -> RunRecord:
        run_id = origin.run_id if origin is not None and origin.run_id else uuid.uuid4().hex[:12]
        record = RunRecord(run_id=run_id, sequence=sequence.name,
                           target=group.name if group is not None else None, args=dict(args), created_at=time.time())
        if origin is not None and origin.plan is not None:
            record.attempt, record.resumed_from = origin.plan.previous.attempt + 1, origin.plan.previous.run_id
        self.origins[record.run_id] = origin
        self._live[record.run_id], self._ended[record.run_id] = record, asyncio.Event()
        await self.runs.save(record)
        self.started.put_nowait(record.run_id)
        return record.model_copy(deep=True)

    async def finish(self, run_id: str, status: Any = "succeeded", outputs: dict[str, Any] | None = None,
                     cause: EndCause | None = None) -> None:
        record = self._live.pop(run_id)
        record.status, record.outputs, record.cause, record.finished_at = status, outputs or {}, cause, time.time()
        await self.runs.save(record)
        self._ended[run_id].set()

    async def wait(self, run_id: str, timeout: float | None = None) -> RunRecord:
        if run_id in self._live:
            await asyncio.wait_for(self._ended[run_id].wait(), timeout)
        record = await self.runs.get(run_id)
        if record is None:
            raise LookupError(f"there is no run {run_id}")
        return record

    async def stop(self, run_id: str, cause: EndCause | None = "person") -> bool:
        if run_id not in self._live:
            return False
        await self.finish(run_id, "stopped", cause=cause)
        return True

    async def stop_all(self, cause: EndCause) -> None:
        for run_id in list(self._live):
            await self.stop(run_id, cause)

    def snapshot(self, run_id: str) -> RunRecord | None:
        record = self._live.get(run_id)
        return record.model_copy(deep=True) if record is not None else None

    def active_ids(self) -> list[str]:
        return list(self._live)


def engine_over_memory() -> tuple[Engine, InMemoryExecutor]:
    """The engine composed by hand, as `gui.runtime.compose_engine` does, with the in-memory executor."""
    registry, stores, bus = Registry(builtin_tools()), MemoryStores(), EventBus()
    executor = InMemoryExecutor(stores.runs)
    seam: Executor = executor  # what a type checker says of it: an Executor
    engine = Engine(registry=registry, catalog=Catalog(stores.sequences, registry, bus),
                    interactions=InteractionService(stores.interactions, bus, modes=stores.modes), runner=seam,
                    runs=stores.runs, schedules=stores.schedules, bus=bus)
    return engine, executor


async def test_a_run_started_through_the_door_is_followed_found_and_paged_as_the_executor_holds_it():
    engine, executor = engine_over_memory()
    await engine.create(seq())
    run = await engine.start("s", {})
    assert run.status == "running" and executor.active_ids() == [run.run_id]
    assert (await engine.get_run(run.run_id)).status == "running"
    assert (await engine.find_run(run.run_id[:8])).run_id == run.run_id
    assert [r.run_id for r in await engine.list_runs()] == [run.run_id]
    await executor.finish(run.run_id, outputs={"x": 1})
    ended = await engine.get_run(run.run_id)
    assert ended.status == "succeeded" and ended.outputs == {"x": 1}


async def test_a_call_through_the_door_waits_for_the_executor_to_end_the_run():
    engine, executor = engine_over_memory()
    await engine.create(seq())
    calling = asyncio.create_task(engine.call("s"))
    run_id = await within(executor.started.get(), "the executor to start the run")
    assert not calling.done()
    await executor.finish(run_id, outputs={"done": True})
    record = await within(calling, "the call's end")
    assert record.run_id == run_id and record.outputs == {"done": True}


async def test_stop_resume_and_close_go_through_the_executor():
    engine, executor = engine_over_memory()
    await engine.create(seq())
    run = await engine.start("s", {})
    with pytest.raises(ResumeRefused, match="still running"):
        await engine.resume(run.run_id)
    assert await engine.stop(run.run_id)
    stopped = await engine.get_run(run.run_id)
    assert (stopped.status, stopped.cause) == ("stopped", "person")
    again = await engine.resume(run.run_id)
    origin = executor.origins[again.run_id]
    assert origin is not None and origin.plan is not None and origin.plan.previous.run_id == run.run_id
    assert (await engine.get_run(run.run_id)).resumed_by == again.run_id
    await engine.close()
    closed = await engine.get_run(again.run_id)
    assert (closed.status, closed.cause, executor.active_ids()) == ("stopped", "app_closed", [])
