"""What other processes on the database did, heard as it happens (LISTEN/NOTIFY): a request asked or
ended (`REQUESTS`), a run started or finished (`RUNS`) by another SeqDesk process, and every other
channel a team's processes tell each other on (`gui.pgstore.open.CHANNELS`). The connections of
each open store carry its own `application_name` (`store_name()`), which the database's triggers
put in every notice, so a store skips its own.

A process hears every channel on one connection of its own (`Listener`): it listens to all of them
at once, and hands each notice to what was registered for its channel (`on`). Ten processes thus
hold ten listening connections, not sixty. If the connection is lost, it connects again and listens
to all of them again (what was said meanwhile is not heard again: a page that lists requests reads
the store anyway).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import psycopg
from psycopg import sql

from gui.pgstore.errors import DatabaseUnreachable

log = logging.getLogger(__name__)

REQUESTS = "seqdesk_interactions"
RUNS = "seqdesk_runs"
RETRY = 1.0  # seconds before connecting again
START_TIMEOUT = 10.0  # seconds for the first LISTEN


def store_name(process: str | None = None) -> str:
    """The name of the connections of one open store (one process), as notices name the writer and
    leases their holder: `seqdesk-PROCESS` for a process given a stable name (a team server: a
    restarted one holds its runs again by it), else a new one."""
    return f"seqdesk-{process or uuid.uuid4().hex[:12]}"


@dataclass(frozen=True)
class Hearer:
    """What a notice on a channel is handed to: `on_notice(text)` for each one another process sent
    (`writer text`), or, when `addressed`, for each one addressed to this process (`name text`)."""

    on_notice: Callable[[str], Awaitable[None]]
    addressed: bool = False


class Listener:
    """One connection listening to every channel of `channels`; `on(channel, …)` says who hears one."""

    def __init__(self, url: str, name: str, channels: tuple[str, ...]) -> None:
        self._url, self._name, self.channels = url, name, channels
        self._hearers: dict[str, list[Hearer]] = {}
        self._task: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()
        self._pending: set[asyncio.Task[None]] = set()

    async def on(self, channel: str, on_notice: Callable[[str], Awaitable[None]], *, addressed: bool = False) -> None:
        """Hand each notice on `channel` to `on_notice` from now on (the connection is opened, and
        listening, before this returns)."""
        if channel not in self.channels:
            raise ValueError(f"the channel {channel} is not one a team's processes listen to")
        self._hearers.setdefault(channel, []).append(Hearer(on_notice, addressed))
        await self.start()

    async def start(self) -> None:
        """Listen from now on (returns once the first LISTEN is in place)."""
        if self._task is None:
            self._task = asyncio.create_task(self._listen(), name="seqdesk notices")
        if self._listening.is_set():
            return
        waiting = asyncio.create_task(self._listening.wait())
        await asyncio.wait({self._task, waiting}, timeout=START_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        if not self._listening.is_set():
            await self.close()
            raise DatabaseUnreachable(f"could not listen to the database's notices within {START_TIMEOUT:g} s")

    async def _listen(self) -> None:
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self._url, autocommit=True,
                                                                 application_name=f"{self._name}-listen") as conn:
                    for channel in self.channels:
                        await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
                    self._listening.set()
                    async for notice in conn.notifies():
                        self._heard(notice.channel, notice.payload)
            except psycopg.Error as exc:
                log.warning("lost the database's notices (%s): listening again in %g s", exc, RETRY)
                await asyncio.sleep(RETRY)  # the pace of reconnecting, not a wait for an event

    def _heard(self, channel: str, payload: str) -> None:
        writer, _, text = payload.partition(" ")
        if not text:
            return
        for hearer in self._hearers.get(channel, ()):
            if (writer == self._name) == hearer.addressed:
                task = asyncio.create_task(self._tell(hearer, channel, text))
                self._pending.add(task)
                task.add_done_callback(self._pending.discard)

    async def _tell(self, hearer: Hearer, channel: str, text: str) -> None:
        try:
            await hearer.on_notice(text)
        except Exception:  # a notice has nobody to report to
            log.exception("could not follow %s, changed by another process (%s)", text[:80], channel)

    async def close(self) -> None:
        for task in (self._task, *self._pending):
            if task is not None:
                task.cancel()
        await asyncio.gather(*(t for t in (self._task, *self._pending) if t is not None), return_exceptions=True)
