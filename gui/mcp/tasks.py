"""The Tasks extension (`io.modelcontextprotocol/tasks`, protocol 2026-07-28) as SeqDesk serves it.

A client that declares the extension on its `tools/call` of `seq_run`, `seq_call`, `seq_when_call` or
`seq_resume` gets a task at once (`resultType: "task"`) instead of waiting on the request while a
person takes their time. `tasks/get` then says where the run is: `working`; `input_required` while a person is
asked, with each inbox item as an input request (a URL elicitation pointing at the app's inbox when
there is one) and, in `_meta`, the request itself so the agent's client can show what is asked;
`completed` with the tool's result (a run that did not succeed is a completed call with `isError`,
as the extension says); `failed` only for a protocol error. `tasks/cancel` stops the run, recorded
as the agent cancelling it. `tasks/update` is acknowledged, but answers never come from the agent's
side: the person answers in SeqDesk (the agent asked; a person approves). The 2026-07-28 extension
has no `tasks/result` and no `tasks/list` (a task is read by its unguessable id only).

A task outlives the server that gave it: its id is written down with its run's (`gui.mcp.task_book`),
so after `seqdesk mcp` (or the app) started again, `tasks/get` and `tasks/cancel` of a task whose run
still exists answer from the run's record: `working` or `input_required` (its pending inbox items)
while it runs, then its result, or `cancelled` when the agent cancelled it.
"""

from __future__ import annotations

import contextvars
import datetime
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver.server import require_client_extension
from mcp_types import CallToolRequestParams, CancelTaskRequestParams, GetTaskRequestParams, RequestParams
from mcp_types.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from gui.core.asks import InteractionRecord, ToolSource
from gui.core.door import Operations
from gui.core.errors import SeqDeskError
from gui.core.runs import RunRecord
from gui.mcp.agent_runs import CANCELLED, AgentRun, AgentRuns, Waiting
from gui.mcp.task_book import BookedTask

TASKS = "io.modelcontextprotocol/tasks"
WAITING_META = "dev.seqdesk/waiting"
TASK_TOOLS = frozenset({"seq_run", "seq_call", "seq_when_call", "seq_resume"})
POLL_MS = 2000
# The agent run a task-augmented call belongs to, seen by the tool's handler running in its task.
CURRENT: contextvars.ContextVar[AgentRun | None] = contextvars.ContextVar("seqdesk_agent_run", default=None)
OpenOps = Callable[[], Awaitable[Operations]]
ResultOf = Callable[[RunRecord], Any]  # a finished run's record as the tool's result (a CallToolResult)


class UpdateTaskParams(RequestParams):
    task_id: str = Field(alias="taskId")
    input_responses: dict[str, Any] | None = Field(default=None, alias="inputResponses")


def declared(ctx: ServerRequestContext[Any, Any]) -> bool:
    caps = ctx.session.client_capabilities
    return bool(caps is not None and caps.extensions and TASKS in caps.extensions)


def _iso(moment: float) -> str:
    return datetime.datetime.fromtimestamp(moment, datetime.UTC).isoformat().replace("+00:00", "Z")


class TasksExtension(Extension):
    identifier = TASKS

    def __init__(self, runs: AgentRuns, operations: OpenOps, result_of: ResultOf) -> None:
        self.runs = runs
        self.operations = operations
        self.result_of = result_of

    def methods(self) -> list[MethodBinding]:
        modern = frozenset(MODERN_PROTOCOL_VERSIONS)  # 2025-11-25's in-core tasks are another design
        return [MethodBinding("tasks/get", GetTaskRequestParams, self._get, modern),
                MethodBinding("tasks/update", UpdateTaskParams, self._update, modern),
                MethodBinding("tasks/cancel", CancelTaskRequestParams, self._cancel, modern)]

    async def intercept_tool_call(self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any],
                                  call_next: CallNext) -> HandlerResult:
        if params.name not in TASK_TOOLS or not declared(ctx):
            return await call_next(ctx)
        run = self.runs.begin(params.name, task=True)
        token = CURRENT.set(run)
        try:
            self.runs.carry(run, call_next(ctx))  # the task copies the context, CURRENT with it
        finally:
            CURRENT.reset(token)
        return {"resultType": "task", **self._task(run, "the run has started")}

    def _task(self, run: AgentRun, message: str | None = None) -> dict[str, Any]:
        task: dict[str, Any] = {"taskId": run.id, "status": run.state, "createdAt": _iso(run.created_at),
                                "lastUpdatedAt": _iso(run.updated_at), "ttlMs": None, "pollIntervalMs": POLL_MS}
        words = message or run.message
        if words:
            task["statusMessage"] = words
        return task

    def _find(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> AgentRun | BookedTask:
        """The task in this server's memory, or one written down by a server before (its run's id)."""
        require_client_extension(ctx, TASKS)
        run = self.runs.get(task_id)
        if run is not None and run.is_task:
            return run
        booked = self.runs.book.find(task_id)
        if booked is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Failed to retrieve task: there is no task {task_id}")
        return booked

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: GetTaskRequestParams) -> HandlerResult:
        run = self._find(ctx, params.task_id)
        if isinstance(run, BookedTask):
            return await self._get_booked(run)
        state = run.state
        task = {"resultType": "complete", **self._task(run)}
        if state == "input_required":
            task.update(await self._input_requests(list(run.waiting.values())))
        elif state == "completed":
            result = run.result
            task["result"] = (result.model_dump(by_alias=True, mode="json", exclude_none=True)
                              if hasattr(result, "model_dump") else result)
        elif state == "failed":
            error = run.error
            code = error.code if isinstance(error, MCPError) else INTERNAL_ERROR
            task["error"] = {"code": code, "message": str(error) or type(error).__name__}
            task["statusMessage"] = f"the run could not be followed: {task['error']['message']}"
        elif state == "cancelled":
            task["statusMessage"] = "the agent cancelled the run"
        return {k: v for k, v in task.items() if v is not None or k == "ttlMs"}

    async def _record_of(self, booked: BookedTask) -> tuple[Operations, RunRecord]:
        ops = await self.operations()
        try:
            record = await ops.get_run(booked.run_id)
        except SeqDeskError as exc:
            raise MCPError(code=INTERNAL_ERROR, message=f"the run {booked.run_id} of task {booked.task_id} cannot "
                                                        f"be read: {exc}") from None
        if record is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Failed to retrieve task: there is no task "
                                                        f"{booked.task_id} (its run {booked.run_id} is gone)")
        return ops, record

    async def _get_booked(self, booked: BookedTask) -> HandlerResult:
        """A task given before this server started: where its run is, from the run's record."""
        ops, record = await self._record_of(booked)
        task: dict[str, Any] = {"resultType": "complete", "taskId": booked.task_id,
                                "createdAt": _iso(booked.created_at),
                                "lastUpdatedAt": _iso(record.finished_at or time.time()), "ttlMs": None,
                                "pollIntervalMs": POLL_MS}
        if record.status == "running":
            try:
                pending = await ops.pending(record.run_id)
            except SeqDeskError:
                pending = []
            if pending:
                task["status"] = "input_required"
                task.update(await self._input_requests([_waiting(i) for i in pending]))
            else:
                task.update(status="working", statusMessage="the run goes on")
        elif record.cause == CANCELLED:
            task.update(status="cancelled", statusMessage="the agent cancelled the run")
        else:
            task["status"] = "completed"
            result = self.result_of(record)
            task["result"] = (result.model_dump(by_alias=True, mode="json", exclude_none=True)
                              if hasattr(result, "model_dump") else result)
        return {k: v for k, v in task.items() if v is not None or k == "ttlMs"}

    async def _input_requests(self, waits: list[Waiting]) -> dict[str, Any]:
        """Each inbox item the run waits on, as an input request the agent's client can show."""
        ops = await self.operations()
        inbox = ops.inbox_url
        requests: dict[str, Any] = {}
        shown: list[dict[str, Any]] = []
        for waiting in waits:
            message = (f"'{waiting.tool_name}' waits for a person: approve or answer it in SeqDesk "
                       f"(inbox item {waiting.interaction_id}).")
            if inbox:
                params: dict[str, Any] = {"mode": "url", "message": message, "url": inbox,
                                          "elicitationId": waiting.interaction_id}
            else:
                params = {"mode": "form", "message": message, "requestedSchema": {"type": "object", "properties": {}}}
            requests[waiting.interaction_id] = {"method": "elicitation/create", "params": params}
            item: dict[str, Any] = {"interactionId": waiting.interaction_id, "tool": waiting.tool_name,
                                    "runId": waiting.run_id, "inbox": inbox}
            try:
                record = await ops.get_interaction(waiting.interaction_id)
            except SeqDeskError:
                record = None
            if record is not None:
                item["request"] = record.request.model_dump(mode="json")
            shown.append(item)
        return {"inputRequests": requests, "_meta": {WAITING_META: shown},
                "statusMessage": "; ".join(r["params"]["message"] for r in requests.values()) or None}

    async def _update(self, ctx: ServerRequestContext[Any, Any], params: UpdateTaskParams) -> HandlerResult:
        self._find(ctx, params.task_id)  # a person answers in SeqDesk, never through the agent
        return {"resultType": "complete"}

    async def _cancel(self, ctx: ServerRequestContext[Any, Any], params: CancelTaskRequestParams) -> HandlerResult:
        run = self._find(ctx, params.task_id)
        if isinstance(run, BookedTask):  # given before this server started: its run is stopped by its id
            ops, record = await self._record_of(run)
            if record.status == "running":
                try:
                    await ops.stop(record.run_id, CANCELLED)
                except SeqDeskError as exc:
                    raise MCPError(code=INTERNAL_ERROR, message=f"the run {record.run_id} could not be stopped: "
                                                                f"{exc}") from None
            return {"resultType": "complete"}
        ops = await self.operations()
        await self.runs.cancel(run, ops.stop)
        return {"resultType": "complete"}


def _waiting(item: InteractionRecord) -> Waiting:
    """A pending inbox item as what a run waits on."""
    source = item.request.source
    tool = source.tool_name if isinstance(source, ToolSource) else "a step"
    return Waiting(item.interaction_id, tool, item.request.turn_id)
