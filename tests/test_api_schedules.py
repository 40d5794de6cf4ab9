"""Schedules over the HTTP API on the TinyDB stores, with the real clock: add, list, pause, delete, a
real 10-second schedule end to end, persistence across a restart, and bad bodies refused at the field."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from support.waiting import within

from gui.api import register_api
from gui.api.request_gate import Served
from gui.context import EngineSlot
from gui.runtime import Runtime, open_runtime

GREET = {"name": "greet", "groups": [{"name": "hello", "in": {"who": "string"}, "out": {"said": "string"},
                                      "tools": json.dumps({"tool": "echo", "args": {"value": "hi $args.who"},
                                                           "as": "said"}) + " ;"}]}


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[Runtime]:
    rt = await open_runtime(tmp_path / "data")
    await rt.engine.create(GREET)
    yield rt
    if not rt.engine.closed:  # a test may have closed it to restart
        await rt.close()


@pytest.fixture
async def client(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    app = FastAPI()
    register_api(app, engine=EngineSlot(runtime.engine).for_api, token=None, served=Served.in_process())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


@pytest.mark.parametrize(("body", "field", "words"), [
    ({"sequence": "nope", "args": {}, "every": "15m"}, "sequence", "no saved sequence named 'nope'"),
    ({"sequence": "greet", "args": {"who": 1}, "every": "15m"}, "args", "'who' must be a string"),
    ({"sequence": "greet", "args": {"who": ""}, "every": "15m"}, "args.who", "is empty, and a schedule runs with "
                                                                            "nobody there to fill it in"),
    ({"sequence": "greet", "args": {"who": "  "}, "cron": "0 9 * * *"}, "args.who", "give it a value"),
    ({"sequence": "greet", "args": {"who": "a"}, "every": "9s"}, "every", "at most every 10s"),
    ({"sequence": "greet", "args": {"who": "a"}, "cron": "every day"}, "cron", "not a cron expression"),
    ({"sequence": "greet", "args": {"who": "a"}, "every": 15}, "every", "as text"),
    ({"sequence": "greet", "args": {"who": "a"}, "every": "1m", "when": "now"}, "when", "not a field"),
])
async def test_a_bad_schedule_is_422_at_its_field_and_nothing_is_stored(client, body, field, words):
    answer = await client.post("/api/schedules", json=body)
    assert answer.status_code == 422
    assert words in answer.json()["fields"][field] and answer.json()["detail"].startswith(f"{field}: ")
    assert (await client.get("/api/schedules")).json() == []


async def test_pause_and_delete_answer_404_for_an_unknown_schedule_and_422_for_a_bad_body(client):
    assert (await client.delete("/api/schedules/nope")).status_code == 404
    assert (await client.post("/api/schedules/nope/pause", json={"paused": True})).status_code == 404
    made = (await client.post("/api/schedules", json={"sequence": "greet", "args": {"who": "a"},
                                                      "cron": "0 9 * * 1-5"})).json()
    bad = await client.post(f"/api/schedules/{made['schedule_id']}/pause", json={"paused": "yes"})
    assert bad.status_code == 422 and bad.json()["fields"] == {"paused": "must be true or false"}
    paused = await client.post(f"/api/schedules/{made['schedule_id']}/pause", json={"paused": True})
    assert paused.json()["paused"] is True
    assert (await client.delete(f"/api/schedules/{made['schedule_id']}")).status_code == 204
    assert (await client.get("/api/schedules")).json() == []


async def test_a_real_ten_second_schedule_runs_its_sequence_and_is_kept_across_a_restart(client, runtime, tmp_path):
    engine = runtime.engine
    finished: asyncio.Queue[str] = asyncio.Queue()
    engine.subscribe(lambda e: e.type == "run.finished" and finished.put_nowait(e.run_id or ""))
    engine.start_schedules()
    made = await client.post("/api/schedules", json={"sequence": "greet", "args": {"who": "Ada"}, "every": "10s"})
    assert made.status_code == 201, made.text
    schedule = made.json()
    assert schedule["when"] == "every 10s" and schedule["last_run"] is None
    # its first turn, ten seconds after it was made
    run_id = await within(finished.get(), "the schedule's first run to end", timeout=20)
    record = await engine.get_run(run_id)
    assert record.status == "succeeded" and record.outputs == {"said": "hi Ada"}
    assert record.schedule_id == schedule["schedule_id"] and record.note == "started by a schedule (every 10s)"
    listed = (await client.get("/api/schedules")).json()
    assert listed[0]["last_run"] == {"run_id": run_id, "status": "succeeded"}
    assert listed[0]["next_at"] > schedule["next_at"]
    await engine.stop_schedules()

    # A restart an hour later: the schedule is still there, and its missed turns run once.
    stored = await engine.schedules.get(schedule["schedule_id"])
    stored.next_at -= 3600
    await engine.schedules.save(stored)
    await runtime.close()
    again = await open_runtime(tmp_path / "data")
    try:
        later: asyncio.Queue[str] = asyncio.Queue()
        again.engine.subscribe(lambda e: e.type == "run.finished" and later.put_nowait(e.run_id or ""))
        again.engine.start_schedules()
        missed = await again.engine.get_run(await within(later.get(), "the missed run to end"))
        assert missed.note.startswith("started by a schedule (every 10s) at start-up: its turn at ")
        assert "was missed while the app was closed, so it runs once now" in missed.note
        [kept] = await again.engine.list_schedules()
        assert [t.outcome for t in kept.turns] == ["started", "started"]
    finally:
        await again.close()


async def test_the_remote_door_manages_schedules_through_the_app(runtime):
    from support.streaming import StreamingTransport

    from gui.core.runs.schedules import ScheduleInvalid
    from gui.remote import RemoteEngine

    app = FastAPI()
    register_api(app, engine=EngineSlot(runtime.engine).for_api, token=None, served=Served.in_process())
    remote = RemoteEngine("http://test",
                          client=httpx.AsyncClient(transport=StreamingTransport(app), base_url="http://test"))
    try:
        with pytest.raises(ScheduleInvalid) as refused:
            await remote.create_schedule("greet", {"who": "a"}, cron="nope")
        assert "cron" in refused.value.fields
        made = await remote.create_schedule("greet", {"who": "a"}, every="1h")
        assert [s.schedule_id for s in await remote.list_schedules()] == [made.schedule_id]
        assert (await remote.pause_schedule(made.schedule_id)).paused
        assert await remote.delete_schedule(made.schedule_id) and not await remote.delete_schedule(made.schedule_id)
    finally:
        await remote.close()
