"""A tool call run as a task (MCP tasks of the 2025-11-25 protocol), for a server's tool whose listing
says it supports or requires one (`execution.taskSupport`: `optional` or `required`).

Such a call answers at once with a task. SeqDesk then asks how it goes (`tasks/get`, as often as the
server suggests), shows each status message as the step's progress, and fetches the result
(`tasks/result`) when the task ended or says it needs input: a server sends its request for input
(`elicitation/create`) while that fetch is open, so it reaches the inbox as any other request of a
call (`gui.mcp.elicit.ServerForms`), and the progress goes on being shown meanwhile. A step that stops
(the run is stopped, or its deadline passed) cancels the task (`tasks/cancel`) before it ends.

The SDK keeps these requests as types only: `tasks/get`, `tasks/result` and `tasks/cancel` go
through its session's `send_request`; the task-augmented `tools/call` goes out through the session's
own stamp and dispatcher, because the SDK checks a `tools/call` answer against the plain result and
would refuse the task it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from mcp import Client
from mcp.client.session import ClientSession
from mcp_types import (
    CallToolRequest,
    CallToolRequestParams,
    CallToolResult,
    CancelTaskRequest,
    CancelTaskRequestParams,
    CancelTaskResult,
    CreateTaskResult,
    GetTaskPayloadRequest,
    GetTaskPayloadRequestParams,
    GetTaskRequest,
    GetTaskRequestParams,
    GetTaskResult,
    Task,
    TaskMetadata,
)

from gui.core.errors import ToolError
from gui.core.tools import ToolContext

log = logging.getLogger(__name__)

TASK_SUPPORT = frozenset({"optional", "required"})
TERMINAL = frozenset({"completed", "failed", "cancelled"})
TTL_MS = 24 * 3600 * 1000  # how long the server keeps the task: a person may take their time
POLL = (0.2, 10.0)  # s between two `tasks/get`: the server's suggestion, kept within these bounds
CANCEL_WAIT = 5.0  # s a stopping step waits for the server to take the cancel

RELATED_TASK = "io.modelcontextprotocol/related-task"
TASK_WORDS = {"working": "working", "input_required": "waiting for your answer", "completed": "done",
              "failed": "failed", "cancelled": "cancelled"}

StatusReport = Callable[[Task], None]


def runs_as_task(task_support: str | None, server_offers_tasks: bool) -> bool:
    """Whether a tool is called as a task: it says it can be, and the server offers task calls."""
    return server_offers_tasks and task_support in TASK_SUPPORT


def offers_tasks(client: Client) -> bool:
    """The server takes task-augmented `tools/call` (its `tasks.requests.tools.call` capability)."""
    try:
        tasks = client.server_capabilities.tasks
    except RuntimeError:  # not connected
        return False
    return tasks is not None and tasks.requests is not None and tasks.requests.tools is not None \
        and tasks.requests.tools.call is not None


def related_task(params: Any) -> str | None:
    """The task a server's request belongs to (`_meta` "io.modelcontextprotocol/related-task")."""
    meta = getattr(params, "meta", None)
    related = meta.get(RELATED_TASK) if isinstance(meta, dict) else None
    task_id = related.get("taskId") if isinstance(related, dict) else None
    return task_id if isinstance(task_id, str) else None


def task_reporter(ctx: ToolContext) -> StatusReport:
    """Each new status of the task as the step's progress message, and a line in its log."""
    last: list[tuple[str, str | None]] = []

    def report(task: Task) -> None:
        now = (task.status, task.status_message)
        if last and last[0] == now:
            return
        last[:] = [now]
        words = TASK_WORDS.get(task.status, task.status)
        message = f"{words}: {task.status_message}" if task.status_message else words
        if ctx.progress is not None:
            ctx.progress(0.0, None, message)
        if ctx.log is not None:
            ctx.log("info", f"task {task.task_id}: {message}")

    return report


async def call_as_task(session: ClientSession, name: str, args: dict[str, Any], *,
                       on_status: StatusReport, on_created: Callable[[str], None] | None = None) -> CallToolResult:
    """The tool's result, the call run as a task. `MCPError` as the server said it (a failed task's
    error comes back from `tasks/result`); `ToolError` for a task the server cancelled."""
    request = CallToolRequest(params=CallToolRequestParams(name=name, arguments=args, task=TaskMetadata(ttl=TTL_MS)))
    answer = await _send_unchecked(session, request)
    if "task" not in answer:  # the server ran it at once after all
        return CallToolResult.model_validate(answer)
    task = CreateTaskResult.model_validate(answer).task
    if on_created is not None:
        on_created(task.task_id)
    try:
        on_status(task)
        while task.status not in TERMINAL and task.status != "input_required":
            await asyncio.sleep(_interval(task))
            task = await _get(session, task.task_id)
            on_status(task)
        if task.status == "cancelled":
            raise ToolError(f"the server cancelled the task{_said(task)}")
        return await _result(session, task, on_status)
    except asyncio.CancelledError:
        await _cancel(session, task.task_id)
        raise


async def _result(session: ClientSession, task: Task, on_status: StatusReport) -> CallToolResult:
    """`tasks/result` (open while the person answers what the task asked), the status still followed."""
    follower = asyncio.create_task(_follow(session, task, on_status)) if task.status not in TERMINAL else None
    try:
        return await session.send_request(
            GetTaskPayloadRequest(params=GetTaskPayloadRequestParams(task_id=task.task_id)), CallToolResult)
    finally:
        if follower is not None:
            follower.cancel()
            await asyncio.gather(follower, return_exceptions=True)


async def _follow(session: ClientSession, task: Task, on_status: StatusReport) -> None:
    seen = task
    while seen.status not in TERMINAL:
        await asyncio.sleep(_interval(seen))
        try:
            seen = await _get(session, task.task_id)
        except Exception as exc:  # following is only for the progress shown: the result says the rest
            log.debug("following task %s stopped: %s", task.task_id, exc)
            return
        on_status(seen)


async def _get(session: ClientSession, task_id: str) -> Task:
    return await session.send_request(GetTaskRequest(params=GetTaskRequestParams(task_id=task_id)), GetTaskResult)


async def _cancel(session: ClientSession, task_id: str) -> None:
    """Tell the server the step stopped; bounded, and a failure only logged (the step stops anyway)."""
    sending = asyncio.ensure_future(session.send_request(
        CancelTaskRequest(params=CancelTaskRequestParams(task_id=task_id)), CancelTaskResult))
    try:
        await asyncio.wait({sending}, timeout=CANCEL_WAIT)
    finally:
        if not sending.done():
            sending.cancel()
        with contextlib.suppress(BaseException):
            await sending
            log.info("task %s cancelled", task_id)


async def _send_unchecked(session: ClientSession, request: CallToolRequest) -> dict[str, Any]:
    data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    opts: dict[str, Any] = {}
    session._stamp(data, opts)  # type: ignore[arg-type]  # the session's own headers and _meta
    return await session._dispatcher.send_raw_request(data["method"], data.get("params"), opts)  # type: ignore[arg-type]


def _interval(task: Task) -> float:
    suggested = task.poll_interval / 1000 if task.poll_interval else 1.0
    return min(max(suggested, POLL[0]), POLL[1])


def _said(task: Task) -> str:
    return f": {task.status_message}" if task.status_message else ""
