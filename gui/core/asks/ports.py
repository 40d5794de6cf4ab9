"""The one port a run asks a person through (the seed's `InteractionPort`).

A tool call asks its approval through it (`ask_approval`), a tool asks its question (`request`) and
an MCP server's form (`ask_form`); each ends with what the person answered, or why nobody did, as its
asker reads it: an approval's `ApprovalOutcome`, a question's `InteractionResult`, a form's
`ElicitationResponse`. `InteractionService` implements it; the tool caller asks through it
(`gui.core.runs.tool_call`): a call's approval, and the forms its MCP server asks.

A tool's own code sees less of it (`AskPort`, its context's `interactions`): it stores a request and
waits on it (`ask_user`'s question). The runner hands each call one around the service that caps the
wait at the group's deadline and marks the tool as waiting (`gui.core.runs.observed`).
"""

from __future__ import annotations

from typing import Protocol

from gui.core.asks.interactions import (
    ElicitationRequest,
    ElicitationResponse,
    InteractionRequest,
    InteractionResult,
    ShellApprovalRequest,
    ToolApprovalRequest,
)
from gui.core.asks.service import ApprovalOutcome
from gui.core.causes import CancelReason, EndCause


class InteractionHandle(Protocol):
    """A request stored and waiting for a person."""

    interaction_id: str

    async def result(self) -> InteractionResult: ...


class ApprovalHandle(Protocol):
    """An approval asked: allowed at once by a rule (`waiting` is False), or waiting for a person."""

    interaction_id: str
    waiting: bool

    async def outcome(self) -> ApprovalOutcome: ...


class FormHandle(Protocol):
    """A form asked, stored and waiting for a person; giving up on `response` withdraws it."""

    interaction_id: str

    async def response(self) -> ElicitationResponse: ...


class AskPort(Protocol):
    """What a tool's own code asks a person through: the request stored, then waited on its handle.
    `deadline` (epoch seconds) caps the request's `expires_at`."""

    async def request(self, request: InteractionRequest, *, deadline: float | None = None) -> InteractionHandle: ...


class InteractionPort(Protocol):
    """Persist the request, then wait on its handle.

    `deadline` (epoch seconds) caps the request's `expires_at`; `clock` is the port's time, so a
    request's times agree with the service that expires it; `cancel` withdraws a request the caller
    no longer waits for (`cause`: what cut it short, kept on the request's end)."""

    def clock(self) -> float: ...

    async def request(self, request: InteractionRequest, *, deadline: float | None = None) -> InteractionHandle: ...

    async def ask_approval(self, request: ShellApprovalRequest | ToolApprovalRequest, tool_name: str, *,
                           deadline: float | None = None) -> ApprovalHandle: ...

    async def ask_form(self, request: ElicitationRequest, *, deadline: float | None = None) -> FormHandle: ...

    async def cancel(self, interaction_id: str, reason: CancelReason, cause: EndCause | None = None) -> bool: ...
