"""The connections to the database: one psycopg 3 async pool per process, opened (or refused with a
sentence) before anything else, so an unreachable database is said at start, not at the first page."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from gui.pgstore.errors import DatabaseUnreachable

CONNECT_TIMEOUT = 5  # seconds


def is_database_url(store: str | None) -> bool:
    """Whether `--store` / `SEQDESK_STORE` names a PostgreSQL database (else it is a data folder)."""
    return store is not None and store.split("://", 1)[0] in ("postgresql", "postgres") and "://" in store


def where(url: str) -> str:
    """The database's address without its password, for sentences and logs."""
    scheme, rest = url.split("://", 1)
    if "@" in rest.split("/", 1)[0]:
        auth, host = rest.split("@", 1)
        rest = f"{auth.split(':', 1)[0]}@{host}"
    return f"{scheme}://{rest}"


async def check_reachable(url: str) -> None:
    """One connection, at once: DatabaseUnreachable with the server's reason when it cannot be made."""
    try:
        conn = await psycopg.AsyncConnection.connect(url, connect_timeout=CONNECT_TIMEOUT)
    except (psycopg.Error, ValueError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise DatabaseUnreachable(f"cannot reach the database {where(url)}: {reason}") from None
    await conn.close()


async def open_pool(url: str, name: str, *, max_size: int = 10) -> AsyncConnectionPool:
    """An open pool on `url` whose connections are named `name` (autocommit: each statement is its
    own transaction unless one is opened)."""
    await check_reachable(url)
    pool = AsyncConnectionPool(url, min_size=1, max_size=max_size, open=False, timeout=CONNECT_TIMEOUT * 2,
                               kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT,
                                       "application_name": name})
    await pool.open(wait=True, timeout=CONNECT_TIMEOUT * 2)
    return pool


@asynccontextmanager
async def connected(pool: AsyncConnectionPool) -> AsyncIterator[psycopg.AsyncConnection]:
    """A connection of the pool; the database lost meanwhile is DatabaseUnreachable (503, a sentence),
    and what the statement was writing is not kept (each statement, or transaction, is whole or not at all)."""
    try:
        async with pool.connection() as conn:
            yield conn
    except (psycopg.OperationalError, PoolTimeout) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise DatabaseUnreachable(f"the database cannot be reached now ({reason}): nothing was changed; "
                                  "try again in a moment") from None
