"""Approvals on Temporal: the workflow waits for the answer, not an activity.

A tool call that must be approved stores its request first, as everywhere. Then, instead of waiting
inside the `call_tool` activity (which would hold a worker while a person thinks), the call pauses
(`AwaitedElsewhere`): the activity ends saying which request it asked, and the run's workflow waits
for the signal `answered` that the stored answer sends (`TemporalExecutor` hears every request of
its runs end, and signals). Then `call_tool` is made again with that request's id: the call takes
the stored answer instead of asking again, and goes on. The app, or its worker, may stop and come
back while the person thinks: the request stays in the inbox, and the workflow still waits.

Only the approval a call asks before it runs waits so. A question or a form a tool asks while it
runs (`ask_user`, an MCP server's form) is waited for inside the tool's call, as in process. A run
that `seq_call` called is a workflow of its own (a child workflow): its approvals pause as any run's.
"""

from __future__ import annotations

from contextvars import ContextVar

from gui.core.asks import (
    ApprovalHandle,
    ApprovalOutcome,
    ElicitationRequest,
    FormHandle,
    InteractionHandle,
    InteractionRequest,
    InteractionService,
    ShellApprovalRequest,
    ToolApprovalRequest,
    ToolSource,
    approval_outcome,
)
from gui.core.causes import CancelReason, EndCause
from gui.core.runs import AwaitedElsewhere

# The step (tool_call_id) whose `call_tool` activity this task runs: only its own approval pauses.
CALLING: ContextVar[str | None] = ContextVar("seqdesk_calling", default=None)


class _Decided:
    """An approval whose outcome is already known (its stored answer)."""

    waiting = False

    def __init__(self, outcome: ApprovalOutcome) -> None:
        self.interaction_id = outcome.interaction_id
        self._outcome = outcome

    async def outcome(self) -> ApprovalOutcome:
        return self._outcome


class _Paused:
    """An approval stored and waiting for a person, waited for by the workflow."""

    waiting = True

    def __init__(self, interaction_id: str) -> None:
        self.interaction_id = interaction_id

    async def outcome(self) -> ApprovalOutcome:
        raise AwaitedElsewhere(self.interaction_id)


class WorkflowApprovals:
    """The interaction port of the Temporal executor's tool calls (`InteractionPort`)."""

    def __init__(self, service: InteractionService) -> None:
        self.service = service
        self.clock = service.clock
        self.answers: dict[str, str] = {}  # step (tool_call_id) -> the request it asked, now answered

    async def request(self, request: InteractionRequest, *, deadline: float | None = None) -> InteractionHandle:
        return await self.service.request(request, deadline=deadline)

    async def ask_form(self, request: ElicitationRequest, *, deadline: float | None = None) -> FormHandle:
        return await self.service.ask_form(request, deadline=deadline)

    async def cancel(self, interaction_id: str, reason: CancelReason, cause: EndCause | None = None) -> bool:
        return await self.service.cancel(interaction_id, reason, cause)

    async def ask_approval(self, request: ShellApprovalRequest | ToolApprovalRequest, tool_name: str, *,
                           deadline: float | None = None) -> ApprovalHandle:
        step = request.source.tool_call_id if isinstance(request.source, ToolSource) else None
        answered = self.answers.pop(step, None) if step is not None else None
        if answered is not None:  # the call made again: its request was answered (or ended) meanwhile
            stored = await self.service.get(answered)
            if stored is not None and stored.result is not None:
                return _Decided(approval_outcome(answered, stored.result))
        asked = await self.service.ask_approval(request, tool_name, deadline=deadline)
        # Only the step's own approval pauses (it names its step): one a tool asks during its call waits there.
        if asked.waiting and step is not None and CALLING.get() == step and request.step_fingerprint is not None:
            return _Paused(asked.interaction_id)
        return asked
