"""A gathered group's calls started at once (`gui.core.runs.eager`): a call that ends without waiting
takes no task, one that waits goes on in a task as if it had had one from the start."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any, ClassVar

from pydantic import BaseModel
from support.builders import group, seq, tools
from support.fakes import Flaky, Gate
from support.waiting import within

from gui.core.runs.eager import start_eagerly
from gui.core.tools.registry import ModelTool, Registry, ToolContext
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import builtin_tools

T = 5.0
seen: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="caller's")


async def test_a_coroutine_that_ends_without_waiting_runs_at_once_and_takes_no_task():
    steps: list[str] = []

    async def quick() -> None:
        steps.append("ran")

    tasks_before = len(asyncio.all_tasks())
    assert start_eagerly(quick()) is None
    assert steps == ["ran"]  # before `start_eagerly` returned, not in a later turn of the loop
    assert len(asyncio.all_tasks()) == tasks_before


async def test_one_that_waits_goes_on_in_a_task_in_its_own_context():
    opened: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    steps: list[str] = []

    async def waits() -> None:
        seen.set("its own")
        steps.append(await opened)
        steps.append(seen.get())

    task = start_eagerly(waits())
    assert task is not None and not task.done()
    assert seen.get() == "caller's"  # what it set as it started stays its own, as in a task
    opened.set_result("opened")
    await within(task, "the task to end")
    assert steps == ["opened", "its own"]


async def test_cancelled_before_its_task_took_a_step_it_is_cancelled_where_it_waits():
    waited_on: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    unwound: list[str] = []

    async def waits() -> None:
        try:
            await waited_on
        except asyncio.CancelledError:
            unwound.append("cancelled")
            raise

    task = start_eagerly(waits())
    assert task is not None
    task.cancel()  # before the loop took its first step
    await asyncio.wait([task], timeout=T)
    assert task.cancelled() and unwound == ["cancelled"]
    assert waited_on.cancelled()  # as a task's cancel cancels the future it waits on


class WhereArgs(BaseModel):
    value: Any = None


class Where(ModelTool):
    """Notes the task each of its calls runs in, and gives back its value at once."""

    name = "where"
    description = "notes its task"
    concurrency_safe = True
    Args: ClassVar = WhereArgs

    def __init__(self) -> None:
        self.tasks: list[asyncio.Task[Any] | None] = []

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        self.tasks.append(asyncio.current_task())
        return args["value"]


async def test_a_group_of_calls_that_end_at_once_runs_them_in_the_runs_own_task():
    where = Where()
    engine = compose_engine(Registry([*builtin_tools(), where]), MemoryStores())
    await engine.create(seq(group("g", out={"a": "number", "b": "number"},
                                  tools=tools(*({"tool": "where", "args": {"value": i}, "as": slot}
                                                for i, slot in enumerate("ab")))),
                            group("h", tools=tools({"tool": "where", "args": {}}, {"tool": "where", "args": {}}))))
    run = await engine.start("s", {})
    record = await engine.runner.wait(run.run_id, T)
    assert record.status == "succeeded" and record.outputs == {"a": 0, "b": 1}
    assert len(where.tasks) == 4 and len(set(where.tasks)) == 1  # one task: the run's, no task per call


async def test_a_call_that_fails_at_once_keeps_the_calls_after_it_from_starting():
    gate = Gate()
    engine = compose_engine(Registry([*builtin_tools(), gate, Flaky()]), MemoryStores())
    await engine.create(seq(group("g", tools=tools({"tool": "flaky", "args": {"fail_times": 5}},
                                                   {"tool": "gate", "args": {"key": "after"}}))))
    run = await engine.start("s", {})
    record = await engine.runner.wait(run.run_id, T)
    assert record.status == "failed"
    assert [(t.status, t.cause) for t in record.groups[0].tools] == [("failed", None), ("cancelled", "sibling_failed")]
    assert gate.started == []
