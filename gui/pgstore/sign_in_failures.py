"""Wrong passwords counted on a team's database (migration 0009.sign_in_failures), so ten in a minute
slow that name and that address whichever processes they were tried on: the rule of
`gui.core.people.SignInThrottle` (the same limit and window), its counts in two tables.

A wrong password is a row; one that makes `limit` within `window` s for a key sets the key's
`sign_in_slow.until` and clears its rows. Rows and waits past their time are deleted as wrong
passwords come, so a flood of names cannot grow the tables without bound. The clock is the wall
clock (the processes of a team share it); a test gives its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from psycopg_pool import AsyncConnectionPool

from gui.core.people import MAX_WRONG, WINDOW
from gui.pgstore.pool import connected

SLOWED = "SELECT max(until) FROM sign_in_slow WHERE key = ANY(%s) AND until > %s"
FORGET = ("DELETE FROM sign_in_failures WHERE at <= %s", "DELETE FROM sign_in_slow WHERE until <= %s")
ADD = "INSERT INTO sign_in_failures (key, at) SELECT unnest(%s::text[]), %s"
REACHED = "SELECT key FROM sign_in_failures WHERE key = ANY(%s) GROUP BY key HAVING count(*) >= %s"
SLOW = """INSERT INTO sign_in_slow (key, until) SELECT unnest(%s::text[]), %s
ON CONFLICT (key) DO UPDATE SET until = EXCLUDED.until"""
CLEAR = "DELETE FROM sign_in_failures WHERE key = ANY(%s)"


class PgSignInThrottle:
    """The team's `Throttle` (`gui.core.people.Throttle`) on `pool`."""

    def __init__(self, pool: AsyncConnectionPool, limit: int = MAX_WRONG, window: float = WINDOW,
                 clock: Callable[[], float] = time.time) -> None:
        self._pool, self.limit, self.window, self.clock = pool, limit, window, clock

    async def wait(self, *keys: str) -> float:
        now = self.clock()
        async with connected(self._pool) as conn:
            row = await (await conn.execute(SLOWED, (list(keys), now))).fetchone()
        until = row[0] if row is not None else None
        return 0.0 if until is None else float(until) - now

    async def wrong(self, *keys: str) -> None:
        now = self.clock()
        async with connected(self._pool) as conn, conn.transaction():
            await conn.execute(FORGET[0], (now - self.window,))
            await conn.execute(FORGET[1], (now,))
            await conn.execute(ADD, (list(keys), now))
            reached = [r[0] for r in await (await conn.execute(REACHED, (list(keys), self.limit))).fetchall()]
            if reached:
                await conn.execute(SLOW, (reached, now + self.window))
                await conn.execute(CLEAR, (reached,))
