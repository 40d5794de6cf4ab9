"""A team process's stable name (`seqdesk serve --process-name`), borne by one live process at a time.

The name is what a process's leases are held under (`PgRunStore.holder`) and what its runs' task queue
on Temporal is called by (`gui.temporal`): a process restarted under the same name holds again the
runs its previous life left going on (`PgRunStore.claim`). Two live processes bearing one name would
take each other's runs, so a process bears its name by a PostgreSQL advisory lock, held by a
connection of its own for as long as it lives: a second process given that name is refused at
start, while a process that died (its connection gone) frees it for its restart.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import psycopg

from gui.pgstore.errors import DatabaseUnreachable, ProcessNameTaken

# 64 bits of the name, apart from the schedules' key (`gui.pgstore.leader`) by its prefix
TRY_LOCK = "SELECT pg_try_advisory_lock(hashtextextended('seqdesk process ' || %s, 0))"


async def bear_name(url: str, holder: str) -> Callable[[], Awaitable[None]]:
    """Bear the name `holder` on the database at `url` while this process lives; what frees it.
    ProcessNameTaken when another live process bears it."""
    try:
        conn = await psycopg.AsyncConnection.connect(url, autocommit=True, application_name=f"{holder}-name")
        got = await (await conn.execute(TRY_LOCK, (holder,))).fetchone()
    except psycopg.Error as exc:
        raise DatabaseUnreachable(f"the database did not let this process take its name '{holder}': {exc}") from None
    if not (got and got[0]):
        await conn.close()
        raise ProcessNameTaken(
            f"another SeqDesk process named '{holder.removeprefix('seqdesk-')}' is serving this database now: "
            "give this one a name of its own (seqdesk serve --process-name NAME, or SEQDESK_PROCESS_NAME)")
    return conn.close
