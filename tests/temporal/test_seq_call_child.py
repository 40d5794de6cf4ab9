"""seq_call on both executors: the run a step calls keeps its meaning (its outputs, a retry calling it
again, a time limit or a failed sibling stopping it and saying why, the same events); on Temporal it
is a child workflow of its caller's (its own approvals wait in it, and it outlives the app)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from support.builders import group, seq, tools
from support.executors import composed
from support.fakes import Gate
from support.temporal import TemporalServer
from support.waiting import wait_until, within
from temporalio.client import Client

from gui.core.asks import ApprovalResponse
from gui.core.door.engine import Engine
from gui.core.events import Event
from gui.core.tools.registry import Registry
from gui.memory import MemoryStores
from gui.runtime import compose_engine, open_runtime
from gui.temporal.plans import workflow_id
from gui.tools import builtin_tools

T = 30.0
BOTH = pytest.mark.usefixtures("on_both_executors")


def make_engine(*extra: Any) -> Engine:
    return composed(Registry([*builtin_tools(), *extra]), MemoryStores(), retry_backoff=0.01)


async def parent_and_child(engine: Engine, child: dict[str, Any], caller: dict[str, Any] | None = None) -> None:
    await engine.create(seq(child, name="child"))
    await engine.create(seq(caller or group("outer", out={"res": "object"}, tools=tools(
        {"tool": "seq_call", "args": {"name": "child"}, "as": "res"})), name="parent"))


@BOTH
async def test_a_retried_seq_call_calls_its_run_again_and_counts_its_attempts(tmp_path: Path) -> None:
    flag = tmp_path / "failed-once"
    engine = make_engine()
    engine.modes.set("cmd_run", "always-allow")
    await parent_and_child(engine, group("inner", out={"said": "string"}, tools=tools(
        {"tool": "cmd_run", "args": {"command": f"if [ -e {flag} ]; then echo again; else touch {flag}; false; fi"},
         "as": "said"})), group("outer", on_error="retry", out={"res": "object"}, tools=tools(
            {"tool": "seq_call", "args": {"name": "child"}, "as": "res"})))
    started: list[str] = []
    engine.bus.subscribe(lambda e: started.append(e.run_id) if e.type == "run.started" else None)
    record = await within(engine.run("parent", {}), "the parent run's end")
    assert record.status == "succeeded" and record.outputs == {"res": {"said": "again"}}
    [trec] = record.groups[0].tools
    assert trec.attempts == 2 and len(started) == 3  # the caller, and the run it called twice
    first, second = [await engine.runs.get(run_id) for run_id in started[1:]]
    assert (first.status, second.status) == ("failed", "succeeded")


@BOTH
@pytest.mark.parametrize("why", ["group_timeout", "sibling_failed"])
async def test_a_seq_call_cut_by_its_group_stops_the_run_it_called_saying_why(why: str, tmp_path: Path) -> None:
    gate = Gate()
    engine = make_engine(gate)
    flag = tmp_path / "child-began"  # the sibling fails once the called run's step has begun
    sibling = {"tool": "cmd_run", "args": {"command": f"while [ ! -e {flag} ]; do sleep 0.05; done; false"}}
    sibling = sibling if why == "sibling_failed" else None
    engine.modes.set("cmd_run", "always-allow")
    await parent_and_child(engine, group("inner", tools=tools({"tool": "gate", "args": {"key": "child"}})), group(
        "outer", timeout="1s" if why == "group_timeout" else None, tools=tools(
            {"tool": "seq_call", "args": {"name": "child"}}, *([sibling] if sibling else []))))
    ended: dict[str, Any] = {}
    engine.bus.subscribe(lambda e: ended.setdefault(e.run_id, e) if e.type == "run.finished" else None)
    run = await engine.start("parent", {})
    await wait_until(lambda: gate.running == 1, timeout=T)
    flag.touch()
    record = await engine.runner.wait(run.run_id, T)
    [child_id] = [run_id for run_id in ended if run_id != record.run_id]
    child = await engine.runs.get(child_id)
    assert gate.cancelled == ["child"]
    assert (child.status, child.cause) == ("stopped", why)
    trec = record.groups[0].tools[0]
    cut = "failed" if why == "group_timeout" else "cancelled"  # a time limit's cut says it failed (timed out)
    assert (record.status, trec.status, trec.cause) == ("failed", cut, why)
    assert list(ended) == [child_id, record.run_id]  # the called run ended before its caller


def _kinds(events: list[Event], parent: str) -> list[tuple[str, str]]:
    return [(e.type, "parent" if e.run_id == parent else "child") for e in events]


async def _stopped_caller_events(executor: str | None) -> tuple[list[tuple[str, str]], list[Any]]:
    gate = Gate()
    engine = compose_engine(Registry([*builtin_tools(), gate]), MemoryStores(), executor=executor)
    seen: list[Event] = []
    engine.bus.subscribe(seen.append)
    try:
        await parent_and_child(engine, group("inner", tools=tools({"tool": "gate", "args": {"key": "child"}})))
        run = await engine.start("parent", {})
        await wait_until(lambda: gate.running == 1, timeout=T)
        assert await engine.stop(run.run_id)
        records = [await engine.runs.get(e.run_id) for e in seen if e.type == "run.finished"]
    finally:
        await engine.close()
    return _kinds(seen, run.run_id), [(r.status, r.cause, r.error, [[(t.status, t.cause, t.error) for t in g.tools]
                                                                    for g in r.groups]) for r in records]


async def test_stopping_a_caller_says_the_same_of_both_runs_on_both_executors(temporal_server: TemporalServer) -> None:
    here = await _stopped_caller_events(None)
    there = await _stopped_caller_events(f"{temporal_server.url}?queue=seq-{uuid.uuid4().hex[:8]}")
    assert there == here
    assert here[0].index(("run.finished", "child")) < here[0].index(("run.finished", "parent"))
    assert [status for status, *_ in here[1]] == ["stopped", "stopped"]


async def test_a_called_run_is_a_child_workflow_whose_approval_waits_in_it(temporal_server: TemporalServer) -> None:
    engine = compose_engine(Registry(builtin_tools()), MemoryStores(),
                            executor=f"{temporal_server.url}?queue=child-{uuid.uuid4().hex[:8]}")
    try:
        await parent_and_child(engine, group("inner", out={"said": "string"}, tools=tools(
            {"tool": "cmd_run", "args": {"command": "echo from the child"}, "as": "said"})))
        run = await engine.start("parent", {})
        [pending] = await wait_until(engine.interactions.pending, "the called run's approval", timeout=T)
        child_id = pending.request.turn_id
        assert child_id != run.run_id
        client = await Client.connect(temporal_server.address)
        parent = client.get_workflow_handle(workflow_id(run.run_id))
        child = client.get_workflow_handle(workflow_id(child_id))

        async def paused() -> bool:  # no worker held: the caller waits for its child, the child for the answer
            return not (await parent.describe()).raw_description.pending_activities and not (
                await child.describe()).raw_description.pending_activities

        await wait_until(paused, "both workflows waiting, no activity", timeout=T)
        described = await child.describe()
        assert described.parent_id == workflow_id(run.run_id)
        [pending_child] = (await parent.describe()).raw_description.pending_children
        assert pending_child.workflow_id == workflow_id(child_id)
        await engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
        record = await engine.runner.wait(run.run_id, T)
        assert record.status == "succeeded" and record.outputs == {"res": {"said": "from the child"}}
    finally:
        await engine.close()


async def test_a_called_run_and_its_request_outlive_the_apps_restart(temporal_server: TemporalServer,
                                                                    tmp_path: Path) -> None:
    url = f"{temporal_server.url}?queue=child-restart-{uuid.uuid4().hex[:8]}"
    first = await open_runtime(tmp_path, executor=url)
    await parent_and_child(first.engine, group("inner", out={"said": "string"}, tools=tools(
        {"tool": "cmd_run", "args": {"command": "echo still here"}, "as": "said"})))
    run = await first.engine.start("parent", {})
    [asked] = await wait_until(first.engine.interactions.pending, "the called run's approval", timeout=T)
    child_id = asked.request.turn_id
    await first.close()  # the app closes: neither run stops, nor the request

    second = await open_runtime(tmp_path, executor=url)
    try:
        assert {run.run_id, child_id} <= set(second.engine.runner.active_ids())
        assert not {run.run_id, child_id} & set(second.recovered_runs)
        [pending] = await wait_until(second.engine.interactions.pending, "the called run's request", timeout=T)
        assert pending.interaction_id == asked.interaction_id
        await second.engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
        record = await second.engine.runner.wait(run.run_id, T)
        assert record.status == "succeeded" and record.outputs == {"res": {"said": "still here"}}
        assert record.attempt == 1 and record.resumed_from is None  # no Resume
        child = await second.engine.get_run(child_id)
        assert child is not None and child.status == "succeeded"
    finally:
        await second.close()
