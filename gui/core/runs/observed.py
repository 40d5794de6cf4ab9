"""The interaction port as one tool's code sees it (`ObservedPort`, an `AskPort`), and the handle it gives
back: it marks the call waiting when the tool asks (its own question, as `ask_user` does) and resumed
when the answer (or its end) comes. The call's reports go to its caller (`CallReports`:
`gui.core.runs.tool_call.ToolCaller` is the one), which asks the call's approval and its MCP server's
forms itself, with the same marks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from gui.core.asks import InteractionHandle, InteractionPort, InteractionRequest, InteractionResult
from gui.core.runs.call_scope import CallScope
from gui.core.runs.records import ToolRecord

PROGRESS_PER_SECOND = 20


class CallReports(Protocol):
    """What a call's port reports to (and asks through): the tool caller."""

    interactions: InteractionPort

    clock: Callable[[], float]

    def waiting(self, scope: CallScope, record: ToolRecord, interaction_id: str) -> None: ...

    def resumed(self, scope: CallScope, record: ToolRecord) -> None: ...

    def progress(self, scope: CallScope, record: ToolRecord, done: float, total: float | None,
                 message: str | None, *, publish: bool = True) -> None: ...

    def log(self, scope: CallScope, record: ToolRecord, level: str, text: str) -> None: ...

    def process_started(self, scope: CallScope, record: ToolRecord, pid: int,
                        started: float | None) -> Awaitable[None]: ...


class ObservedPort:
    """The interaction port as one tool call sees it (its `ToolContext`'s `interactions`): caps expiry at
    the group's deadline and reports waits, so the run shows "waiting for you" whatever the tool asks.
    It takes the tool's other reports too (`progress`, `log`, `record_process`): one object for all of
    them."""

    __slots__ = ("_caller", "_scope", "_record", "_port", "_second", "_published")

    def __init__(self, caller: CallReports, scope: CallScope, record: ToolRecord) -> None:
        self._caller, self._scope, self._record = caller, scope, record
        self._port = caller.interactions
        self._second, self._published = 0.0, 0  # this second's start, and the progress reports published in it

    def progress(self, done: float, total: float | None, message: str | None) -> None:
        now = self._caller.clock()
        if now - self._second >= 1.0:
            self._second, self._published = now, 0
        self._published += 1
        # A server that reports thousands of times a second is kept on the record, but published
        # at most PROGRESS_PER_SECOND times a second (the last report always reaches the record).
        self._caller.progress(self._scope, self._record, done, total, message,
                              publish=self._published <= PROGRESS_PER_SECOND)

    def log(self, level: str, text: str) -> None:
        self._caller.log(self._scope, self._record, level, text)

    def record_process(self, pid: int, started: float | None) -> Awaitable[None]:
        return self._caller.process_started(self._scope, self._record, pid, started)

    def call_sequence(self, name: str, args: dict[str, Any], depth: int) -> Awaitable[Any]:
        """Run a saved sequence or group (seq_call: `CallScope.call_sequence`, given this run and scope)."""
        assert self._scope.call_sequence is not None  # (the context offers it only then)
        return self._scope.call_sequence(self._scope.execution, self._scope, name, args, depth)

    def _cap(self, deadline: float | None) -> float | None:
        caps = [d for d in (deadline, self._scope.deadline) if d is not None]
        return min(caps) if caps else None

    def _answerers(self) -> dict[str, Any]:
        """Who answers a tool's own question that does not say: its step's answerers."""
        return {"asking": self._scope.asking[self._record.index], "started_by": self._scope.execution.record.started_by}

    async def request(self, request: InteractionRequest, *, deadline: float | None = None) -> _ObservedHandle:
        if request.asking is None and request.started_by is None:
            request = request.model_copy(update=self._answerers())
        handle = await self._port.request(request, deadline=self._cap(deadline))
        self._caller.waiting(self._scope, self._record, handle.interaction_id)
        return _ObservedHandle(self._caller, self._scope, self._record, handle)


class _ObservedHandle:
    __slots__ = ("interaction_id", "_caller", "_scope", "_record", "_handle")

    def __init__(self, caller: CallReports, scope: CallScope, record: ToolRecord, handle: InteractionHandle) -> None:
        self.interaction_id = handle.interaction_id
        self._caller, self._scope, self._record, self._handle = caller, scope, record, handle

    async def result(self) -> InteractionResult:
        try:
            return await self._handle.result()
        finally:
            self._caller.resumed(self._scope, self._record)
