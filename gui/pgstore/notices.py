"""What other processes on the database did, heard as it happens (LISTEN/NOTIFY): a request asked or
ended (`REQUESTS`), a run started or finished (`RUNS`) by another SeqDesk process. The connections
of each open store carry its own `application_name` (`store_name()`), which the database's triggers
put in every notice, so a store skips its own.

The listener holds one connection of its own; if it is lost, it connects again (what was said
meanwhile is not heard again: a page that lists requests reads the store anyway).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable

import psycopg

from gui.pgstore.errors import DatabaseUnreachable

log = logging.getLogger(__name__)

REQUESTS = "seqdesk_interactions"
RUNS = "seqdesk_runs"
RETRY = 1.0  # seconds before connecting again
START_TIMEOUT = 10.0  # seconds for the first LISTEN


def store_name() -> str:
    """A new name for the connections of one open store (one process), as notices name the writer."""
    return f"seqdesk-{uuid.uuid4().hex[:12]}"


class Listener:
    """Calls `on_change(id)` for each request (or run: `channel`) another process changed; with
    `addressed`, for each notice addressed to this process instead (its first word names it)."""

    def __init__(self, url: str, name: str, channel: str, on_change: Callable[[str], Awaitable[None]], *,
                 addressed: bool = False) -> None:
        self._url, self._name, self._channel, self._on_change = url, name, channel, on_change
        self._addressed = addressed
        self._task: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()
        self._pending: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Listen from now on (returns once the first LISTEN is in place)."""
        self._task = asyncio.create_task(self._listen())
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
                    await conn.execute(f"LISTEN {self._channel}")
                    self._listening.set()
                    async for notice in conn.notifies():
                        writer, _, iid = notice.payload.partition(" ")
                        if (writer == self._name) == self._addressed and iid:
                            task = asyncio.create_task(self._tell(iid))
                            self._pending.add(task)
                            task.add_done_callback(self._pending.discard)
            except psycopg.Error as exc:
                log.warning("lost the database's notices (%s): listening again in %g s", exc, RETRY)
                await asyncio.sleep(RETRY)  # the pace of reconnecting, not a wait for an event

    async def _tell(self, interaction_id: str) -> None:
        try:
            await self._on_change(interaction_id)
        except Exception:  # a notice has nobody to report to
            log.exception("could not follow %s, changed by another process", interaction_id)

    async def close(self) -> None:
        for task in (self._task, *self._pending):
            if task is not None:
                task.cancel()
        await asyncio.gather(*(t for t in (self._task, *self._pending) if t is not None), return_exceptions=True)
