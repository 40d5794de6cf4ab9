"""The execution side's ports for requests to a person (the seed's `InteractionPort`): what a tool
asks through. `InteractionService` implements it."""

from __future__ import annotations

from typing import Protocol

from gui.core.asks.interactions import InteractionRequest, InteractionResult
from gui.core.causes import CancelReason


class InteractionHandle(Protocol):
    interaction_id: str

    async def result(self) -> InteractionResult: ...


class InteractionPort(Protocol):
    """The execution side's port (seed): persist the request, then wait on the handle.

    `deadline` (epoch seconds) caps the request's `expires_at`; `clock` is the port's time, so a
    request's times agree with the service that expires it; `cancel` withdraws a request the caller
    no longer waits for."""

    def clock(self) -> float: ...

    async def request(self, request: InteractionRequest, *, deadline: float | None = None) -> InteractionHandle: ...

    async def cancel(self, interaction_id: str, reason: CancelReason) -> bool: ...
