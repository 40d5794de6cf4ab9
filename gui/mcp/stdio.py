"""`seqdesk mcp` over stdio, answering requests the SDK cannot read instead of dropping them.

The SDK's stdio transport hands a line it cannot parse to the server as an exception, and the
server drops it: the agent waits for an answer that never comes. A request whose text holds a lone
surrogate (`"\\ud800"`, valid JSON to Python but not encodable as UTF-8) is such a line. Here the
read stream is wrapped: for a line that still has a request id, the agent gets a JSON-RPC error
saying what is wrong, and nothing runs.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from gui.core.sequences import surrogate_loc


def unreadable_answer(exc: Exception) -> types.JSONRPCError | None:
    """The error to send for a line the SDK refused, when the line names a request id."""
    if not isinstance(exc, ValidationError) or not exc.errors():
        return None
    line = exc.errors()[0].get("input")
    if not isinstance(line, str):
        return None
    try:
        raw = json.loads(line)
    except ValueError:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), int | str) or "method" not in raw:
        return None
    where = surrogate_loc(raw.get("params"))
    if where is not None:
        path = ".".join(str(p) for p in where) or "params"
        message = (f"the request's {path} holds text that is not valid Unicode (a lone surrogate such as "
                   "\\ud800): send it as valid UTF-8 text; nothing was done")
        code = types.INVALID_PARAMS
    else:
        message = f"the request could not be read: {exc.errors()[0].get('msg', 'invalid JSON-RPC')}"
        code = types.INVALID_REQUEST
    return types.JSONRPCError(jsonrpc="2.0", id=raw["id"], error=types.ErrorData(code=code, message=message))


class _AnsweringRead:
    """The read stream, minus the lines the server would drop: those are answered here."""

    def __init__(self, inner: Any, write: Any) -> None:
        self._inner, self._write = inner, write

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            answer = unreadable_answer(item) if isinstance(item, Exception) else None
            if answer is None:
                return item
            await self._write.send(SessionMessage(answer))

    def __aiter__(self) -> _AnsweringRead:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _AnsweringRead:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._inner.aclose()


async def run_stdio(server: Any) -> None:
    """Like `MCPServer.run_stdio_async`, with unreadable requests answered."""
    low = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        await low.run(_AnsweringRead(read_stream, write_stream), write_stream, low.create_initialization_options())
