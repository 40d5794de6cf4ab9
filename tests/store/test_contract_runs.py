"""The run store contract, over the memory and the TinyDB store: save, get, list, running, count, query."""

from __future__ import annotations

import json
from typing import Any

import pytest
from contract_support import Backend, ids, run
from pydantic import BaseModel

from gui.core.queries import StoredText
from gui.core.runs import GroupRecord, LogLine, ProcessInfo, RunRecord, ToolRecord, copy_record
from gui.core.runs.records import ToolProgressState


async def test_a_saved_run_comes_back_equal_and_unknown_ids_are_none(backend: Backend):
    record = run("r1", status="running", args={"host": "n1"}, outputs={"x": "\ud800 lone"})
    await backend.runs.save(record)
    assert await backend.runs.get("r1") == record
    assert await backend.runs.get("nope") is None
    await backend.reopen()
    assert await backend.runs.get("r1") == record


async def test_a_later_save_replaces_the_record_and_a_finished_run_is_no_longer_running(backend: Backend):
    await backend.runs.save(run("r1", status="running"))
    await backend.runs.save(run("r2", status="running", created_at=1001))
    assert ids(await backend.runs.running()) == ["r1", "r2"]
    await backend.runs.save(run("r1", status="failed", error="boom"))
    assert ids(await backend.runs.running()) == ["r2"]
    stored = await backend.runs.get("r1")
    assert (stored.status, stored.error) == ("failed", "boom")
    assert await backend.runs.count() == 2
    await backend.reopen()
    assert ids(await backend.runs.running()) == ["r2"] and await backend.runs.count() == 2
    assert (await backend.runs.get("r1")).error == "boom"


async def test_a_finished_run_saved_again_keeps_its_latest_state(backend: Backend):
    await backend.runs.save(run("r1", status="failed"))
    await backend.runs.save(run("r1", status="stopped", error="second"))
    assert [(r.status, r.error) for r in await backend.runs.list()] == [("stopped", "second")]
    assert (await backend.runs.query(status="failed")).total == 0
    await backend.reopen()
    assert (await backend.runs.query(status="stopped")).items[0].error == "second"


async def test_changing_a_returned_record_does_not_change_the_store(backend: Backend):
    await backend.runs.save(run("r1", args={"list": [1]}))
    got = await backend.runs.get("r1")
    got.args["list"].append(2)
    got.status = "failed"
    assert (await backend.runs.get("r1")).args == {"list": [1]}
    assert (await backend.runs.get("r1")).status == "succeeded"


async def test_a_later_change_to_the_live_record_does_not_change_what_was_stored(backend: Backend):
    """What the runner changes in place after a save (statuses, a tool's waits and log, results and
    outputs, the arguments' values) stays out of what the store keeps."""
    live = run("r1", status="running", args={"hosts": ["n1"]}, outputs={"o": {"k": [1]}}, groups=[
        GroupRecord(index=0, name="g", status="running", args={"a": {"b": 1}}, outputs={"slot": [1]}, tools=[
            ToolRecord(index=0, tool="echo", tool_call_id="c0", status="succeeded", args={"value": {"n": [1]}},
                       result={"n": [1]}, waits=[(1.0, 2.0)], log=[LogLine(at=1.0, level="info", text="a")]),
            ToolRecord.queued(1, "echo", "c1", None)])])
    await backend.runs.save(live)
    before = RunRecord.model_validate(live.model_dump())
    live.status, live.args["hosts"][0] = "failed", "n2"
    live.outputs["o"]["k"].append(2)
    group = live.groups[0]
    group.status, group.args["a"]["b"], group.outputs["slot"][0] = "failed", 2, 3
    done, queued = group.tools
    done.args["value"]["n"].append(2)
    done.result["n"][0] = 9
    done.waits.append((3.0, None))
    done.log.append(LogLine(at=2.0, level="info", text="b"))
    queued.status, queued.started_at = "running", 5.0
    queued.waits.append((6.0, None))
    group.tools.append(ToolRecord.queued(2, "echo", "c2", None))
    live.groups.append(GroupRecord(index=1, name="h"))
    assert await backend.runs.get("r1") == before
    await backend.reopen()
    assert await backend.runs.get("r1") == before


def _every_field_set(model: BaseModel, values: dict[str, Any]) -> None:
    """Give each field of `model` a value of its own, none at its default (all told apart once read back)."""
    for name, value in values.items():
        setattr(model, name, value)
    assert set(values) | {"tools", "groups"} >= set(type(model).model_fields)


_TOOL = {"index": 3, "tool": "echo", "tool_call_id": "c3", "as_": "slot", "status": "waiting", "started_at": 2.0,
         "finished_at": 3.0, "args": {"a": [1]}, "result": {"r": 2}, "error": "e", "attempts": 4, "reason": "why",
         "interaction_id": "i1", "original_args": {"a": [0]}, "timed_out": True, "denied": True,
         "waits": [(2.5, None)], "progress": ToolProgressState(progress=1.0, total=2.0, message="m"),
         "log": [LogLine(at=2.2, level="info", text="t")], "reused_from": "r0", "process": ProcessInfo(pid=7),
         "cause": "person", "host": "node-a"}
_GROUP = {"index": 5, "name": "g", "status": "running", "started_at": 1.5, "finished_at": 4.0, "reason": "because",
          "serial_reason": "one by one", "timed_out": True, "args": {"x": 1}, "fingerprint": "f" * 16,
          "outputs": {"slot": "v"}, "reused_from": "r0", "cause": "group_timeout"}
_RUN = {"run_id": "r1", "sequence": "nightly", "target": "g", "args": {"y": 2}, "status": "running",
        "created_at": 1000.0, "finished_at": 1009.0, "outputs": {"o": 3}, "error": "boom", "depth": 2, "attempt": 3,
        "resumed_from": "r0", "resumed_by": "r2", "schedule_id": "s1", "note": "missed", "cause": "app_closed",
        "stopped_by": "host:1", "agent_left_at": 1005.0, "started_by": "alice"}


@pytest.mark.parametrize("made", ["validated", "made by the runner", "constructed", "copied"])
async def test_a_record_made_any_way_comes_back_with_each_field_where_it_was(backend: Backend, made: str):
    """A store may keep a record's fields by their order (the memory store's copy): however a record,
    its groups and tools were made, every field comes back as it was, none taking another's value."""
    if made == "made by the runner":
        tool, group = ToolRecord.queued(0, "x", "c0", None, "node-a"), GroupRecord.waiting(0, "x", "f", [])
    elif made == "constructed":
        tool, group = ToolRecord.model_construct(index=0, tool="x", tool_call_id="c0"), GroupRecord.model_construct(
            index=0, name="x")
    else:
        tool, group = ToolRecord(index=0, tool="x", tool_call_id="c0"), GroupRecord(index=0, name="x")
    _every_field_set(tool, _TOOL)
    _every_field_set(group, _GROUP)
    group.tools = [tool]
    record = (RunRecord.model_construct(run_id="r0", sequence="x", created_at=1.0) if made == "constructed"
              else run("r0"))
    _every_field_set(record, _RUN)
    record.groups = [group]
    if made == "copied":
        record = copy_record(record)
    expected = RunRecord.model_validate(record.model_dump())
    await backend.runs.save(record)
    assert await backend.runs.get("r1") == expected
    await backend.reopen()
    assert await backend.runs.get("r1") == expected


async def test_a_value_that_is_not_plain_json_is_kept_as_json_reads_it_and_an_unstorable_one_is_refused(
        backend: Backend):
    tool = ToolRecord(index=0, tool="echo", tool_call_id="c0", status="succeeded", result=("a", 1))
    await backend.runs.save(run("r1", groups=[GroupRecord(index=0, name="g", tools=[tool])]))
    assert (await backend.runs.get("r1")).groups[0].tools[0].result == ["a", 1]
    tool.result = object()
    with pytest.raises(ValueError):  # (pydantic's serialization error is one)
        await backend.runs.save(run("r2", groups=[GroupRecord(index=0, name="g", tools=[tool])]))
    assert await backend.runs.get("r2") is None


async def test_list_pages_newest_first_across_running_and_finished_runs(backend: Backend):
    for n in range(8):
        await backend.runs.save(run(f"r{n}", status="running" if n % 3 == 0 else "succeeded", created_at=100 + n))
    assert ids(await backend.runs.list()) == [f"r{n}" for n in reversed(range(8))]
    assert ids(await backend.runs.list(limit=3, offset=2)) == ["r5", "r4", "r3"]
    assert await backend.runs.list(limit=5, offset=8) == []
    await backend.reopen()
    assert ids(await backend.runs.list(limit=3, offset=2)) == ["r5", "r4", "r3"]


async def seven_runs(backend: Backend) -> None:
    specs = [("a", "Nightly build", "succeeded", 10), ("b", "nightly build", "failed", 20),
             ("c", "deploy", "succeeded", 30), ("d", "Nightly build", "running", 40),
             ("e", "backup", "failed", 50), ("f", "Nightly build", "succeeded", 60),
             ("g", "deploy", "succeeded", 60)]
    for run_id, name, status, at in specs:
        await backend.runs.save(run(run_id, sequence=name, status=status, created_at=at))


@pytest.mark.parametrize(("query", "expected", "total"), [
    ({}, ["g", "f", "e", "d", "c", "b", "a"], 7),
    ({"status": "succeeded"}, ["g", "f", "c", "a"], 4),
    ({"status": "running"}, ["d"], 1),
    ({"sequence": "Nightly build"}, ["f", "d", "a"], 3),
    ({"text": "NIGHTLY"}, ["f", "d", "b", "a"], 4),
    ({"text": "ploy"}, ["g", "c"], 2),
    ({"started_from": 30, "started_to": 60}, ["e", "d", "c"], 3),
    ({"started_from": 60}, ["g", "f"], 2),
    ({"status": "succeeded", "text": "build", "started_to": 60}, ["a"], 1),
    ({"status": "stopped"}, [], 0),
    ({"text": "nothing like it"}, [], 0),
    ({"text": "%"}, [], 0),  # a wildcard of LIKE is a character like any other
    ({"text": "l", "limit": 3, "offset": 2}, ["d", "c", "b"], 6),  # three sequences' runs, merged, one page
    ({"text": "nightly", "limit": 2, "offset": 1}, ["d", "b"], 4),  # two names, case aside
    ({"text": "ploy", "status": "succeeded", "limit": 1, "offset": 1}, ["c"], 2),
])
async def test_query_filters_in_the_store_newest_first_with_the_total(backend: Backend, query, expected, total):
    await seven_runs(backend)
    page = await backend.runs.query(**query)
    assert (ids(page.items), page.total) == (expected, total)
    await backend.reopen()
    page = await backend.runs.query(**query)
    assert (ids(page.items), page.total) == (expected, total)


def dumped(record: RunRecord) -> dict:
    return record.model_dump(mode="json", by_alias=True)


async def test_query_texts_gives_what_query_gives_as_json(backend: Backend):
    """A store may give a record as the JSON text it vouches for (`StoredText`): the same JSON value."""
    await seven_runs(backend)
    for query in ({}, {"status": "succeeded", "limit": 2, "offset": 1}, {"text": "NIGHTLY"}):
        for _ in range(2):
            read, sent = await backend.runs.query(**query), await backend.runs.query_texts(**query)
            assert sent.total == read.total
            as_json = [json.loads(item.text) if isinstance(item, StoredText) else dumped(item) for item in sent.items]
            assert as_json == [dumped(r) for r in read.items]
            await backend.reopen()


async def test_query_pages_with_limit_and_offset_and_breaks_ties_by_the_larger_id(backend: Backend):
    await seven_runs(backend)
    first = await backend.runs.query(limit=2)
    second = await backend.runs.query(limit=2, offset=2)
    last = await backend.runs.query(limit=2, offset=6)
    assert (ids(first.items), ids(second.items), ids(last.items)) == (["g", "f"], ["e", "d"], ["a"])
    assert first.total == second.total == last.total == 7
    assert (await backend.runs.query(limit=0)).items == []
    assert (await backend.runs.query(offset=100)).total == 7


async def test_query_refuses_a_negative_window(backend: Backend):
    with pytest.raises(ValueError, match="must not be negative"):
        await backend.runs.query(limit=-1)
    with pytest.raises(ValueError, match="must not be negative"):
        await backend.runs.query(offset=-5)


async def test_save_many_is_the_same_as_saving_each_in_turn(backend: Backend):
    await backend.runs.save(run("old", status="running", created_at=1))
    batch = [run(f"b{n}", created_at=10 + n) for n in range(7)]
    batch += [run("old", status="succeeded", created_at=1), run("b2", status="failed", created_at=12)]
    await backend.runs.save_many(batch)
    assert await backend.runs.count() == 8 and await backend.runs.running() == []
    assert (await backend.runs.get("b2")).status == "failed"
    assert ids((await backend.runs.query(status="failed")).items) == ["b2"]
    await backend.reopen()
    assert ids(await backend.runs.list(limit=3)) == ["b6", "b5", "b4"]
    assert (await backend.runs.get("old")).status == "succeeded"


async def test_ids_starting_with_a_prefix_come_from_running_and_finished_runs_alike(backend: Backend):
    await backend.runs.save(run("0911dd99aaaa", status="running"))
    await backend.runs.save_many([run(f"0911dd99b{i:03}", created_at=1000 + i) for i in range(5)])
    await backend.runs.save(run("abcd00000000"))
    await backend.reopen()
    assert sorted(await backend.runs.ids_starting("0911dd99", 10)) == [
        "0911dd99aaaa", *(f"0911dd99b{i:03}" for i in range(5))]
    assert await backend.runs.ids_starting("abcd", 10) == ["abcd00000000"]
    assert len(await backend.runs.ids_starting("0911", 2)) == 2
    assert await backend.runs.ids_starting("ffff", 10) == []
