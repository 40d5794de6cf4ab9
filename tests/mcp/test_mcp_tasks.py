"""An agent whose run waits for a person: a task to poll (Tasks extension), or progress that never
stops while the person takes their time; a client that gives up leaves the run going; only the
agent's `tasks/cancel` stops it, and the record says the agent cancelled it.

In process: the SDK's own `Client` talks to `build_server` over its in-memory transport, the test
plays the person answering in the inbox.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from mcp import Client, MCPError
from mcp_support import T
from support.waiting import wait_until, within
from task_client import TASKS, TasksClient

from gui.core.asks.interactions import ApprovalResponse
from gui.core.door.engine import Engine
from gui.mcp.agent_runs import AgentRuns
from gui.mcp.server import build_server
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import default_registry

STEP = {"tool": "cmd_run", "args": {"command": "echo from-the-agent"}, "as": "said"}
GREET = {"name": "greet", "groups": [{"name": "greet-g", "in": {}, "out": {"said": "string"},
                                      "tools": json.dumps(STEP) + " ;"}]}


@asynccontextmanager
async def served(heartbeat: float = 10.0) -> AsyncIterator[tuple[Engine, AgentRuns, object]]:
    engine = compose_engine(default_registry(), MemoryStores())
    runs = AgentRuns()

    async def open_engine() -> Engine:
        return engine

    try:
        yield engine, runs, build_server(open_engine, runs=runs, heartbeat=heartbeat)
    finally:
        await runs.settle(someone_answers=False)
        await engine.close()


async def one_pending(engine: Engine):
    await wait_until(lambda: engine.pending(), "the approval to reach the inbox", timeout=T)
    [pending] = await engine.pending()
    return pending


async def test_a_task_says_it_needs_input_with_the_inbox_item_and_the_request_then_completes():
    tasks = TasksClient(poll=0.05)
    async with served() as (engine, _, server), Client(server, extensions=[tasks]) as client:
        assert TASKS in (client.server_capabilities.extensions or {})
        assert not (await client.call_tool("seq_create", GREET)).is_error
        call = asyncio.create_task(client.call_tool("seq_run", {"name": "greet"}))
        await within(tasks.needs_input.wait(), "the task to need input")
        pending = await one_pending(engine)
        state = tasks.seen[-1]
        assert state.status == "input_required"
        assert state.input_requests is not None
        [(key, request)] = state.input_requests.items()
        assert key == pending.interaction_id
        assert request["method"] == "elicitation/create"
        assert pending.interaction_id in request["params"]["message"]
        [shown] = (state.meta or {})["dev.seqdesk/waiting"]
        assert (shown["interactionId"], shown["tool"]) == (pending.interaction_id, "cmd_run")
        assert shown["request"]["command"] == "echo from-the-agent"  # the request itself, to show the agent
        await engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
        result = await within(call, "the agent's call to end")
    assert not result.is_error
    assert result.structured_content is not None
    assert (result.structured_content["status"], result.structured_content["outputs"]) == (
        "succeeded", {"said": "from-the-agent"})
    assert tasks.seen[-1].status == "completed"


async def test_the_agents_tasks_cancel_stops_the_run_and_the_record_says_the_agent_cancelled_it():
    tasks = TasksClient(poll=0.05)
    async with served() as (engine, _, server), Client(server, extensions=[tasks]) as client:
        assert not (await client.call_tool("seq_create", GREET)).is_error
        call = asyncio.create_task(client.call_tool("seq_run", {"name": "greet"}))
        await within(tasks.needs_input.wait(), "the task to need input")
        pending = await one_pending(engine)
        [handle] = tasks.handles
        await tasks.send(tasks.session, "tasks/cancel", handle.task_id)
        result = await within(call, "the cancelled call to end")
        assert result.is_error and tasks.seen[-1].status == "cancelled"
        [record] = await engine.list_runs()
        assert (record.status, record.cause, record.error) == ("stopped", "agent_cancelled",
                                                               "stopped: the agent cancelled it")
        ended = await engine.get_interaction(pending.interaction_id)
        assert ended is not None and ended.status == "cancelled"
        assert ended.result is not None and ended.result.cause == "agent_cancelled"  # type: ignore[union-attr]


async def test_a_task_is_refused_to_a_client_without_the_extension_and_an_unknown_one_is_named():
    tasks = TasksClient(poll=0.05)
    async with served() as (_, _, server):
        async with Client(server, extensions=[tasks]) as client:
            assert not (await client.call_tool("seq_create", GREET)).is_error
            with pytest.raises(MCPError) as unknown:
                await tasks.send(client.session, "tasks/get", "no-such-task")
            assert unknown.value.code == -32602 and "no-such-task" in unknown.value.message
            for method in ("tasks/result", "tasks/list"):  # not in the 2026-07-28 extension
                with pytest.raises(MCPError) as absent:
                    await tasks.send(client.session, method, "no-such-task")
                assert absent.value.code == -32601
        async with Client(server) as plain:
            with pytest.raises(MCPError) as refused:
                await tasks.send(plain.session, "tasks/get", "no-such-task")
            assert refused.value.code == -32021


async def test_a_client_that_gives_up_leaves_the_run_going_and_the_person_still_answers():
    async with served() as (engine, runs, server), Client(server) as client:
        assert not (await client.call_tool("seq_create", GREET)).is_error
        with pytest.raises(MCPError) as gave_up:  # the agent's client waits 1 s at most for a request
            await client.session.call_tool("seq_run", {"name": "greet"}, read_timeout_seconds=1.0)
        assert gave_up.value.code == -32001  # request timeout
        pending = await one_pending(engine)
        live = await engine.get_run(pending.request.turn_id)
        assert live is not None and live.status == "running"  # not stopped: the person may still answer
        await engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
        record = await within(engine.runner.wait(pending.request.turn_id), "the run's end")
        assert (record.status, record.cause, record.outputs) == ("succeeded", None, {"said": "from-the-agent"})
        await wait_until(lambda: not runs.going, "the agent run to be settled", timeout=T)


async def test_progress_comes_again_and_again_while_a_person_is_awaited():
    heard: list[str] = []
    enough = asyncio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append(message or "")
        if sum("still waits for a person" in m for m in heard) >= 3:
            enough.set()

    async with served(heartbeat=0.05) as (engine, _, server), Client(server) as client:
        assert not (await client.call_tool("seq_create", GREET)).is_error
        call = asyncio.create_task(client.call_tool("seq_run", {"name": "greet"}, progress_callback=on_progress))
        await within(enough.wait(), "three progress notes while a person is awaited")
        pending = await one_pending(engine)
        assert any(pending.interaction_id in m for m in heard if "still waits" in m)
        await engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
        result = await within(call, "the agent's call to end")
    assert not result.is_error


async def test_every_tool_says_in_a_sentence_that_the_app_is_gone():
    from gui.core.errors import Unavailable

    async def gone() -> Engine:
        raise Unavailable("the SeqDesk app at http://127.0.0.1:9 did not answer: connection refused")

    calls = {"seq_list": {}, "seq_help": {}, "seq_tools": {}, "seq_create": GREET, "seq_run": {"name": "greet"},
             "seq_call": {"name": "greet"}, "seq_when_call": {"name": "greet", "when": "$args.n > 1"},
             "seq_resume": {"run_id": "abc"}, "seq_delete": {"name": "greet"}}
    async with Client(build_server(gone)) as client:
        assert {t.name for t in (await client.list_tools()).tools} == set(calls)
        for name, args in calls.items():
            result = await client.call_tool(name, args)
            text = "\n".join(block.text for block in result.content)  # type: ignore[union-attr]
            assert result.is_error, name
            assert "did not answer" in text and "Traceback" not in text and "Error executing" not in text, (name, text)


async def test_over_http_a_task_is_read_across_requests(tmp_path):
    """Streamable HTTP at 2026-07-28 keeps no session: the task lives in the server, each poll finds it."""
    import os
    import subprocess
    import sys

    from support.app import free_port

    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")} | {"SEQDESK_MEMORY": "1"}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "gui", "mcp", "--http", str(port), cwd=tmp_path,
                                                env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    step = {"tool": "echo", "args": {"value": "hi"}, "as": "said"}
    doc = {"name": "quick", "groups": [{"name": "quick-g", "in": {}, "out": {"said": "string"},
                                        "tools": json.dumps(step) + " ;"}]}
    try:
        async with asyncio.timeout(2 * T):
            assert proc.stderr is not None
            while b"Uvicorn running on http://127.0.0.1:" not in (line := await proc.stderr.readline()):
                assert line, "the server ended before it listened"
            tasks = TasksClient(poll=0.05)
            async with Client(f"http://127.0.0.1:{port}/mcp", extensions=[tasks]) as client:
                assert not (await client.call_tool("seq_create", doc)).is_error
                result = await client.call_tool("seq_run", {"name": "quick"})
        assert len(tasks.handles) == 1 and tasks.seen[-1].status == "completed"
        assert result.structured_content is not None and result.structured_content["outputs"] == {"said": "hi"}
    finally:
        proc.terminate()
        await within(proc.wait(), "the stopped server to end")
