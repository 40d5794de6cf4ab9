"""An agent's client that speaks the Tasks extension (2026-07-28), built on the SDK's `Client`.

It declares `io.modelcontextprotocol/tasks`, takes a `resultType: "task"` answer to `tools/call`, and
polls `tasks/get` (each poll its own short request) until the task ends: what an agent's client with
a short request timeout does while a person takes their time. `seen` keeps every state it read.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types import CallToolResult, Request, RequestParams, Result
from pydantic import ConfigDict, Field

TASKS = "io.modelcontextprotocol/tasks"


class TaskHandle(Result):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str


class TaskState(Result):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    task_id: str = Field(alias="taskId")
    status: str
    status_message: str | None = Field(default=None, alias="statusMessage")
    input_requests: dict[str, Any] | None = Field(default=None, alias="inputRequests")
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class TaskParams(RequestParams):
    task_id: str = Field(alias="taskId")


class TaskRequest(Request[TaskParams, str]):
    name_param = "taskId"


class TasksClient(ClientExtension):
    identifier = TASKS

    def __init__(self, *, poll: float = 0.1, request_timeout: float = 2.0) -> None:
        self.poll = poll
        self.request_timeout = request_timeout
        self.handles: list[TaskHandle] = []
        self.seen: list[TaskState] = []
        self.started = asyncio.Event()
        self.needs_input = asyncio.Event()

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self._resolve)]

    async def send(self, ctx_session: Any, method: str, task_id: str) -> TaskState | Result:
        request = TaskRequest(method=method, params=TaskParams(taskId=task_id))
        kind = TaskState if method == "tasks/get" else Result
        return await ctx_session.send_request(request, kind, request_read_timeout_seconds=self.request_timeout)

    async def _resolve(self, handle: TaskHandle, ctx: ClaimContext) -> CallToolResult:
        self.handles.append(handle)
        self.session = ctx.session
        self.started.set()
        while True:
            state = await self.send(ctx.session, "tasks/get", handle.task_id)
            assert isinstance(state, TaskState)
            self.seen.append(state)
            if state.status == "input_required":
                self.needs_input.set()
            if state.status == "completed":
                assert state.result is not None
                return CallToolResult.model_validate(state.result)
            if state.status in ("failed", "cancelled"):
                return CallToolResult.model_validate({"content": [{"type": "text", "text": state.status}],
                                                      "isError": True, "structuredContent": {"task": state.status}})
            await asyncio.sleep(self.poll)  # the poll interval a client keeps between its requests
