"""The record says which: an agent's client that gives up on a run leaves it going for the person,
and the run's record says when the agent stopped waiting (a run the agent's leaving stopped says so by
its cause instead)."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
from mcp import Client
from mcp_support import T
from support.agent import greet, person_awaited, seqdesk_mcp
from support.app import process_gone
from support.engine import Events
from support.waiting import wait_until

from gui.second_launch import read_endpoint


async def test_an_agent_that_stops_waiting_is_in_the_record_of_the_run_that_went_on(tmp_path):
    """A real `seqdesk mcp` over stdio with the app started for it: the agent cancels its `seq_run`
    while the approval waits, the person answers in the app, and the finished record says both."""
    data = tmp_path / "data"
    params = seqdesk_mcp(data, tmp_path)
    waiting, on_progress = person_awaited()
    async with asyncio.timeout(3 * T):
        async with Client(params) as client:
            assert not (await client.call_tool("seq_create", greet("echo went-on"))).is_error
            endpoint = read_endpoint(data)
            assert endpoint is not None
            app_pid = int(endpoint["pid"])
            run = asyncio.create_task(client.call_tool("seq_run", {"name": "greet"}, progress_callback=on_progress))
            await waiting.wait()
            before = time.time()
            run.cancel()  # the agent's client gives up waiting
            await asyncio.gather(run, return_exceptions=True)
        async with httpx.AsyncClient(base_url=str(endpoint["url"])) as app:
            [pending] = (await app.get("/api/interactions", params={"status": "pending"})).json()
            answer = await app.post(f"/api/interactions/{pending['request']['interaction_id']}/respond",
                                    json={"kind": "approval", "decision": "approved"})
            assert answer.status_code == 200, answer.text
        await wait_until(lambda: process_gone(app_pid), "the agent's app to end", timeout=6 * T)
        from gui.runtime import open_store_runtime

        runtime = await open_store_runtime(data)
        try:
            [record] = await runtime.engine.list_runs()
        finally:
            await runtime.close()
    assert (record.status, record.cause, record.outputs) == ("succeeded", None, {"said": "went-on"})
    assert record.agent_left_at is not None and before <= record.agent_left_at <= (record.finished_at or 0)
    assert record.to_summary_json()["agent_left_at"] == record.agent_left_at


SHELL = {"name": "shell", "groups": [{"name": "shell-g", "in": {}, "out": {"said": "string"}, "tools": json.dumps(
    {"tool": "cmd_run", "args": {"command": "echo hello"}, "as": "said"}) + " ;"}]}


async def waiting_run(remote, engine) -> tuple[str, str]:
    """Start the shell sequence through the door over HTTP; (run_id, interaction_id) once it waits."""
    events = Events(engine)
    await remote.create(SHELL)
    record = await remote.start("shell")
    created = await events.next("interaction.created")
    return record.run_id, created.data["interaction_id"]


async def test_the_door_over_http_notes_the_agent_left_and_the_finished_record_keeps_it(remote, current_engine):
    engine = current_engine
    run_id, iid = await waiting_run(remote, engine)
    assert await remote.agent_stopped_waiting(run_id) is True
    assert (await remote.get_run(run_id)).agent_left_at is None  # written once the run has ended
    await remote.respond(iid, {"kind": "approval", "decision": "approved"})
    record = await engine.runner.wait(run_id, T)
    await engine.agent_leaving.settle()
    stored = await remote.get_run(run_id)
    assert (stored.status, stored.cause, stored.outputs) == ("succeeded", None, {"said": "hello"})
    assert record.created_at <= stored.agent_left_at <= stored.finished_at
    assert await remote.agent_stopped_waiting(run_id) is False  # it ended: nothing went on
    assert await remote.agent_stopped_waiting("nope") is False  # the app's 404, as for `stop`


async def test_a_run_stopped_because_its_agent_left_says_so_by_its_cause_alone(remote, current_engine):
    engine = current_engine
    run_id, _iid = await waiting_run(remote, engine)
    assert await remote.agent_stopped_waiting(run_id) is True
    assert await remote.stop(run_id, "agent_gave_up") is True
    await engine.runner.wait(run_id, T)
    await engine.agent_leaving.settle()
    stored = await remote.get_run(run_id)
    assert (stored.status, stored.cause, stored.agent_left_at) == ("stopped", "agent_gave_up", None)


async def test_an_unknown_run_is_404_to_the_agent_left_route(client):
    answer = await client.post("/api/runs/nope/agent-left")
    assert (answer.status_code, answer.json()) == (404, {"detail": "there is no run nope", "code": "not-found"})
