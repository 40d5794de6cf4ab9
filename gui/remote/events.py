"""The app's event stream (`GET /api/events`) as a client of the app reads it: opened before what it
is to hear starts, each `data:` line an event, and relayed to listeners in tasks of this loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable

import httpx

from gui.core.door import EventListener
from gui.core.errors import SeqDeskError, Unavailable
from gui.core.events import Event, parse_event
from gui.wire import error_in

log = logging.getLogger(__name__)


class AppEvents:
    """The events of the app at `url`, read through `client` (the door's own)."""

    def __init__(self, client: httpx.AsyncClient, url: str) -> None:
        self._client = client
        self.url = url
        self._relays: set[asyncio.Task[None]] = set()  # the event streams `subscribe` reads

    @contextlib.asynccontextmanager
    async def opened(self) -> AsyncIterator[AsyncIterator[str]]:
        """The lines of the app's event stream, from the moment the app has subscribed it (its first
        line, `: connected`): an event published after that cannot be missed."""
        try:
            async with self._client.stream("GET", "/api/events") as stream:
                if stream.status_code >= 400:
                    raise error_in(stream.status_code, await stream.aread(), f"the SeqDesk app at {self.url} "
                                   f"refused its event stream (HTTP {stream.status_code})")
                lines = stream.aiter_lines()
                await anext(lines, None)
                yield lines
        except httpx.HTTPError as exc:
            raise Unavailable(f"the SeqDesk app at {self.url} did not answer: {exc}") from None

    def subscribe(self, listener: EventListener) -> Callable[[], None]:
        """`listener` hears the app's events, read from its event stream in a task of this loop, from
        the moment the app has opened the stream (a moment after this returns); call the result to stop."""
        relay = asyncio.get_running_loop().create_task(self._relay(listener), name="seqdesk-remote-events")
        self._relays.add(relay)
        relay.add_done_callback(self._relays.discard)

        def unsubscribe() -> None:
            relay.cancel()

        return unsubscribe

    @property
    def relaying(self) -> bool:
        """Whether a subscription still reads the app's events."""
        return bool(self._relays)

    async def _relay(self, listener: EventListener) -> None:
        try:
            async with self.opened() as lines:
                async for line in lines:
                    event = event_on(line)
                    if event is None:
                        continue
                    try:
                        listener(event)
                    except Exception:  # a broken listener must not end the others' events (as on the bus)
                        log.exception("event listener failed on %s", event.type)
        except SeqDeskError as exc:  # the app went away or refused: its events end here
            log.warning("events from the SeqDesk app at %s ended: %s", self.url, exc)

    def close(self) -> None:
        """End every subscription."""
        for relay in list(self._relays):
            relay.cancel()


def event_on(line: str) -> Event | None:
    """The event on a `data:` line of the stream; None for any other line."""
    if not line.startswith("data:"):
        return None
    try:
        return parse_event(json.loads(line[5:]))
    except ValueError:
        return None
