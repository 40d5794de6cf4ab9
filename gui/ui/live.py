"""Engine events delivered into one NiceGUI page, safely and in batches.

The engine's `EventBus` calls its subscribers synchronously, from whatever thread publishes, and a
run can publish hundreds of events a second. A page must not touch its elements from that callback
(wrong slot context, perhaps the wrong thread) and should not re-render once per event. So
`live_events` gives each page (each NiceGUI client) its own subscription that only *queues*
events, and a `ui.timer` in the page drains the queue every `interval` seconds and hands the whole
batch to the page's handler, inside the page's context, on the server's event loop. The
subscription ends when the client is deleted (tab closed, navigated away) or when the timer
element is deleted.

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

import inspect
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from nicegui import context, ui

from gui.core.events import Event

if TYPE_CHECKING:
    from gui.core.door import EventSource

log = logging.getLogger(__name__)

BatchHandler = Callable[[list[Event]], Awaitable[Any] | Any]


class LiveEvents:
    """One page's subscription to the bus: queue on publish, flush in batches on a `ui.timer`."""

    def __init__(
        self,
        source: EventSource,
        handler: BatchHandler,
        *,
        types: Iterable[str] | None = None,
        interval: float = 0.25,
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
        self._unsubscribe = source.subscribe(self._receive)
        self.timer = ui.timer(interval, self._flush)
        context.client.on_delete(self.close)

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

    async def _flush(self) -> None:
        if not self._queue or self._closed:
            return
        batch: list[Event] = []
        while self._queue:
            batch.append(self._queue.popleft())
        result = self._handler(batch)
        if inspect.isawaitable(result):
            await result

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
) -> LiveEvents:
    """Subscribe the current page to `source` (the engine); `handler(batch)` runs at most every `interval` s."""
    return LiveEvents(source, handler, types=types, interval=interval)


__all__ = ["BatchHandler", "LiveEvents", "live_events"]
