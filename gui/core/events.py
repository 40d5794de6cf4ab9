"""Everything that happens to runs and interactions, as events on one bus.

The run panel, the run record, the HTTP event stream and the CLI all consume the same events
through `EventBus.subscribe`. Publishing never blocks: a subscriber is a plain callback that must
return quickly (queue the event and handle it elsewhere); a failing subscriber is dropped from the
delivery of that one event, never from the bus, and never breaks the publisher.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

# Event types. Runs: run.started, run.finished. Groups: group.started, group.finished, group.skipped.
# Tools: tool.queued, tool.started, tool.waiting (for a person), tool.resumed, tool.retrying,
# tool.finished, tool.skipped. Interactions: interaction.created, interaction.ended.
# Sequences: sequence.saved, sequence.deleted. Settings: settings.changed.


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. A plain dataclass: thousands are made per second during a run."""

    type: str
    run_id: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    at: float = field(default_factory=time.time)
    seq: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "run_id": self.run_id, "data": self.data, "at": self.at, "seq": self.seq}


Subscriber = Callable[[Event], None]


class EventBus:
    def __init__(self) -> None:
        self._subscribers: dict[int, Subscriber] = {}
        self._ids = itertools.count(1)
        self._seq = itertools.count(1)
        self._lock = threading.Lock()

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback` for every event from now on; returns the function that unsubscribes."""
        key = next(self._ids)
        with self._lock:
            self._subscribers[key] = callback

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers.pop(key, None)

        return unsubscribe

    def publish(self, type: str, run_id: str | None = None, **data: Any) -> Event | None:
        """Deliver an event to every subscriber; None (and nothing built) when nobody listens."""
        with self._lock:
            subscribers = list(self._subscribers.values())
        if not subscribers:
            return None
        event = Event(type=type, run_id=run_id, data=data, seq=next(self._seq))
        for callback in subscribers:
            try:
                callback(event)
            except Exception:  # a broken subscriber must not break a run
                log.exception("event subscriber failed on %s", event.type)
        return event

    def stream(self, maxsize: int = 10_000) -> EventStream:
        """Events as an async iterator on the current loop, subscribed from this call on (so nothing
        published after it is missed); safe to publish from other threads. Close it when done."""
        return EventStream(self, asyncio.get_running_loop(), maxsize)


class EventStream:
    """An eager subscription read with `async for`; `close()` (or leaving `async with`) unsubscribes.

    A reader too slow for `maxsize` waiting events loses the newest ones; `dropped` counts them.
    """

    def __init__(self, bus: EventBus, loop: asyncio.AbstractEventLoop, maxsize: int) -> None:
        self._loop = loop
        self._queue: asyncio.Queue[Event] = asyncio.Queue(maxsize=maxsize)
        self.dropped = 0
        self._unsubscribe = bus.subscribe(self._put)

    def _put(self, event: Event) -> None:
        def deliver() -> None:
            if self._queue.full():
                self.dropped += 1
            else:
                self._queue.put_nowait(event)

        try:
            if threading.get_ident() == getattr(self._loop, "_thread_id", None):
                deliver()
            else:
                self._loop.call_soon_threadsafe(deliver)
        except RuntimeError:  # loop closed
            pass

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> Event:
        return await self._queue.get()

    def close(self) -> None:
        self._unsubscribe()

    async def __aenter__(self) -> EventStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
