"""One process of a team runs the schedules: the one holding a PostgreSQL advisory lock, so a schedule
fires once per turn however many processes share the database. The lock is held by a connection of
its own; when that process goes (or loses its connection), the lock is free and the next process that
tries takes it over and runs the schedules from then on (a turn missed meanwhile runs once, as at any
start)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import psycopg

log = logging.getLogger(__name__)

SCHEDULES_LOCK = 0x5E9D_E5C0  # the advisory lock's key: "the schedules are run here"
TRY_LOCK = "SELECT pg_try_advisory_lock(%s)"
RETRY = 5.0  # seconds between two tries of a process that does not run them


class Leader:
    """Calls `lead()` once this process holds the lock, and `step_down()` if it loses it."""

    def __init__(self, url: str, name: str, lead: Callable[[], None], step_down: Callable[[], Awaitable[None]],
                 *, retry: float = RETRY) -> None:
        self._url, self._name, self._lead, self._step_down, self._retry = url, name, lead, step_down, retry
        self._task: asyncio.Task[None] | None = None
        self.leading = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._keep())

    async def _keep(self) -> None:
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self._url, autocommit=True,
                                                                 application_name=f"{self._name}-lead") as conn:
                    while not self.leading:
                        got = await (await conn.execute(TRY_LOCK, (SCHEDULES_LOCK,))).fetchone()
                        if got and got[0]:
                            self.leading = True
                            self._lead()
                        else:
                            await asyncio.sleep(self._retry)  # the pace of tries, not a wait for an event
                    while True:  # holding it: the connection is the lock; a lost one is said by this query failing
                        await asyncio.sleep(self._retry)
                        await conn.execute("SELECT 1")
            except psycopg.Error as exc:
                if self.leading:
                    log.warning("lost the database while running the schedules (%s): another process takes over", exc)
                    self.leading = False
                    await self._step_down()
                await asyncio.sleep(self._retry)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
