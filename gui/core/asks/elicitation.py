"""A tool server asking, mid-call, for typed input from a person (SPEC §4, seed `elicitation.go`).

The engine must not assume a UI: it hands an `ElicitationRequest` (the form, `gui.core.asks.interactions`)
to an `ElicitationHandler` (one async method) and gets back an `ElicitationResponse`: `accept` with
typed values, `decline` (the person refuses: the server should give up) or `cancel` (nobody could
answer: the server may fall back to defaults). Both are the same models the inbox stores, so nothing
is converted on the way. Each front end brings its own handler: the inbox (persisted, a form in the
GUI), the terminal (`gui.cli.form_prompt`), fixed answers (tests); `CompositeElicitationHandler` chains them. A
handler must be safe to call concurrently and must not hang a tool forever: when in doubt it answers
`cancel`, never `decline`, so a server can still go on with its defaults.

An accept's values are checked against the form once. A handler that answers through the inbox says
so with the class attribute `answers_checked = True` (read where the answer leaves: no call): the
service refused any misfit when the person answered (`gui.core.asks.responses`), and the request
stayed pending for them to fix it. Any other handler's accept is checked where the answer leaves for
the server (`gui.mcp.elicit`).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from gui.core.asks.interactions import ElicitationRequest, ElicitationResponse
from gui.core.errors import Unavailable

if TYPE_CHECKING:
    from gui.core.asks.ports import InteractionPort

JsonValue = Any
FORM_TIMEOUT = 600.0  # seconds: the longest a form waits in the inbox, unless its request ends sooner


class ElicitationNotHandled(Unavailable):
    """Raised by a handler that leaves the request to the next one in a composite."""


@runtime_checkable
class ElicitationHandler(Protocol):
    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse: ...


HandlerFunc = Callable[
    [ElicitationRequest], ElicitationResponse | None | Awaitable[ElicitationResponse | None]
]


class ElicitationHandlerFunc:
    """A plain function (sync or async) as a handler; returning None passes to the next handler.

    A sync function that blocks (waits for a person) should set `in_thread=True`.
    """

    def __init__(self, fn: HandlerFunc, *, in_thread: bool = False) -> None:
        self._fn = fn
        self._in_thread = in_thread

    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse:
        out = await asyncio.to_thread(self._fn, req) if self._in_thread else self._fn(req)
        if inspect.isawaitable(out):
            out = await out
        if out is None:
            raise ElicitationNotHandled(req.server_name)
        return out


class NoopElicitationHandler:
    """No UI at all: always `cancel` ("could not ask"), never `decline` ("the person refused")."""

    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse:
        return ElicitationResponse.cancel()


class CompositeElicitationHandler:
    """Asks each handler in order; the first that answers wins; if none does: `cancel`."""

    def __init__(self, *handlers: ElicitationHandler) -> None:
        self.handlers = handlers

    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse:
        for handler in self.handlers:
            try:
                out = await handler.handle_elicitation(req)
            except ElicitationNotHandled:
                continue
            if out is not None:
                return out
        return ElicitationResponse.cancel()


class FixedElicitationHandler:
    """Answers every request with the same response and keeps the requests it saw (tests)."""

    def __init__(self, response: ElicitationResponse) -> None:
        self.response = response
        self.requests: list[ElicitationRequest] = []

    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse:
        self.requests.append(req)
        return self.response


class InboxElicitationHandler:
    """Puts the request in the inbox, as it is, through the port's `ask_form`, and waits for the reply.

    The interaction expires after `timeout` seconds (and never after the request's own `expires_at`);
    an expired or cancelled interaction answers `cancel`. If the calling tool gives up, the
    interaction is cancelled so it does not linger in the inbox. (A tool call's own port asks its
    forms itself, for at most `FORM_TIMEOUT`: `gui.core.runs.tool_call`.)
    """

    answers_checked = True  # the port's service checks an accept when the person answers

    def __init__(self, port: InteractionPort, *, timeout: float | None = FORM_TIMEOUT) -> None:
        self._port = port
        self._timeout = timeout

    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse:
        deadline = self._port.clock() + self._timeout if self._timeout is not None else None
        return await (await self._port.ask_form(req, deadline=deadline)).response()
