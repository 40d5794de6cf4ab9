"""The calls over a connection to one MCP server: a tool call from a run's task, and the requests the
server sends back while it runs (a form to fill in, log lines), each tied to the call that caused it.
A mixin of `McpConnection`, over the session it keeps open; failures are `ToolError`s a person can read.
"""

from __future__ import annotations

import asyncio
import logging
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import httpx2
from mcp import Client, InputRequiredRoundsExceededError, MCPError
from mcp.client import ClientRequestContext
from mcp_types import (
    CONNECTION_CLOSED,
    CallToolResult,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    ErrorData,
    LoggingMessageNotificationParams,
)

from gui.core.asks import ElicitationHandler
from gui.core.errors import ToolError
from gui.core.tools import ToolContext
from gui.mcp.elicit import CallInfo, ask_handler, to_request, to_result
from gui.mcp.notices import call_error_words, deliver_log, progress_reporter
from gui.mcp.refusal import refused_words

log = logging.getLogger(__name__)


@dataclass(eq=False)
class _Call:
    info: CallInfo
    handler: ElicitationHandler | None
    done: asyncio.Event = field(default_factory=asyncio.Event)
    ctx: ToolContext | None = None


_CURRENT_CALL: ContextVar[_Call | None] = ContextVar("seqdesk_mcp_call", default=None)


class ServerCalls:
    handler: ElicitationHandler
    _client: Client | None
    _status: str
    _last_error: str | None
    _ended: asyncio.Event | None
    _refused: int | None
    _calls: set[_Call]
    _idle: asyncio.Event

    @property
    def name(self) -> str:
        raise NotImplementedError  # McpConnection's: the server's name

    def _lost(self, ended: asyncio.Event | None) -> None:
        raise NotImplementedError  # McpConnection's: the server is gone, its tools leave

    def _with_stderr(self, message: str) -> str:
        raise NotImplementedError  # McpConnection's: the message with the server's last stderr lines

    # -- calls ---------------------------------------------------------------------------------
    async def call_tool(self, remote_name: str, args: dict[str, Any], ctx: ToolContext) -> CallToolResult:
        client = self._client
        if client is None or self._status != "connected":
            why = f" ({self._last_error})" if self._last_error else ""
            raise ToolError(f"the MCP server '{self.name}' is not connected{why}")
        call = _Call(CallInfo(ctx.run_id, ctx.tool_call_id, ctx.tool_name, ctx.deadline), ctx.elicitation, ctx=ctx)
        self._calls.add(call)
        self._idle.clear()
        token = _CURRENT_CALL.set(call)
        try:
            return await client.call_tool(remote_name, args, progress_callback=progress_reporter(ctx))
        except MCPError as exc:
            if self._refused is not None:  # the server refused the token mid-session: sign in (or refresh) again
                self._lost(self._ended)
                raise ToolError(f"{self.name}.{remote_name}: {refused_words(self._refused)}") from None
            if exc.code == CONNECTION_CLOSED:
                self._lost(self._ended)
                raise ToolError(self._with_stderr(f"the MCP server '{self.name}' stopped during the call "
                                                  "(it exited or crashed)")) from None
            raise ToolError(f"{self.name}.{remote_name}: {call_error_words(self.name, exc.message)}") from None
        except InputRequiredRoundsExceededError:
            raise ToolError(f"{self.name}.{remote_name}: the server kept asking for input without finishing") from None
        except httpx2.TransportError as exc:
            self._lost(self._ended)
            raise ToolError(f"the MCP server '{self.name}' cannot be reached: {describe(exc)}") from None
        finally:
            _CURRENT_CALL.reset(token)
            self._calls.discard(call)
            call.done.set()
            if not self._calls:
                self._idle.set()

    # -- requests from the server --------------------------------------------------------------
    async def _on_elicit(self, context: ClientRequestContext,
                         params: ElicitRequestFormParams | ElicitRequestURLParams) -> ElicitResult | ErrorData:
        call = _CURRENT_CALL.get()
        if call is None and len(self._calls) == 1:
            # The legacy protocol does not say which call a request belongs to: only one can be it.
            call = next(iter(self._calls))
        request, plan = to_request(self.name, params, call.info if call else None)
        if plan.unsupported:
            log.warning("MCP server %s asked for fields no form here can show (%s): answering cancel",
                        self.name, ", ".join(plan.unsupported))
            return ElicitResult(action="cancel")
        handler = (call.handler if call is not None else None) or self.handler
        gone = call.done if call is not None else (self._idle if self._calls else None)
        response = await ask_handler(handler, request, gone)
        return to_result(self.name, plan, response)

    async def _on_log(self, params: LoggingMessageNotificationParams) -> None:
        """A log message goes to the log of the call it belongs to. The protocol does not say which
        call sent it: with one call in flight it is that one's; with several, each of them gets it."""
        deliver_log(self.name, params, [c.ctx for c in self._calls if c.ctx is not None])


def describe(exc: BaseException) -> str:
    """One readable line for a failure, looking inside exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return "the server closed the connection" if exc.code == CONNECTION_CLOSED else exc.message
    if isinstance(exc, FileNotFoundError):
        return f"cannot start it: {exc.strerror or 'no such file'}: {exc.filename or ''}".rstrip(": ")
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
