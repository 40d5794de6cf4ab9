"""A coroutine started at once, in its caller's step: a task only for one that has to wait.

A gathered group's tool calls run side by side, each as a task of its own, but most end without
ever waiting (an `echo`, arguments that do not fit): for them a task costs more than their work
(made, registered, and a turn of the loop before its first step). `start_eagerly` takes that first
step now, in a copy of the caller's context as a task would; a call that ends there needs no task,
and one that waits goes on in a task from where it stopped (`_Rest`), as Python 3.12's eager tasks
do. Its first step runs inside the caller's task, so `asyncio.current_task()` is the caller's there.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Coroutine, Generator
from typing import Any

_TAKEN = object()  # `_Rest`'s first yield has been handed to its task


def start_eagerly(coro: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
    """Run `coro` up to its first wait; None when it ended before (cancelled too: as a task would, it
    ended), else the task that carries it on. KeyboardInterrupt and SystemExit go on up, as from a task."""
    context = contextvars.copy_context()
    try:
        waited = context.run(coro.send, None)
    except (StopIteration, asyncio.CancelledError):
        return None
    return asyncio.get_running_loop().create_task(_Rest(coro, waited), context=context)


class _Rest(Coroutine[Any, Any, None]):
    """A started coroutine as its task drives it: the first `send` gives the task what the coroutine
    waits on (as its first step would have); the rest goes to the coroutine itself."""

    __slots__ = ("_coro", "_waited")

    def __init__(self, coro: Coroutine[Any, Any, None], waited: Any) -> None:
        self._coro, self._waited = coro, waited

    def send(self, value: Any) -> Any:
        waited = self._waited
        if waited is not _TAKEN:
            self._waited = _TAKEN
            return waited
        return self._coro.send(value)

    def throw(self, exc: Any, *rest: Any) -> Any:
        """Its task cancels it. Before that task's first step, the future the coroutine waits on is
        cancelled too, as a task's cancel cancels the future it waits on."""
        waited, self._waited = self._waited, _TAKEN
        if waited is not _TAKEN and isinstance(waited, asyncio.Future):
            waited.cancel()
        return self._coro.throw(exc, *rest)

    def close(self) -> None:
        self._coro.close()

    def __await__(self) -> Generator[Any, Any, None]:
        """Awaited as a whole (a task drives it by `send` and `throw` instead): the same steps."""
        value: Any = None
        error: BaseException | None = None
        while True:
            try:
                waited = self.send(value) if error is None else self.throw(error)
            except StopIteration:
                return
            value = error = None
            try:
                value = yield waited
            except BaseException as exc:  # thrown in by whoever awaits: passed on, as `yield from` does
                error = exc
