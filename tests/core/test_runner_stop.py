"""Stopping, aborting and finishing a run at awkward moments: the record still ends right, and saved."""

from __future__ import annotations

import asyncio

import pytest
from support.builders import group, seq, tools
from support.executors import composed
from support.fakes import BrokenText, Gate, Stubborn
from support.waiting import wait_until, within

from gui.core.door.engine import Engine
from gui.core.runs.records import RunRecord
from gui.core.tools.registry import Registry
from gui.memory import MemoryInteractionStore, MemoryRunStore, MemoryStores
from gui.tools import builtin_tools

T = 5.0
pytestmark = pytest.mark.usefixtures("on_both_executors")  # every scenario on both executors
# Closing the app: the in-process runner ends its runs (on Temporal the worker stops and the runs go on:
# tests/temporal).
IN_PROCESS_ONLY = pytest.mark.parametrize("executor", [None], ids=["in-process"])


class SlowFinalSave(MemoryRunStore):
    """Holds the save of a finished record until the test lets it through."""

    def __init__(self) -> None:
        super().__init__()
        self.final_save_started = asyncio.Event()
        self.let_through = asyncio.Event()

    async def save(self, record: RunRecord) -> None:
        if record.finished:
            self.final_save_started.set()
            await self.let_through.wait()
        await super().save(record)


def make_engine(*extra, runs=None) -> Engine:
    return composed(Registry([*builtin_tools(), *extra]), MemoryStores(runs=runs or MemoryRunStore()),
                          retry_backoff=0.01)


async def test_a_second_stop_while_the_first_is_saving_still_leaves_the_run_saved_as_stopped():
    gate, runs = Gate(), SlowFinalSave()
    engine = make_engine(gate, runs=runs)
    await engine.create(seq(group("g", tools=tools({"tool": "gate", "args": {"key": "x"}}))))
    run = await engine.start("s", {})
    await wait_until(lambda: gate.running == 1)
    first = asyncio.create_task(engine.stop(run.run_id))
    await within(runs.final_save_started.wait(), "the final save to start")
    second = asyncio.create_task(engine.stop(run.run_id))
    await asyncio.sleep(0)  # let the second stop reach the run before the save goes through
    runs.let_through.set()
    await within(asyncio.gather(first, second), "both stops")
    stored = await runs.get(run.run_id)
    assert stored is not None and stored.status == "stopped"


async def test_a_stop_that_arrives_while_a_finished_run_is_being_saved_does_not_lose_the_record():
    runs = SlowFinalSave()
    engine = make_engine(runs=runs)
    await engine.create(seq(group("g")))
    run = await engine.start("s", {})
    await within(runs.final_save_started.wait(), "the final save to start")
    stopping = asyncio.create_task(engine.stop(run.run_id))
    await asyncio.sleep(0)
    runs.let_through.set()
    await within(stopping, "the stop")
    stored = await runs.get(run.run_id)
    assert stored is not None and stored.status == "succeeded"
    assert engine.runner.snapshot(run.run_id) is None


async def test_a_stopped_run_leaves_no_tool_queued_or_running_in_its_record():
    gate = Gate()
    engine = make_engine(gate)
    await engine.create(seq(group("a", parallel=False, tools=tools({"tool": "gate", "args": {"key": "x"}},
                                                                   {"tool": "gate", "args": {"key": "y"}})),
                            group("b")))
    run = await engine.start("s", {})
    await wait_until(lambda: gate.running == 1)
    assert await engine.stop(run.run_id)
    record = await engine.runs.get(run.run_id)
    assert record.status == "stopped"
    assert [g.status for g in record.groups] == ["stopped", "cancelled"]
    statuses = [t.status for g in record.groups for t in g.tools]
    assert statuses == ["cancelled", "cancelled", "cancelled"]


async def _start_parent_with_a_waiting_child(engine: Engine, gate: Gate) -> tuple[str, str]:
    await engine.create(seq(group("inner", tools=tools({"tool": "gate", "args": {"key": "child"}})), name="child"))
    await engine.create(seq(group("outer", tools=tools({"tool": "seq_call", "args": {"name": "child"}})),
                            name="parent"))
    events = []
    engine.bus.subscribe(lambda e: events.append(e))
    run = await engine.start("parent", {})
    await wait_until(lambda: gate.running == 1)
    [child_id] = [e.run_id for e in events if e.type == "run.started" and e.run_id != run.run_id]
    return run.run_id, child_id


async def test_stopping_a_run_called_through_seq_call_stops_it_and_fails_the_calling_step():
    gate = Gate()
    engine = make_engine(gate)
    parent_id, child_id = await _start_parent_with_a_waiting_child(engine, gate)
    assert await engine.stop(child_id)
    child = await engine.runs.get(child_id)
    assert child.status == "stopped" and gate.cancelled == ["child"]
    parent = await engine.runner.wait(parent_id, T)
    assert parent.status == "failed"
    assert "'child' ended stopped" in parent.groups[0].tools[0].error


async def test_stopping_the_caller_stops_the_called_run_and_saves_both_as_stopped():
    gate = Gate()
    engine = make_engine(gate)
    parent_id, child_id = await _start_parent_with_a_waiting_child(engine, gate)
    assert await engine.stop(parent_id)
    assert (await engine.runs.get(parent_id)).status == "stopped"
    assert (await engine.runs.get(child_id)).status == "stopped"
    assert gate.cancelled == ["child"]


@IN_PROCESS_ONLY  # on Temporal the called run is a child workflow: it outlives the app (tests/temporal)
async def test_closing_the_app_cancels_a_called_runs_requests_as_session_disposed():
    engine = make_engine()
    await engine.create(seq(group("inner", tools=tools({"tool": "cmd_run", "args": {"command": "true"}})),
                            name="child"))
    await engine.create(seq(group("outer", tools=tools({"tool": "seq_call", "args": {"name": "child"}})),
                            name="parent"))
    await engine.start("parent", {})
    await wait_until(lambda: any(r.groups[0].tools[0].status == "waiting" for r in engine.runner.active()
                               if r.sequence == "child"))
    await engine.close()
    [request] = await engine.interaction_store.list()
    assert (request.status, request.result.reason) == ("cancelled", "session_disposed")


async def test_a_result_holding_text_that_is_not_valid_unicode_is_still_saved_with_its_run():
    engine = make_engine(BrokenText())  # a sequence cannot hold such text (it is refused at save): a tool's result can
    await engine.create(seq(group("g", out={"x": "string"}, tools=tools({"tool": "broken_text", "as": "x"}))))
    record = await within(engine.run("s", {}), "the run's end")
    stored = await engine.runs.get(record.run_id)
    assert stored is not None and stored.status == "succeeded" and stored.outputs == {"x": "a\ud800b"}


async def test_a_tool_that_ignores_stop_does_not_let_the_next_tools_run():
    stubborn, gate = Stubborn(), Gate()
    engine = make_engine(stubborn, gate)
    await engine.create(seq(group("a", parallel=False, tools=tools({"tool": "stubborn"},
                                                                   {"tool": "gate", "args": {"key": "after"}})),
                            group("b", tools=tools({"tool": "gate", "args": {"key": "later"}}))))
    run = await engine.start("s", {})
    await within(stubborn.started.wait(), "the stubborn tool to start")
    assert await within(engine.stop(run.run_id), "the stop")
    record = await engine.runs.get(run.run_id)
    assert stubborn.ignored == 1 and gate.started == []
    assert record.status == "stopped"


async def test_side_by_side_tools_that_ignore_stop_do_not_let_the_next_group_run():
    stubborn, gate = Stubborn(), Gate()
    engine = make_engine(stubborn, gate)
    await engine.create(seq(group("a", tools=tools({"tool": "stubborn"}, {"tool": "stubborn"})),
                            group("b", tools=tools({"tool": "gate", "args": {"key": "later"}}))))
    run = await engine.start("s", {})
    await within(stubborn.started.wait(), "the stubborn tool to start")
    await wait_until(lambda: engine.runner.snapshot(run.run_id).groups[0].tools[1].status == "running")
    assert await within(engine.stop(run.run_id), "the stop")
    record = await engine.runs.get(run.run_id)
    assert stubborn.ignored == 2 and gate.started == []
    assert record.status == "stopped" and record.groups[1].status == "cancelled"


async def test_side_by_side_tools_that_ignore_their_groups_time_limit_still_end_the_group():
    stubborn, gate = Stubborn(), Gate()
    engine = make_engine(stubborn, gate)
    await engine.create(seq(group("a", timeout="50ms", tools=tools({"tool": "stubborn"}, {"tool": "stubborn"})),
                            group("b", tools=tools({"tool": "gate", "args": {"key": "later"}}))))
    record = await within(engine.run("s", {}), "the run's end")
    assert stubborn.ignored == 2 and gate.started == []
    assert record.status == "failed" and "timed out after 50ms" in record.groups[0].reason


async def test_a_tool_that_ignores_its_groups_time_limit_does_not_stretch_it_to_the_next_tools():
    stubborn, gate = Stubborn(), Gate()
    engine = make_engine(stubborn, gate)
    await engine.create(seq(group("a", parallel=False, timeout="50ms",
                                  tools=tools({"tool": "stubborn"}, {"tool": "gate", "args": {"key": "after"}}))))
    record = await within(engine.run("s", {}), "the run's end")
    assert stubborn.ignored == 1 and gate.started == []
    assert record.status == "failed" and "timed out after 50ms" in record.groups[0].reason


async def test_a_tool_that_ignores_stop_during_retries_is_not_tried_again():
    stubborn = Stubborn()
    engine = make_engine(stubborn)
    await engine.create(seq(group("a", on_error="retry", out={"n": "number"},
                                  tools=tools({"tool": "stubborn", "as": "n"}))))  # its text result fails the slot
    run = await engine.start("s", {})
    await within(stubborn.started.wait(), "the stubborn tool to start")
    assert await within(engine.stop(run.run_id), "the stop")
    assert stubborn.ignored == 1
    assert (await engine.runs.get(run.run_id)).groups[0].tools[0].attempts == 1


@IN_PROCESS_ONLY
async def test_closing_with_many_waiting_runs_ends_each_with_its_request_cancelled_first():
    engine = make_engine()
    await engine.create(seq(group("ask", tools=tools({"tool": "cmd_run", "args": {"command": "true"}})), name="ask"))
    await engine.create(seq(group("outer", tools=tools({"tool": "seq_call", "args": {"name": "ask"}})),
                            name="parent"))
    order: list[tuple[str, str | None]] = []
    engine.subscribe(lambda e: order.append((e.type, e.run_id)) if e.type in ("interaction.ended", "run.finished")
                     else None)
    runs = [(await engine.start("ask", {})).run_id for _ in range(20)]
    parent = (await engine.start("parent", {})).run_id
    await wait_until(lambda: sum(r.groups[0].tools[0].status == "waiting" for r in engine.runner.active()) == 21)
    child = next(r.run_id for r in engine.runner.active() if r.run_id not in (*runs, parent))
    await engine.close()
    for run_id in (*runs, parent, child):
        record = await engine.runs.get(run_id)
        assert (record.status, record.cause) == ("stopped", "app_closed"), run_id
        assert [e for e in order if e == ("run.finished", run_id)] == [("run.finished", run_id)]
    requests = await engine.interaction_store.list()
    assert len(requests) == 21
    assert {(r.status, r.result.reason, r.result.cause) for r in requests} == {
        ("cancelled", "session_disposed", "app_closed")}
    for request in requests:  # each request ended before its run did
        run_id = request.request.turn_id
        assert order.index(("interaction.ended", run_id)) < order.index(("run.finished", run_id))
    assert engine.runner.active_ids() == []


class WatchedRequests(MemoryInteractionStore):
    """Calls `on_save` with the records of each `save_many`, before they are stored."""

    def __init__(self) -> None:
        super().__init__()
        self.on_save = None

    async def save_many(self, records, documents=None) -> None:  # type: ignore[no-untyped-def]
        records = list(records)
        if self.on_save is not None:
            await self.on_save(records)
        await super().save_many(records, documents)


@IN_PROCESS_ONLY
async def test_closing_ends_each_runs_task_as_it_arrives_and_a_stop_meanwhile_waits_for_its_end():
    """Closing with thousands waiting: a run's task ends once its record is settled (no future, and no
    turn of the loop, per run), its end kept after; a Stop pressed meanwhile still returns only once
    that end is saved."""
    requests = WatchedRequests()
    engine = composed(Registry(builtin_tools()), MemoryStores(interactions=requests))
    await engine.create(seq(group("ask", tools=tools({"tool": "cmd_run", "args": {"command": "true"}})), name="ask"))
    runs = [(await engine.start("ask", {})).run_id for _ in range(5)]
    await wait_until(lambda: sum(r.groups[0].tools[0].status == "waiting" for r in engine.runner.active()) == 5)
    tasks = {run_id: engine.runner._active[run_id].task for run_id in runs}
    done_as_stored: list[bool] = []
    second: list[asyncio.Task[tuple[bool, str]]] = []

    async def stop_again(run_id: str) -> tuple[bool, str]:
        stopped = await engine.runner.stop(run_id, "person")
        return stopped, (await engine.runs.get(run_id)).status

    async def on_save(records) -> None:  # type: ignore[no-untyped-def]
        done_as_stored.extend(tasks[r.request.turn_id].done() for r in records if r.status == "cancelled")
        if not second:
            second.append(asyncio.create_task(stop_again(records[0].request.turn_id)))
            await asyncio.sleep(0)  # (its first step: it finds the run ending)

    requests.on_save = on_save
    await engine.close()
    assert done_as_stored == [True] * 5
    assert await within(second[0], "the second stop") == (False, "stopped")
    for run_id in runs:
        record = await engine.runs.get(run_id)
        assert (record.status, record.cause) == ("stopped", "app_closed")


async def test_a_stopped_run_leaves_no_reference_cycles_for_the_collector():
    """Closing with thousands of runs waiting spent half its time collecting what each run left."""
    import gc

    from gui.core.runs.execution import Execution
    from gui.core.runs.tool_call import CallScope

    engine = make_engine()
    await engine.create(seq(group("ask", tools=tools({"tool": "cmd_run", "args": {"command": "true"}})), name="ask"))
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(3):
            await engine.start("ask", {})
        await wait_until(lambda: sum(r.groups[0].tools[0].status == "waiting" for r in engine.runner.active()) == 3)
        await engine.close()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, CallScope | Execution)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    assert left == []


class FailingFinalSave(MemoryRunStore):
    """Cannot keep a finished record (its disk went away, say)."""

    async def save(self, record: RunRecord) -> None:
        if record.finished:
            raise OSError("no space left on device")
        await super().save(record)


@IN_PROCESS_ONLY
async def test_a_run_whose_end_cannot_be_kept_still_ends_and_says_so_in_the_log(caplog):
    gate, runs = Gate(), FailingFinalSave()
    engine = make_engine(gate, runs=runs)
    await engine.create(seq(group("g", tools=tools({"tool": "gate", "args": {"key": "x"}}))))
    run = await engine.start("s", {})
    await wait_until(lambda: gate.running == 1)
    with caplog.at_level("ERROR", logger="gui.core.runs.runner"):
        assert await within(engine.stop(run.run_id), "the stop")
        await wait_until(lambda: run.run_id not in engine.runner.active_ids(), "the run ended here")
    assert [r.getMessage() for r in caplog.records if run.run_id in r.getMessage()] == [
        f"could not keep the end of run {run.run_id} (stopped)"]
    assert "no space left on device" in caplog.text
