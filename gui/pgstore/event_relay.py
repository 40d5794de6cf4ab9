"""The event bus across the processes of one database: what happens inside a run (a group or tool
started, waiting, retrying, its progress and log, its end), sequences saved or deleted and settings
changed, published in one process, is published in every other one too, so their pages and event
streams (`/api/events`) follow runs that run elsewhere.

Runs started or finished and requests asked or ended are not sent here: the stores' own notices carry
them (`gui.pgstore.notices`, written with the record), and each process announces them itself. Nor
are a process's tool changes: each process connects its MCP servers itself.

Events are sent in batches (one statement, one transaction: they arrive in order and together) on the
channel `seqdesk_events`, as JSON. A notice holds at most 8000 bytes, so a batch is cut into parts of
`PART` characters (ASCII: `ensure_ascii`), each `batch part count text`, put together again on
arrival. An event published here because another process sent it is not sent back.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import uuid
from collections import OrderedDict, deque
from typing import Any

from psycopg_pool import AsyncConnectionPool

from gui.core.events import (
    Event,
    EventBus,
    InteractionCreated,
    InteractionEnded,
    RunFinished,
    RunStarted,
    ToolsChanged,
    UnknownEvent,
    parse_event,
)
from gui.pgstore.pool import connected

log = logging.getLogger(__name__)

EVENTS = "seqdesk_events"
PART = 7000  # characters of a notice's text (the limit is 8000 bytes, with the header and the writer's name)
MAX_BATCH = 1000  # events sent in one statement at most
MAX_PARTIAL = 64  # batches still being put together (a writer gone mid-batch leaves one behind)
CARRIED_ELSEWHERE: tuple[type[Event], ...] = (RunStarted, RunFinished, InteractionCreated, InteractionEnded,
                                              ToolsChanged, UnknownEvent)
SEND = "SELECT pg_notify(%s, part) FROM unnest(%s::text[]) WITH ORDINALITY AS p(part, n) ORDER BY n"


def parts_of(writer: str, batch: str, texts: list[dict[str, Any]]) -> list[str]:
    """The notices that carry `texts` (events as JSON) from `writer` (its connections' name, as every
    notice begins: `gui.pgstore.notices`) under the batch id `batch`."""
    text = json.dumps(texts, ensure_ascii=True, separators=(",", ":"), default=str)
    pieces = [text[i:i + PART] for i in range(0, len(text), PART)] or [""]
    return [f"{writer} {batch} {index} {len(pieces)} {piece}" for index, piece in enumerate(pieces)]


class EventRelay:
    """Sends this process's events to the others (`start`), and publishes theirs here (`received`)."""

    def __init__(self, pool: AsyncConnectionPool, name: str, bus: EventBus) -> None:
        self._pool, self._name, self._bus = pool, name, bus
        self._outbox: deque[dict[str, Any]] = deque()
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._task: asyncio.Task[None] | None = None
        self._unsubscribe: Any = None
        self._relaying = threading.local()  # set while an event from elsewhere is published here
        self._prefix = uuid.uuid4().hex[:8]
        self._batches = 0
        self._partial: OrderedDict[str, list[str]] = OrderedDict()

    def start(self) -> None:
        self._unsubscribe = self._bus.subscribe(self._heard)
        self._task = asyncio.create_task(self._send_forever(), name="seqdesk event relay")

    def _heard(self, event: Event) -> None:
        if getattr(self._relaying, "on", False) or isinstance(event, CARRIED_ELSEWHERE):
            return
        item = event.to_json()
        if threading.get_ident() == getattr(self._loop, "_thread_id", None):
            self._queue(item)
        else:
            try:
                self._loop.call_soon_threadsafe(self._queue, item)
            except RuntimeError:  # the loop is closed: nobody is left to send it
                pass

    def _queue(self, item: dict[str, Any]) -> None:
        self._outbox.append(item)
        self._wake.set()

    async def _send_forever(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._outbox:
                await self._send()

    async def _send(self) -> None:
        batch = [self._outbox.popleft() for _ in range(min(MAX_BATCH, len(self._outbox)))]
        self._batches += 1
        try:
            async with connected(self._pool) as conn:
                await conn.execute(SEND, (EVENTS, parts_of(self._name, f"{self._prefix}.{self._batches}", batch)))
        except Exception as exc:  # the database is away: these events reach only this process
            log.warning("could not tell the other processes of %d event(s): %s", len(batch), exc)

    async def received(self, notice: str) -> None:
        """A part of a batch another process sent (`batch part count text`): once whole, its events are
        published here."""
        batch, index, count, text = (notice.split(" ", 3) + ["", "", ""])[:4]
        if not (index.isdigit() and count.isdigit()):
            return
        if count != "1":
            parts = self._partial.setdefault(batch, [])
            if int(index) != len(parts):  # a part missed (the listener reconnected): the batch is lost
                self._partial.pop(batch, None)
                return
            parts.append(text)
            while len(self._partial) > MAX_PARTIAL:
                self._partial.popitem(last=False)
            if len(parts) < int(count):
                return
            text = "".join(self._partial.pop(batch))
        try:
            items = json.loads(text)
        except ValueError:
            log.warning("an event batch from another process could not be read")
            return
        for item in items if isinstance(items, list) else ():
            self.publish(parse_event(item))

    def publish(self, event: Event | None) -> None:
        """`event`, which another process published, published on this process's bus (not sent back)."""
        if event is None or isinstance(event, UnknownEvent):
            return
        self._relaying.on = True
        try:
            self._bus.publish(type(event), event.run_id, at=event.at, **event.data)
        finally:
            self._relaying.on = False

    async def close(self) -> None:
        """Stop hearing this process's events; those heard before are sent first."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        while self._outbox:
            await self._send()
