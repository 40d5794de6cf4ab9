"""An agent's client with a short request timeout, a person who answers after it: the run succeeds and
the agent gets its result. Real processes end to end: the app on a data folder, `seqdesk mcp` (stdio and
`--http`) going through it, the SDK's own `Client` as the agent, the test as the person answering in the
app's inbox over its HTTP API. A client of another SDK (the TypeScript SDK, with its reset-on-progress
timeout) runs when `MCP_TS_SDK` names a folder whose `node_modules` holds `@modelcontextprotocol/sdk`
(verified with 1.32.2; `.ci/run` installs it); without it that test skips, and under CI=true it fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp_support import T
from support.app import RunningApp, clean_env, free_port, running_app
from support.waiting import wait_until, within
from task_client import TasksClient

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
STEP = {"tool": "cmd_run", "args": {"command": "echo after-the-timeout"}, "as": "said"}
GREET = {"name": "late-greet", "groups": [{"name": "late-greet-g", "in": {}, "out": {"said": "string"},
                                           "tools": json.dumps(STEP) + " ;"}]}
# The agent's client gives up on any one request after this many seconds: its `seq_run` and every poll of
# its task (`TasksClient`). Not its start (`initialize` as `seqdesk mcp` starts: over 2 s on a busy machine).
SHORT = 2.0


def mcp_env(app: RunningApp, **extra: str) -> dict[str, str]:
    return clean_env(app.data_dir) | {"PYTHONPATH": str(ROOT), **extra}


async def pending_of(app: RunningApp) -> dict:
    async def one() -> dict | None:
        status, items = await asyncio.to_thread(app.api, "GET", "/api/interactions?status=pending")
        return items[0] if status == 200 and items else None

    return await wait_until(one, "the agent's approval in the app's inbox", timeout=2 * T)


def approve(app: RunningApp, interaction_id: str) -> None:
    status, body = app.api("POST", f"/api/interactions/{interaction_id}/respond",
                           {"kind": "approval", "decision": "approved"})
    assert status == 200, body


async def test_over_stdio_a_task_outlasts_the_request_timeout_and_brings_the_result(tmp_path):
    with running_app(tmp_path, tmp_path / "data") as app:
        params = StdioServerParameters(command=sys.executable, args=["-m", "gui", "mcp"], cwd=str(tmp_path),
                                       env=mcp_env(app))
        tasks = TasksClient(poll=0.2, request_timeout=SHORT)
        async with asyncio.timeout(4 * T), Client(params, extensions=[tasks]) as client:
            assert not (await client.call_tool("seq_create", GREET)).is_error
            call = asyncio.create_task(client.call_tool("seq_run", {"name": GREET["name"]}, read_timeout_seconds=SHORT))
            await within(tasks.needs_input.wait(), "the task to need input", timeout=2 * T)
            pending = await pending_of(app)
            polls = len(tasks.seen)
            # the person takes their time: longer than the client waits for any one request
            await wait_until(lambda: len(tasks.seen) >= polls + 3 * SHORT / 0.2, "the agent to keep polling",
                             timeout=2 * T)
            assert {s.status for s in tasks.seen[polls:]} == {"input_required"}
            approve(app, pending["request"]["interaction_id"])
            result = await within(call, "the agent's call to end", timeout=T)
        assert not result.is_error
        assert result.structured_content is not None
        assert result.structured_content["outputs"] == {"said": "after-the-timeout"}
        status, record = app.api("GET", f"/api/runs/{result.structured_content['run_id']}")
        assert (status, record["status"], record.get("cause")) == (200, "succeeded", None)


async def test_the_agents_cancel_reaches_the_app_and_its_record_says_the_agent_cancelled_it(tmp_path):
    with running_app(tmp_path, tmp_path / "data") as app:
        params = StdioServerParameters(command=sys.executable, args=["-m", "gui", "mcp"], cwd=str(tmp_path),
                                       env=mcp_env(app))
        tasks = TasksClient(poll=0.2, request_timeout=SHORT)
        async with asyncio.timeout(4 * T), Client(params, extensions=[tasks]) as client:
            assert not (await client.call_tool("seq_create", GREET)).is_error
            call = asyncio.create_task(client.call_tool("seq_run", {"name": GREET["name"]}, read_timeout_seconds=SHORT))
            await within(tasks.needs_input.wait(), "the task to need input", timeout=2 * T)
            pending = await pending_of(app)
            [handle] = tasks.handles
            await tasks.send(tasks.session, "tasks/cancel", handle.task_id)
            result = await within(call, "the cancelled call to end", timeout=T)
        assert result.is_error and tasks.seen[-1].status == "cancelled"
        status, record = app.api("GET", f"/api/runs/{pending['request']['turn_id']}")
        assert (status, record["status"], record["cause"], record["error"]) == (
            200, "stopped", "agent_cancelled", "stopped: the agent cancelled it")


async def test_over_http_a_client_that_gives_up_leaves_the_run_to_the_person(tmp_path):
    with running_app(tmp_path, tmp_path / "data") as app:
        port = free_port()
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "gui", "mcp", "--http", str(port),
                                                    cwd=tmp_path, env=mcp_env(app), stderr=subprocess.PIPE,
                                                    stdout=subprocess.DEVNULL)
        try:
            async with asyncio.timeout(4 * T):
                assert proc.stderr is not None
                while b"Uvicorn running on http://127.0.0.1:" not in (line := await proc.stderr.readline()):
                    assert line, "the server ended before it listened"
                async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                    assert not (await client.call_tool("seq_create", GREET)).is_error
                    with pytest.raises(MCPError) as gave_up:
                        await client.session.call_tool("seq_run", {"name": GREET["name"]},
                                                       read_timeout_seconds=SHORT)
                    assert gave_up.value.code == -32001
                pending = await pending_of(app)
                run_id = pending["request"]["turn_id"]
                status, live = app.api("GET", f"/api/runs/{run_id}")
                assert (status, live["status"]) == (200, "running")  # the agent left; the run did not
                approve(app, pending["request"]["interaction_id"])

                async def ended() -> dict | None:
                    _, record = await asyncio.to_thread(app.api, "GET", f"/api/runs/{run_id}")
                    return record if record["status"] != "running" else None

                record = await wait_until(ended, "the run's end", timeout=2 * T)
                assert (record["status"], record.get("cause")) == ("succeeded", None)
        finally:
            proc.terminate()
            await within(proc.wait(), "the stopped server to end")


async def test_a_typescript_agent_with_a_short_reset_on_progress_timeout_gets_its_result(ts_sdk, tmp_path):
    node, modules = ts_sdk
    with running_app(tmp_path, tmp_path / "data") as app:
        port = free_port()
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "gui", "mcp", "--http", str(port), cwd=tmp_path,
            env=mcp_env(app, SEQDESK_MCP_HEARTBEAT="0.5"), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        agent: asyncio.subprocess.Process | None = None
        try:
            async with asyncio.timeout(6 * T):
                assert proc.stderr is not None
                while b"Uvicorn running on http://127.0.0.1:" not in (line := await proc.stderr.readline()):
                    assert line, "the server ended before it listened"
                agent = await asyncio.create_subprocess_exec(
                    node, str(HERE / "ts_agent.cjs"), f"http://127.0.0.1:{port}/mcp", json.dumps(GREET),
                    str(int(SHORT * 1000)), env={**os.environ, "NODE_PATH": str(modules)},
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                pending = await pending_of(app)
                assert agent.stdout is not None
                # the person answers only after the agent heard progress for longer than its timeout
                heard = 0
                while heard < 3 * SHORT / 0.5:
                    line = await agent.stdout.readline()
                    assert line, (await agent.stderr.read()).decode() if agent.stderr else "the agent ended"
                    said = json.loads(line)
                    if "still waits for a person" in (said.get("message") or ""):
                        heard = said["progress"]
                approve(app, pending["request"]["interaction_id"])
                out, err = await agent.communicate()
                assert agent.returncode == 0, err.decode()
                result = json.loads(out.decode().strip().splitlines()[-1])
                assert result["isError"] is False
                assert result["structuredContent"]["outputs"] == {"said": "after-the-timeout"}
        finally:
            if agent is not None and agent.returncode is None:
                agent.kill()
                await within(agent.wait(), "the killed agent to end")
            proc.terminate()
            await within(proc.wait(), "the stopped server to end")
