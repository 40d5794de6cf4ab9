"""Short run ids ("0911dd99", as every screen shows them) open the run: in the engine, over the
HTTP API, through the remote engine the CLI uses, and with a clear error when several runs match."""

from __future__ import annotations

import asyncio

import pytest
from support.waiting import within

from gui.core.door.engine import Engine
from gui.core.runs.records import RunRecord
from gui.core.runs.run_ids import AmbiguousRunIdError, pick, short_id

IDS = ("0911dd99aaaa", "0911dd99bbbb", "5a5a5a5a1234")


@pytest.fixture
async def engine(current_engine: Engine) -> Engine:
    for n, run_id in enumerate(IDS):
        await current_engine.runs.save(RunRecord(run_id=run_id, sequence="nightly", status="succeeded",
                                                 created_at=1000.0 + n, finished_at=1001.0 + n))
    return current_engine


def test_pick_finds_the_one_match_and_refuses_to_guess_between_several():
    assert pick("5a5a", IDS) == "5a5a5a5a1234"
    assert pick("ffff", IDS) is None
    with pytest.raises(AmbiguousRunIdError) as caught:
        pick("0911dd99", IDS)
    assert caught.value.candidates == ["0911dd99aaaa", "0911dd99bbbb"]
    assert "is ambiguous" in str(caught.value) and "give more of its characters" in str(caught.value)
    assert short_id("0911dd99aaaa") == "0911dd99"


async def test_the_engine_finds_a_run_by_its_whole_id_or_a_unique_start(engine):
    assert (await engine.find_run("5a5a5a5a1234")).run_id == "5a5a5a5a1234"
    assert (await engine.find_run("5a5a5a5a")).run_id == "5a5a5a5a1234"
    assert (await engine.find_run("0911dd99a")).run_id == "0911dd99aaaa"
    assert await engine.find_run("ffffffff") is None
    assert await engine.find_run("5a5") is None  # too short to be looked up as a start
    with pytest.raises(AmbiguousRunIdError):
        await engine.find_run("0911dd99")


async def test_a_running_run_is_found_by_its_short_id_too(engine):
    await engine.create({"name": "waits", "groups": [{"name": "waits-g", "tools":
                         '{"tool": "cmd_run", "args": {"command": "true"}} ;'}]})
    waiting = asyncio.Event()
    unsubscribe = engine.subscribe(lambda e: waiting.set() if e.type == "tool.waiting" else None)
    record = await engine.start("waits", {})
    try:
        await within(waiting.wait(), "the tool to wait for a person")
        found = await engine.find_run(short_id(record.run_id))
        assert found is not None and found.run_id == record.run_id and found.status == "running"
    finally:
        unsubscribe()
        await engine.stop(record.run_id)


async def test_the_api_reads_a_run_by_its_short_id_and_says_409_for_an_ambiguous_one(client):
    found = await client.get("/api/runs/5a5a5a5a")
    assert found.status_code == 200 and found.json()["run_id"] == "5a5a5a5a1234"
    ambiguous = await client.get("/api/runs/0911dd99")
    assert ambiguous.status_code == 409
    body = ambiguous.json()
    assert body["code"] == "ambiguous-run-id" and body["candidates"] == ["0911dd99aaaa", "0911dd99bbbb"]
    assert "more than one run starts with it" in body["detail"]
    assert (await client.get("/api/runs/ffffffff")).status_code == 404
    assert (await client.post("/api/runs/5a5a5a5a/stop")).json() == {"stopped": False}  # found, already ended
    assert (await client.post("/api/runs/0911dd99/stop")).status_code == 409


async def test_the_remote_engine_resolves_short_ids_through_the_app(remote):
    assert (await remote.find_run("5a5a5a5a")).run_id == "5a5a5a5a1234"
    assert await remote.find_run("ffffffff") is None
    with pytest.raises(AmbiguousRunIdError) as caught:
        await remote.find_run("0911dd99")
    assert caught.value.candidates == ["0911dd99aaaa", "0911dd99bbbb"]
