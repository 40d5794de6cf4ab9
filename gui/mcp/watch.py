"""A transport wrapper that notices when the server's side of the stream ends.

The SDK's session simply stops reading when a stdio server exits; nothing tells an idle client.
Wrapping the transport's read stream is the narrowest seam that sees the end of the stream the
moment it happens, so a dead server's tools leave the palette before anybody tries to call them.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Any

import anyio


class _WatchedRead:
    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    def __getattr__(self, name: str) -> Any:  # e.g. `last_context`, read by the dispatcher
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise

    def __aiter__(self) -> _WatchedRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _WatchedRead:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()


class _Watched(AbstractAsyncContextManager[Any]):
    def __init__(self, inner: AbstractAsyncContextManager[Any], on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    async def __aenter__(self) -> tuple[Any, Any]:
        read, write = await self._inner.__aenter__()
        return _WatchedRead(read, self._on_end), write

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        try:
            return await self._inner.__aexit__(exc_type, exc, tb)
        finally:
            self._on_end()


def watched(transport: AbstractAsyncContextManager[Any], on_end: Callable[[], None]) -> Any:
    """`transport`, calling `on_end` once its read stream ends (or the transport closes)."""
    return _Watched(transport, on_end)
