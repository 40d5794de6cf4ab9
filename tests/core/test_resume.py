"""Resuming a failed, stopped or interrupted run: what succeeded is kept, the rest runs again."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel
from support.builders import group, seq, tools
from support.executors import composed

from gui.core.door.engine import Engine, NotFoundError, ResumeRefused
from gui.core.errors import ToolError
from gui.core.runs.orphans import INTERRUPTED, KILLED
from gui.core.runs.records import ProcessInfo, RunRecord
from gui.core.tools.registry import ModelTool, Registry, ToolContext
from gui.memory import MemoryInteractionStore, MemoryRunStore, MemoryStores
from gui.tools import builtin_tools

pytestmark = pytest.mark.usefixtures("on_both_executors")  # every scenario on both executors
# A dead app's runs, found at the next start-up: the in-process runner's (on Temporal they go on).
IN_PROCESS_ONLY = pytest.mark.parametrize("executor", [None], ids=["in-process"])


class CountArgs(BaseModel):
    key: str = ""
    value: Any = None


class Counter(ModelTool):
    """Counts its calls per key (a side effect); fails for the keys in `failing`."""

    name = "count"
    description = "counts"
    Args: ClassVar = CountArgs

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}
        self.failing: set[str] = set()

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        key = args["key"]
        self.calls[key] = self.calls.get(key, 0) + 1
        if key in self.failing:
            raise ToolError(f"{key} failed")
        return args["value"] if args["value"] is not None else key


def make_engine(counter: Counter, processes: Any = None, **stores: Any) -> Engine:
    return composed(Registry([*builtin_tools(), counter]), MemoryStores(**stores), processes=processes,
                    retry_backoff=0.01)


def three_groups(middle: str = "two") -> dict[str, Any]:
    return seq(
        group("one", out={"n": "number"},
              tools=tools({"tool": "count", "args": {"key": "one", "value": 7}, "as": "n"})),
        group("two", **{"in": {"n": "number"}}, out={"m": "number"},
              tools=tools({"tool": "count", "args": {"key": middle, "value": "$args.n"}, "as": "m"})),
        group("three", **{"in": {"m": "number"}}, out={"done": "string"},
              tools=tools({"tool": "count", "args": {"key": "three"}, "as": "done"})),
        name="trio")


async def failed_in_two(engine: Engine, counter: Counter) -> RunRecord:
    await engine.create(three_groups())
    counter.failing = {"two"}
    record = await engine.call("trio")
    assert record.status == "failed" and [g.status for g in record.groups] == ["succeeded", "failed", "cancelled"]
    counter.failing = set()
    return record


async def test_a_failed_run_resumes_from_the_failed_group_with_the_typed_outputs_of_the_ones_before():
    counter = Counter()
    engine = make_engine(counter)
    first = await failed_in_two(engine, counter)
    second = await engine.call_resume(first.run_id)
    assert second.status == "succeeded", second.error
    assert counter.calls == {"one": 1, "two": 2, "three": 1}  # group one ran once, in the first attempt
    assert second.outputs == {"n": 7, "m": 7, "done": "three"} and isinstance(second.outputs["m"], int)
    assert second.run_id != first.run_id and second.attempt == 2 and second.resumed_from == first.run_id
    assert [g.reused_from for g in second.groups] == [first.run_id, None, None]
    assert (await engine.get_run(first.run_id)).resumed_by == second.run_id


async def test_resuming_a_resumed_run_keeps_pointing_at_the_run_where_a_group_really_ran():
    counter = Counter()
    engine = make_engine(counter)
    first = await failed_in_two(engine, counter)
    counter.failing = {"three"}
    second = await engine.call_resume(first.run_id)
    assert second.status == "failed"
    counter.failing = set()
    third = await engine.call_resume(second.run_id)
    assert third.status == "succeeded" and third.attempt == 3
    assert [g.reused_from for g in third.groups] == [first.run_id, second.run_id, None]
    assert counter.calls == {"one": 1, "two": 2, "three": 2}


async def test_a_run_is_resumed_once_and_only_runs_that_did_not_finish_well_can_be():
    counter = Counter()
    engine = make_engine(counter)
    first = await failed_in_two(engine, counter)
    second = await engine.call_resume(first.run_id)
    with pytest.raises(ResumeRefused, match=f"resumed already, as run {second.run_id}"):
        await engine.resume(first.run_id)
    with pytest.raises(ResumeRefused, match="succeeded: there is nothing to resume"):
        await engine.resume(second.run_id)
    with pytest.raises(NotFoundError, match="there is no run nope"):
        await engine.resume("nope")


async def test_two_resumes_at_once_start_one_attempt():
    counter = Counter()
    engine = make_engine(counter)
    first = await failed_in_two(engine, counter)
    results = await asyncio.gather(engine.resume(first.run_id), engine.resume(first.run_id), return_exceptions=True)
    assert sum(isinstance(r, RunRecord) for r in results) == 1
    assert sum(isinstance(r, ResumeRefused) for r in results) == 1


async def test_a_running_run_is_not_resumed():
    counter = Counter()
    engine = make_engine(counter)
    await engine.create(seq(group("wait", tools=tools({"tool": "sleep", "args": {"seconds": 30}})), name="slow"))
    record = await engine.start("slow")
    with pytest.raises(ResumeRefused, match="is still running"):
        await engine.resume(record.run_id)
    await engine.stop(record.run_id)
    resumed = await engine.resume(record.run_id)  # a stopped run can be resumed
    assert resumed.resumed_from == record.run_id
    await engine.stop(resumed.run_id)


async def test_a_changed_group_that_had_succeeded_refuses_the_resume_by_its_name():
    counter = Counter()
    engine = make_engine(counter)
    first = await failed_in_two(engine, counter)
    changed = three_groups()
    changed["groups"][0]["tools"] = tools({"tool": "count", "args": {"key": "one", "value": 8}, "as": "n"})
    await engine.create(changed)
    with pytest.raises(ResumeRefused, match="the group 'one' \\(group 1\\) changed since run"):
        await engine.resume(first.run_id)
    assert counter.calls == {"one": 1, "two": 1}


async def test_the_failed_group_may_be_fixed_before_resuming():
    counter = Counter()
    engine = make_engine(counter)
    first = await failed_in_two(engine, counter)
    await engine.create(three_groups(middle="two-fixed"))
    second = await engine.call_resume(first.run_id)
    assert second.status == "succeeded"
    assert counter.calls == {"one": 1, "two": 1, "two-fixed": 1, "three": 1}


async def test_tools_that_succeeded_inside_the_failed_group_are_not_run_again():
    counter = Counter()
    engine = make_engine(counter)
    both = tools({"tool": "count", "args": {"key": "a"}, "as": "a"}, {"tool": "count", "args": {"key": "b"}})
    doc = seq(group("both", out={"a": "string"}, tools=both),
              group("after", tools=tools({"tool": "count", "args": {"key": "c"}})), name="pair")
    await engine.create(doc)
    counter.failing = {"b"}
    first = await engine.call("pair")
    assert first.status == "failed" and first.groups[0].tools[0].status == "succeeded"
    counter.failing = set()
    second = await engine.call_resume(first.run_id)
    assert second.status == "succeeded" and second.outputs == {"a": "a"}
    assert counter.calls == {"a": 1, "b": 2, "c": 1}
    assert second.groups[0].tools[0].reused_from == first.run_id and second.groups[0].tools[1].reused_from is None


async def test_a_group_called_on_its_own_is_resumed_as_that_group():
    counter = Counter()
    engine = make_engine(counter)
    await engine.create(three_groups())
    counter.failing = {"two"}
    first = await engine.call("two", {"n": 3})
    assert first.status == "failed" and first.target == "two"
    counter.failing = set()
    second = await engine.call_resume(first.run_id)
    assert second.status == "succeeded" and second.target == "two" and second.outputs == {"m": 3}


class FakeProcesses:
    def __init__(self, alive: set[int]) -> None:
        self.running = alive
        self.killed: list[int] = []

    def alive(self, process: ProcessInfo) -> bool:
        return process.pid in self.running

    def kill(self, process: ProcessInfo) -> None:
        self.killed.append(process.pid)
        self.running.discard(process.pid)


@IN_PROCESS_ONLY
async def test_start_up_kills_the_recorded_commands_still_alive_and_says_so_then_the_run_resumes():
    counter = Counter()
    runs, interactions = MemoryRunStore(), MemoryInteractionStore()
    engine = make_engine(counter, runs=runs, interactions=interactions)
    first = await failed_in_two(engine, counter)
    # As a dead app leaves it: the run still "running", group two's tools with their processes.
    left = await runs.get(first.run_id)
    left.status, left.finished_at, left.error = "running", None, None
    left.groups[1].status = "running"
    left.groups[1].tools[0].status, left.groups[1].tools[0].process = "running", ProcessInfo(pid=41, started=1.0)
    left.groups[2].status = "waiting"
    await runs.save(left)
    processes = FakeProcesses({41})
    later = make_engine(counter, runs=runs, interactions=interactions, processes=processes,
                        sequences=engine.sequences)
    assert await later.recover() == [first.run_id]
    assert processes.killed == [41]
    record = await later.get_run(first.run_id)
    assert record.status == "interrupted" and record.groups[1].tools[0].error == KILLED
    resumed = await later.call_resume(first.run_id)
    assert resumed.status == "succeeded" and counter.calls["one"] == 1


@IN_PROCESS_ONLY
async def test_a_recorded_command_that_already_ended_is_recorded_as_interrupted_not_killed():
    counter = Counter()
    runs = MemoryRunStore()
    engine = make_engine(counter, runs=runs)
    first = await failed_in_two(engine, counter)
    left = await runs.get(first.run_id)
    left.status, left.finished_at = "running", None
    left.groups[1].status, left.groups[1].tools[0].status = "running", "running"
    left.groups[1].tools[0].process = ProcessInfo(pid=42)
    await runs.save(left)
    processes = FakeProcesses(set())
    later = make_engine(counter, runs=runs, processes=processes)
    await later.recover()
    assert processes.killed == []
    assert (await later.get_run(first.run_id)).groups[1].tools[0].error == INTERRUPTED
