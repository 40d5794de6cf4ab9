"""Engine events delivered into one NiceGUI page, safely and in batches.

The engine's `EventBus` calls its subscribers synchronously, from whatever thread publishes, and a
run can publish hundreds of events a second. A page must not touch its elements from that callback
(wrong slot context, perhaps the wrong thread) and should not re-render once per event. So
`live_events` gives each page (each NiceGUI client) its own subscription that only *queues*
events and hands them to the page's handler in batches, inside the page's context, on the
server's event loop. An event that comes `soonest` seconds or more after the last batch goes at
once (the loop is woken for it: a new request shows in the inbox within milliseconds, not at the
next tick); what comes sooner waits for a `ui.timer` that drains the queue every `interval`
seconds, so a run publishing hundreds of events a second still costs one redraw per `interval`.
`soonest` is `interval` unless the page asks for less (the inbox does: a run's next request often
comes a moment after the last answer). The subscription
ends when the client is deleted (tab closed, navigated away) or when the timer element is deleted.

Usage, inside a page function (outside any `@ui.refreshable`, which would delete the timer)::

    async def on_batch(events: list[Event]) -> None:
        if any(e.type.startswith("tool.") for e in events):
            tools_view.refresh()

    live_events(engine, on_batch, types=("tool.", "run.finished"))

`types` entries ending in "." (or "*") match a prefix; others match an event type exactly; None
takes everything. Handlers may be sync or async and get the events in publishing order. If a page
falls far behind, the oldest queued events are dropped (`max_queue`) and `LiveEvents.dropped`
counts them: handlers that re-read state on any batch (rather than replaying events) are immune.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from nicegui import background_tasks, context, core, ui

from gui.core.events import Event

if TYPE_CHECKING:
    from gui.core.door import EventSource

log = logging.getLogger(__name__)

BatchHandler = Callable[[list[Event]], Awaitable[Any] | Any]


class LiveEvents:
    """One page's subscription to the bus: queue on publish, flush the first at once, then in batches
    on a `ui.timer`."""

    def __init__(
        self,
        source: EventSource,
        handler: BatchHandler,
        *,
        types: Iterable[str] | None = None,
        interval: float = 0.25,
        soonest: float | None = None,
        max_queue: int = 10_000,
    ) -> None:
        self._handler = handler
        self._exact: set[str] = set()
        self._prefixes: tuple[str, ...] = ()
        if types is not None:
            wanted = list(types)
            self._exact = {t for t in wanted if not t.endswith((".", "*"))}
            self._prefixes = tuple(t.rstrip("*") for t in wanted if t.endswith((".", "*")))
        self._all = types is None
        self._queue: deque[Event] = deque(maxlen=max_queue)
        self.dropped = 0
        self._closed = False
        self._soonest = interval if soonest is None else soonest
        self._last = 0.0  # time.monotonic() of the last batch handed over
        self._flushing = False
        self._woken = False  # a wake-up is on its way to the loop
        self._loop = asyncio.get_running_loop()
        self._client = context.client
        self._unsubscribe = source.subscribe(self._receive)
        self.timer = ui.timer(interval, self._flush)
        self._client.on_delete(self.close)

    def wants(self, event: Event) -> bool:
        return self._all or event.type in self._exact or event.type.startswith(self._prefixes)

    def _receive(self, event: Event) -> None:
        """The bus callback: any thread, must be quick. Only queues (deque.append is thread-safe)."""
        if self._closed or self.timer.is_deleted:
            self.close()
            return
        if self.wants(event):
            if len(self._queue) == self._queue.maxlen:
                self.dropped += 1
            self._queue.append(event)
            if not self._woken:
                self._woken = True
                try:
                    self._loop.call_soon_threadsafe(self._wake)
                except RuntimeError:  # the loop is closed: the app is ending
                    pass

    def _wake(self) -> None:
        """On the loop: hand the queue over now, unless a batch went less than `soonest` ago or one
        is being handled (then the timer takes it), or the page is not connected yet (the timer
        waits for that)."""
        self._woken = False
        if (self._closed or self.timer.is_deleted or self._flushing or not self._client.has_socket_connection
                or time.monotonic() - self._last < self._soonest):
            return
        background_tasks.create(self._flush_here(), name="live events")

    async def _flush_here(self) -> None:
        parent = self.timer.parent_slot
        if parent is None or self.timer.is_deleted:
            return
        with parent:
            try:
                await self._flush()
            except Exception as exc:  # as the timer would: reported, the page goes on
                core.app.handle_exception(exc)

    async def _flush(self) -> None:
        if not self._queue or self._closed or self._flushing:
            return
        self._flushing = True
        self._last = time.monotonic()
        try:
            batch: list[Event] = []
            while self._queue:
                batch.append(self._queue.popleft())
            result = self._handler(batch)
            if inspect.isawaitable(result):
                await result
        finally:
            self._flushing = False

    async def flush(self) -> None:
        """Hand over what is queued now (tests, or a page that wants to catch up at once)."""
        await self._flush()

    def close(self) -> None:
        """Stop listening; safe to call more than once and from any thread."""
        if self._closed:
            return
        self._closed = True
        self._unsubscribe()
        self._queue.clear()
        if not self.timer.is_deleted:
            self.timer.cancel()


def live_events(
    source: EventSource,
    handler: BatchHandler,
    *,
    types: Iterable[str] | None = None,
    interval: float = 0.25,
    soonest: float | None = None,
) -> LiveEvents:
    """Subscribe the current page to `source` (the engine); `handler(batch)` runs at once for an
    event `soonest` s (default: `interval`) after the last batch, else within `interval` s."""
    return LiveEvents(source, handler, types=types, interval=interval, soonest=soonest)


__all__ = ["BatchHandler", "LiveEvents", "live_events"]
