"""Checking text as the person types: once they pause, never on every key, never the same text twice.

`touch(text)` is called on every change; the check runs `delay` seconds after the last one. A check
whose text was overtaken by newer typing while it ran is dropped (its marks would sit at the wrong
characters), and the newer text is checked when its own pause comes. Text that was already checked
(the person typed and undid, or Save just checked it) is not checked again.

The timer and the task starter are injectable, so tests can drive time by hand.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Generic, Protocol, TypeVar

from nicegui import background_tasks

T = TypeVar("T")
DELAY = 0.4


class Cancellable(Protocol):
    def cancel(self) -> Any: ...


CallLater = Callable[[float, Callable[[], None]], Cancellable]
Spawn = Callable[[Coroutine[Any, Any, None]], Any]


def _call_later(delay: float, callback: Callable[[], None]) -> Cancellable:
    return asyncio.get_running_loop().call_later(delay, callback)


def _spawn(coroutine: Coroutine[Any, Any, None]) -> Any:
    return background_tasks.create(coroutine, name="editor live check")


class LiveCheck(Generic[T]):
    def __init__(self, check: Callable[[str], Awaitable[T]], show: Callable[[str, T], None], *,
                 delay: float = DELAY, call_later: CallLater = _call_later, spawn: Spawn = _spawn) -> None:
        self._check = check
        self._show = show
        self.delay = delay
        self._call_later = call_later
        self._spawn = spawn
        self._timer: Cancellable | None = None
        self._latest: str | None = None
        self._checked: str | None = None
        self.runs = 0  # how many checks actually ran (for tests and curiosity)

    @property
    def pending(self) -> bool:
        return self._timer is not None

    def touch(self, text: str) -> None:
        """The text changed: check it once the person pauses."""
        self._latest = text
        self.cancel()
        if text == self._checked:
            return
        self._timer = self._call_later(self.delay, self._due)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def checked(self, text: str) -> None:
        """Someone else (Save) just checked and showed `text`: no need to check it again."""
        self._checked = text
        if self._latest == text:
            self.cancel()

    def forget(self) -> None:
        """What is shown no longer belongs to any text (the text was replaced): check the next one."""
        self.cancel()
        self._checked = None
        self._latest = None

    def _due(self) -> None:
        self._timer = None
        self._spawn(self.run())

    async def run(self) -> None:
        """Check the latest text now, unless it was already checked."""
        text = self._latest
        if text is None or text == self._checked:
            return
        self._checked = text
        self.runs += 1
        result = await self._check(text)
        if text != self._latest:
            return  # overtaken by newer typing; that text gets its own check
        self._show(text, result)
