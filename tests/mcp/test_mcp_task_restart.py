"""A task outlives the `seqdesk mcp` that gave it. Real processes: the app on a data folder, one
`seqdesk mcp` over stdio giving the agent a task for `seq_run` whose step waits for a person, that
process ended (the agent's client closed it), then a new `seqdesk mcp`: its `tasks/get` answers for the
old task from the run's record (the inbox item while it waits, then the result once the person
answered in the app) and its `tasks/cancel` stops the run, recorded as the agent cancelling it.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from pathlib import Path

import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp_support import T
from support.app import RunningApp, clean_env, running_app
from support.waiting import wait_until, within
from task_client import TasksClient, TaskState

from gui.mcp.task_book import FOLDER

STEP = {"tool": "cmd_run", "args": {"command": "echo after-the-restart"}, "as": "said"}
GREET = {"name": "restart-greet", "groups": [{"name": "restart-greet-g", "in": {}, "out": {"said": "string"},
                                              "tools": json.dumps(STEP) + " ;"}]}


ROOT = Path(__file__).resolve().parents[2]


def server_params(app: RunningApp, tmp_path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "gui", "mcp"], cwd=str(tmp_path),
                                 env=clean_env(app.data_dir) | {"PYTHONPATH": str(ROOT)})


async def a_task_then_the_server_ends(app: RunningApp, tmp_path) -> str:
    """The first `seqdesk mcp`: the agent's task waits for a person; then the process ends. Its id."""
    tasks = TasksClient(poll=0.2, request_timeout=T)
    async with Client(server_params(app, tmp_path), extensions=[tasks], read_timeout_seconds=T) as client:
        assert not (await client.call_tool("seq_create", GREET)).is_error
        call = asyncio.create_task(client.call_tool("seq_run", {"name": GREET["name"]}))
        await within(tasks.needs_input.wait(), "the task to need input", timeout=2 * T)
        [handle] = tasks.handles
        call.cancel()
        await within(asyncio.gather(call, return_exceptions=True), "the cancelled call to end")
    assert (app.data_dir / FOLDER / f"{handle.task_id}.json").is_file()
    return handle.task_id


async def get(client: Client, tasks: TasksClient, task_id: str) -> TaskState:
    state = await tasks.send(client.session, "tasks/get", task_id)
    assert isinstance(state, TaskState)
    return state


async def test_after_a_restart_tasks_get_answers_from_the_runs_record(tmp_path):
    with running_app(tmp_path, tmp_path / "data") as app:
        async with asyncio.timeout(6 * T):
            task_id = await a_task_then_the_server_ends(app, tmp_path)
            tasks = TasksClient(poll=0.2, request_timeout=T)
            async with Client(server_params(app, tmp_path), extensions=[tasks], read_timeout_seconds=T) as client:
                waiting = await get(client, tasks, task_id)
                assert waiting.status == "input_required", waiting
                [(interaction_id, asked)] = (waiting.input_requests or {}).items()
                assert "cmd_run" in asked["params"]["message"]
                status, body = app.api("POST", f"/api/interactions/{interaction_id}/respond",
                                       {"kind": "approval", "decision": "approved"})
                assert status == 200, body

                async def completed() -> TaskState | None:
                    state = await get(client, tasks, task_id)
                    return state if state.status == "completed" else None

                done = await wait_until(completed, "the old task to complete", timeout=2 * T)
                assert done.result is not None and done.result["isError"] is False
                assert done.result["structuredContent"]["outputs"] == {"said": "after-the-restart"}

                with pytest.raises(MCPError, match="there is no task"):
                    await get(client, tasks, str(uuid.uuid4()))


async def test_after_a_restart_tasks_cancel_stops_the_run_as_the_agent_cancelling_it(tmp_path):
    with running_app(tmp_path, tmp_path / "data") as app:
        async with asyncio.timeout(6 * T):
            task_id = await a_task_then_the_server_ends(app, tmp_path)
            run_id = json.loads((app.data_dir / FOLDER / f"{task_id}.json").read_text(encoding="utf-8"))["run_id"]
            tasks = TasksClient(poll=0.2, request_timeout=T)
            async with Client(server_params(app, tmp_path), extensions=[tasks], read_timeout_seconds=T) as client:
                await tasks.send(client.session, "tasks/cancel", task_id)
                status, record = app.api("GET", f"/api/runs/{run_id}")
                assert (status, record["status"], record["cause"]) == (200, "stopped", "agent_cancelled")
                assert (await get(client, tasks, task_id)).status == "cancelled"
