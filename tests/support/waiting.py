"""Waiting on state, never on a delay: the one `wait_until` of the tests, and its twin for code that
is not on an event loop (a browser driven synchronously, another process seen over HTTP or /proc).

Both look at `condition()` until it gives something truthy, and give that back (so a wait can also
fetch: `[request] = wait_until_sync(lambda: pending(app), "the request")`). When the time is up
they fail saying what they waited for: `what`, or else the condition's own source line.

Where there is something to await instead (an event's `wait()`, a future, a task, a queue's `get()`,
a process's `wait()`), `within` awaits it with a bound: a test whose awaited thing never comes fails
at once saying what it waited for, not when the suite's own timeout kills the whole worker; and
`read_until` reads another process's pipe until it has said something, with the same bound.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import select
import time
from collections.abc import Awaitable, Callable
from typing import IO, Any, TypeVar

T = TypeVar("T")

ASYNC_TIMEOUT = 5.0
SYNC_TIMEOUT = 30.0  # another process: it starts, imports, answers over HTTP
AWAIT_TIMEOUT = 60.0  # one awaited thing: generous on 2 cores under the whole suite, short beside its 600 s


def _checked(what: object) -> None:
    if what is not None and not isinstance(what, str):  # a timeout given in its place, as older helpers took it
        raise TypeError(f"`what` says what is awaited, in words; the timeout goes by name (timeout={what!r})")


def _described(condition: Callable[[], Any], what: str | None) -> str:
    if what:
        return what
    try:
        return inspect.getsource(condition).strip()
    except (OSError, TypeError):
        return repr(condition)


def _gave_up(condition: Callable[[], Any], what: str | None, timeout: float, last: Any) -> AssertionError:
    return AssertionError(f"gave up after {timeout:g} s waiting for {_described(condition, what)} "
                          f"(last seen: {last!r})")


async def wait_until(condition: Callable[[], T | Awaitable[T]], what: str | None = None, *,
                     timeout: float = ASYNC_TIMEOUT, every: float = 0.005) -> T:
    """Until `condition()` (a plain or an async function) gives a truthy value, looking again every
    `every` s while the loop runs everything else; that value, or AssertionError after `timeout` s."""
    _checked(what)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value  # type: ignore[return-value]
        if loop.time() > deadline:
            raise _gave_up(condition, what, timeout, value)
        await asyncio.sleep(every)


async def within(awaited: Awaitable[T], what: str, *, timeout: float = AWAIT_TIMEOUT) -> T:
    """What `awaited` gives (or raises: a task's error or its cancellation goes on as it was), or
    AssertionError saying `what` was awaited once `timeout` s have passed; on that timeout the thing
    awaited is cancelled with it (a task, or the future an event's `wait()` sleeps on)."""
    _checked(what)
    try:
        async with asyncio.timeout(timeout) as scope:
            return await awaited
    except TimeoutError:
        if not scope.expired():
            raise  # the awaited thing's own TimeoutError, not this bound
        raise AssertionError(f"gave up after {timeout:g} s waiting for {what}") from None


def wait_until_sync(condition: Callable[[], T], what: str | None = None, *,
                    timeout: float = SYNC_TIMEOUT, every: float = 0.05) -> T:
    """`wait_until` off the event loop: for another process's state (nothing to wait on but its answers)."""
    _checked(what)
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise _gave_up(condition, what, timeout, value)
        time.sleep(every)  # polling another process, bounded by the deadline


def read_until(stream: IO[Any], text: str, what: str, *, timeout: float = SYNC_TIMEOUT) -> str:
    """What another process wrote to `stream` (a pipe: its stdout or stderr) up to `text`, read as it
    comes (it may run on past `text`), or AssertionError saying `what` was awaited once `timeout` s have
    passed or the pipe ended first. Read from the pipe itself, not through the file object's buffer:
    read the stream only so (a buffered readline could hold what `select` is then not told about)."""
    _checked(what)
    deadline = time.monotonic() + timeout
    wanted, seen, fd = text.encode(), b"", stream.fileno()
    while wanted not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"gave up after {timeout:g} s waiting for {what} "
                                 f"(it said: {seen.decode(errors='replace')!r})")
        if select.select([fd], [], [], left)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                raise AssertionError(f"the pipe ended before {what} (it said: {seen.decode(errors='replace')!r})")
            seen += chunk
    return seen.decode(errors="replace")
