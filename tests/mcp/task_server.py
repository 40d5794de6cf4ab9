"""A test MCP server (the Python SDK's `MCPServer`, over stdio) that answers tool calls with tasks, as
the 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) says: `review` becomes a
task that asks the person a question (`input_required` with a form) and finishes with the answer;
`slow` works until it is cancelled, and writes "cancelled <task id>" to the file TASK_SERVER_LOG.
The SDK has no tasks runtime yet: this server is built with its extension interface (methods
`tasks/get`, `tasks/update`, `tasks/cancel`, and a `tools/call` interceptor).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from datetime import UTC, datetime
from typing import Any

from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolRequestParams, RequestParams
from pydantic import Field

TASKS = "io.modelcontextprotocol/tasks"
QUESTION = {"method": "elicitation/create", "params": {
    "mode": "form", "message": "Approve the review?",
    "requestedSchema": {"type": "object", "properties": {
        "verdict": {"type": "string", "enum": ["approve", "reject"]},
        "note": {"type": "string", "default": "none"}}, "required": ["verdict"]}}}


class TaskIdParams(RequestParams):
    task_id: str = Field(alias="taskId")


class UpdateParams(TaskIdParams):
    input_responses: dict[str, Any] = Field(alias="inputResponses")


def now() -> str:
    return datetime.now(UTC).isoformat()


class TaskState:
    def __init__(self) -> None:
        self.id = uuid.uuid4().hex
        self.status = "working"
        self.message = "starting"
        self.created = now()
        self.answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.result: dict[str, Any] | None = None
        self.cancelled = asyncio.Event()
        self.worker: asyncio.Task[None] | None = None

    def view(self) -> dict[str, Any]:
        out: dict[str, Any] = {"taskId": self.id, "status": self.status, "statusMessage": self.message,
                               "createdAt": self.created, "lastUpdatedAt": now(), "ttlMs": 60000,
                               "pollIntervalMs": 200}
        if self.status == "input_required":
            out["inputRequests"] = {"verdict-1": QUESTION}
        if self.status == "completed":
            out["result"] = self.result
        return out


TASK_LIST: dict[str, TaskState] = {}


async def review(task: TaskState) -> None:
    task.message = "reading the change"
    await asyncio.sleep(0.3)
    task.status, task.message = "input_required", "waiting for the reviewer"
    answer = await task.answers.get()
    task.status, task.message = "working", "writing the verdict"
    content = answer.get("content") or {}
    text = f"{answer.get('action')}: {content.get('verdict')} ({content.get('note')})"
    task.result = {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}, "isError": False}
    task.status, task.message = "completed", "done"


async def slow(task: TaskState) -> None:
    task.message = "working slowly"
    await task.cancelled.wait()
    task.status, task.message = "cancelled", "the client cancelled it"


WORK = {"review": review, "slow": slow}


class Tasks(Extension):
    identifier = TASKS

    def methods(self) -> list[MethodBinding]:
        return [MethodBinding("tasks/get", TaskIdParams, self.get),
                MethodBinding("tasks/update", UpdateParams, self.update),
                MethodBinding("tasks/cancel", TaskIdParams, self.cancel)]

    async def intercept_tool_call(self, params: CallToolRequestParams, ctx: Any, call_next: Any) -> Any:
        work = WORK.get(params.name)
        if work is None:
            return await call_next(ctx)
        task = TaskState()
        TASK_LIST[task.id] = task
        task.worker = asyncio.get_running_loop().create_task(work(task))
        return {"resultType": "task", **task.view()}

    async def get(self, _ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        return {"resultType": "complete", **TASK_LIST[params.task_id].view()}

    async def update(self, _ctx: Any, params: UpdateParams) -> dict[str, Any]:
        task = TASK_LIST[params.task_id]
        for key, answer in params.input_responses.items():
            if key == "verdict-1" and task.status == "input_required":
                task.status = "working"
                task.answers.put_nowait(answer)
        return {"resultType": "complete"}

    async def cancel(self, _ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        with open(os.environ["TASK_SERVER_LOG"], "a", encoding="utf-8") as log:  # before the answer
            log.write(f"cancelled {params.task_id}\n")
        TASK_LIST[params.task_id].cancelled.set()
        return {"resultType": "complete"}


server = MCPServer("task-test", extensions=[Tasks()])


@server.tool(name="review", description="Review a change: the server runs it as a task that asks the reviewer")
def review_tool() -> str:
    return "never called: the tasks extension answers"


@server.tool(name="slow", description="Work until cancelled (as a task)")
def slow_tool() -> str:
    return "never called: the tasks extension answers"


if __name__ == "__main__":
    server.run()
