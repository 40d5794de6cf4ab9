"""MCP tasks as the 2026-07-28 protocol has them: the `io.modelcontextprotocol/tasks` extension (SEP-2663).

SeqDesk says on every request that it takes tasks; the server then decides, call by call, to answer a
`tools/call` with a task (`resultType: "task"`) instead of its result. The SDK hands such an answer to
this extension's claim, which follows the task to its end inside the same `call_tool`: it asks how it
goes (`tasks/get`, as often as the server suggests, each status message shown as the step's progress),
answers what the task asks for (`inputRequests`: a form or a page reaches the inbox like any request
of a call, and the answers go back with `tasks/update`, each key once), and returns the task's result,
or raises its error. A step that stops cancels the task (`tasks/cancel`).

What the extension needs of the connection (how to answer a request, where to report a status) it
reads from the call under way (`TaskCallHooks`), which the connection sets for each call.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal

from mcp import Client, MCPError
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientSession
from mcp_types import (
    INVALID_PARAMS,
    CallToolResult,
    ElicitRequest,
    ElicitResult,
    ErrorData,
    Request,
    RequestParams,
    Result,
    Task,
)
from pydantic import BaseModel, ConfigDict, Field

from gui.core.errors import ToolError
from gui.mcp.task_call import CANCEL_WAIT, POLL, StatusReport

log = logging.getLogger(__name__)

TASKS = "io.modelcontextprotocol/tasks"
Answer = Callable[[Any], Awaitable[ElicitResult | ErrorData]]


@dataclass(frozen=True)
class TaskCallHooks:
    """What the call under way gives a task it turned into."""

    answer: Answer  # answers one elicitation request (its params) as the connection answers any
    on_status: StatusReport


CURRENT_TASK_HOOKS: ContextVar[TaskCallHooks | None] = ContextVar("seqdesk_mcp_task_hooks", default=None)


class _Wire(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="allow")


class CreateTask(Result):
    """The `tools/call` answer that is a task."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str
    status_message: str | None = Field(default=None, alias="statusMessage")
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")


class DetailedTask(_Wire):
    """A `tasks/get` answer: the task, with what its status carries."""

    task_id: str = Field(alias="taskId")
    status: str
    status_message: str | None = Field(default=None, alias="statusMessage")
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")
    input_requests: dict[str, dict[str, Any]] | None = Field(default=None, alias="inputRequests")
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class TaskIdParams(RequestParams):
    task_id: str = Field(alias="taskId")


class UpdateTaskParams(TaskIdParams):
    input_responses: dict[str, Any] = Field(alias="inputResponses")


class GetTask(Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskIdParams
    name_param = "taskId"


class UpdateTask(Request[UpdateTaskParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: UpdateTaskParams
    name_param = "taskId"


class CancelTask(Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskIdParams
    name_param = "taskId"


class Ack(_Wire):
    pass


def offers_task_extension(client: Client) -> bool:
    """The server advertises the tasks extension (it may answer any call with a task)."""
    try:
        extensions = client.server_capabilities.extensions
    except RuntimeError:  # not connected
        return False
    return bool(extensions) and TASKS in (extensions or {})


class TasksExtension(ClientExtension):
    """SeqDesk takes tasks: a task a server answers with is followed to its end within the call."""

    identifier = TASKS

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (ResultClaim(result_type="task", model=CreateTask, resolve=follow_task),)


async def follow_task(created: CreateTask, ctx: ClaimContext) -> CallToolResult:
    """The task's result, once it ended; its questions answered on the way."""
    hooks = CURRENT_TASK_HOOKS.get()
    session, task_id = ctx.session, created.task_id
    seen = DetailedTask.model_validate({"taskId": task_id, "status": created.status,
                                        "statusMessage": created.status_message,
                                        "pollIntervalMs": created.poll_interval_ms})
    answered: set[str] = set()
    try:
        while True:
            if hooks is not None:
                hooks.on_status(_as_task(seen))
            if seen.status == "completed":
                return CallToolResult.model_validate(seen.result or {"content": []})
            if seen.status == "failed":
                error = seen.error or {}
                raise MCPError(int(error.get("code", -32603)), str(error.get("message") or seen.status_message
                                                                    or "the task failed"), error.get("data"))
            if seen.status == "cancelled":
                said = f": {seen.status_message}" if seen.status_message else ""
                raise ToolError(f"the server cancelled the task{said}")
            if seen.status == "input_required" and seen.input_requests:
                await _answer(session, task_id, seen.input_requests, answered, hooks)
            await asyncio.sleep(_interval(seen))
            seen = await session.send_request(GetTask(params=TaskIdParams(taskId=task_id)), DetailedTask)
    except asyncio.CancelledError:
        await _cancel(session, task_id)
        raise


async def _answer(session: ClientSession, task_id: str, requests: dict[str, dict[str, Any]], answered: set[str],
                  hooks: TaskCallHooks | None) -> None:
    responses: dict[str, Any] = {}
    for key, raw in requests.items():
        if key in answered:
            continue
        answered.add(key)
        reply: ElicitResult | ErrorData
        try:
            request = ElicitRequest.model_validate(raw)
        except ValueError:
            reply = ErrorData(code=INVALID_PARAMS, message=f"SeqDesk cannot answer a {raw.get('method')!r} request")
        else:
            reply = await hooks.answer(request.params) if hooks is not None else ElicitResult(action="cancel")
        if isinstance(reply, ErrorData):
            reply = ElicitResult(action="cancel")  # a form that could not be answered: the server goes on without
        responses[key] = reply.model_dump(by_alias=True, mode="json", exclude_none=True)
    if responses:
        await session.send_request(UpdateTask(params=UpdateTaskParams(taskId=task_id, inputResponses=responses)), Ack)


async def _cancel(session: ClientSession, task_id: str) -> None:
    sending = asyncio.ensure_future(session.send_request(CancelTask(params=TaskIdParams(taskId=task_id)), Ack))
    try:
        await asyncio.wait({sending}, timeout=CANCEL_WAIT)
    finally:
        if not sending.done():
            sending.cancel()
        with contextlib.suppress(BaseException):
            await sending
            log.info("task %s cancelled", task_id)


def _interval(task: DetailedTask) -> float:
    suggested = task.poll_interval_ms / 1000 if task.poll_interval_ms else 1.0
    return min(max(suggested, POLL[0]), POLL[1])


def _as_task(seen: DetailedTask) -> Task:
    status = seen.status if seen.status in ("working", "input_required", "completed", "failed", "cancelled") \
        else "working"
    return Task(task_id=seen.task_id, status=status, status_message=seen.status_message,
                created_at="", last_updated_at="", ttl=None)
