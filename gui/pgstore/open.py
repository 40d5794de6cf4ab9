"""Opening the PostgreSQL stores: reach the database (or say why not), bring its schema up to date,
check the secret key, and hand back one store per port on one pool.

Any number of processes may open the same database: none holds it alone (unlike a data folder). Each
hears the others on one connection listening to every channel they tell each other on (`CHANNELS`)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from psycopg_pool import AsyncConnectionPool

from gui.pgstore.audit import PgAuditLog
from gui.pgstore.event_relay import EVENTS
from gui.pgstore.interactions import PgInteractionStore
from gui.pgstore.mcp_settings import MCP_SERVERS, PgMcpSettings
from gui.pgstore.modes import RULES, PgApprovalModes
from gui.pgstore.names import bear_name
from gui.pgstore.notices import REQUESTS, RUNS, Listener, store_name
from gui.pgstore.notify_settings import NAME as NOTIFICATIONS
from gui.pgstore.notify_settings import PgNotifySettings
from gui.pgstore.people import PgPeopleStore
from gui.pgstore.pool import check_reachable, open_pool
from gui.pgstore.preferences import PREFERENCES, PgPreferenceTable
from gui.pgstore.runs import PgRunStore
from gui.pgstore.schedules import PgScheduleStore
from gui.pgstore.schema import migrate
from gui.pgstore.secrets import KEY_ENV, PgSecrets
from gui.pgstore.sequences import PgSequenceStore
from gui.pgstore.sign_in_failures import PgSignInThrottle
from gui.pgstore.stops import STOPS, PgStopRequests

log = logging.getLogger(__name__)

CHANNELS = (REQUESTS, RUNS, EVENTS, RULES, STOPS, PREFERENCES, MCP_SERVERS)  # what one process listens to


@dataclass
class PgStores:
    """The open stores of one database; `close()` when done (queued mode writes finish first)."""

    url: str
    name: str  # what this store's connections are called (notices it wrote are not its news)
    pool: AsyncConnectionPool
    sequences: PgSequenceStore
    runs: PgRunStore
    interactions: PgInteractionStore
    modes: PgApprovalModes
    schedules: PgScheduleStore
    mcp_settings: PgMcpSettings
    stop_requests: PgStopRequests
    audit: PgAuditLog
    preferences: PgPreferenceTable
    people: PgPeopleStore
    sign_in_throttle: PgSignInThrottle  # wrong passwords, counted across the team's processes
    notify_settings: PgNotifySettings
    listener: Listener  # one connection hearing every channel (opened at the first `listen`)
    free_name: Callable[[], Awaitable[None]] | None = None  # a stable name this process bears (`bear_name`)

    async def follow(self, on_request: Callable[[str], Awaitable[None]],
                     on_run: Callable[[str], Awaitable[None]]) -> None:
        """Call `on_request(interaction_id)` whenever another process asks or ends a request, and
        `on_run(run_id)` whenever it starts or finishes a run."""
        for channel, on_change in ((REQUESTS, on_request), (RUNS, on_run)):
            await self.listen(channel, on_change)

    async def listen(self, channel: str, on_notice: Callable[[str], Awaitable[None]]) -> None:
        """Call `on_notice(text)` for each notice on `channel` another process sent (`writer text`)."""
        await self.listener.on(channel, on_notice)

    async def follow_preferences(self) -> None:
        """Read again each preferences object another process changes (`PgPreferenceTable.watch`
        says who follows them)."""
        await self.listen(PREFERENCES, self.preferences.reread)

    def follow_notify_settings(self, on_change: Callable[[], None]) -> Callable[[], None]:
        """Call `on_change()` once notification settings another process saved were read again here
        (`follow_preferences` reads them); returns what stops it."""
        return self.preferences.watch(lambda name: on_change() if name == NOTIFICATIONS else None)

    async def hear_stops(self, on_stop: Callable[[str], Awaitable[None]]) -> None:
        """Call `on_stop(run_id)` whenever a Stop is claimed (in any process) for a run this one holds."""
        await self.listener.on(STOPS, on_stop, addressed=True)

    async def tidy(self) -> None:
        """After many records were written at once (an import): VACUUM ANALYZE the runs and requests, as
        autovacuum would in a while, so their pages are read from the indexes alone (an offset skips
        index entries, not rows: page 20 of 100,000 answered requests, 183 → 16 buffers) at once."""
        async with self.pool.connection() as conn:
            await conn.execute("VACUUM (ANALYZE) runs, interactions")

    async def close(self) -> None:
        await self.listener.close()
        await self.modes.settle()
        await self.preferences.settle()
        await self.pool.close()
        if self.free_name is not None:
            await self.free_name()


async def open_pg_stores(url: str, *, secret_key: str | None = None, process: str | None = None) -> PgStores:
    """The stores on the database at `url`; DatabaseUnreachable, DatabaseNewerError or SecretKeyError
    (each a sentence) when it cannot be used. `secret_key`: default `SEQDESK_SECRET_KEY`. `process`:
    this process's stable name among the team's (`store_name`), None for a name of its own."""
    await check_reachable(url)
    applied = await asyncio.to_thread(migrate, url)
    if applied:
        log.info("the database's schema was brought up to date: %s", ", ".join(applied))
    key = secret_key if secret_key is not None else os.environ.get(KEY_ENV)
    secrets = await asyncio.to_thread(PgSecrets.load, url, key)
    name = store_name(process)
    free_name = await bear_name(url, name) if process is not None else None
    try:
        pool = await open_pool(url, name)
    except BaseException:
        if free_name is not None:
            await free_name()
        raise
    try:
        modes = await PgApprovalModes.open(pool)
        preferences = await PgPreferenceTable.open(pool)
    except BaseException:
        await pool.close()
        if free_name is not None:
            await free_name()
        raise
    claims: dict[str, str] = {}  # the requests this process is deciding: its record of decisions claimed them
    return PgStores(url=url, name=name, pool=pool, sequences=PgSequenceStore(pool), runs=PgRunStore(pool, name),
                    interactions=PgInteractionStore(pool, claims), modes=modes, schedules=PgScheduleStore(pool),
                    mcp_settings=PgMcpSettings(pool, secrets), stop_requests=PgStopRequests(pool, name),
                    audit=PgAuditLog(pool, claims), preferences=preferences, people=PgPeopleStore(pool),
                    sign_in_throttle=PgSignInThrottle(pool),
                    notify_settings=PgNotifySettings(preferences, secrets), listener=Listener(url, name, CHANNELS),
                    free_name=free_name)


async def open_people_store(url: str) -> tuple[PgPeopleStore, Callable[[], Awaitable[None]]]:
    """Only the people of the database at `url` (`seqdesk people`: no secret key needed), its schema
    brought up to date first; the store and what closes it. DatabaseUnreachable or DatabaseNewerError."""
    await check_reachable(url)
    await asyncio.to_thread(migrate, url)
    pool = await open_pool(url, store_name())
    return PgPeopleStore(pool), pool.close
