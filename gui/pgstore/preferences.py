"""What a person chose that must outlive the browser (dark mode, language, phone access…) on a team's
database: each named object (`preferences`, as `gui.prefs.PrefsFile` names its files) is one row of
the `preferences` table (migrations/0007), behind the same `Prefs` face as the data folder's files.

The pages read preferences on the event loop, so reads answer from what this process holds (every
row is read when the store opens); a change applies here at once and is written to the database in
the background, in the order changes were made (`settle` waits for them: closing does). Each write
tells the team's other processes (`PREFERENCES`, payload: the writer, a space, the object's name), in
the same transaction; each reads that object again (`reread`) and tells what watches it (`watch`:
the notifier reads its settings again, the language pages start in follows), so a choice made in one
process is what every other one uses from then on, without a restart.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from gui.pgstore.pool import connected

log = logging.getLogger(__name__)

PREFERENCES = "seqdesk_preferences"
NOTICE = "SELECT pg_notify('seqdesk_preferences', current_setting('application_name') || ' ' || %s)"
KEEP = "INSERT INTO preferences (name, doc) VALUES (%s, %s) ON CONFLICT (name) DO UPDATE SET doc = EXCLUDED.doc"


class PgPreferenceTable:
    """Every named object of the table, read at open; `named(name)` is one of them as `Prefs`."""

    def __init__(self, pool: AsyncConnectionPool, loop: asyncio.AbstractEventLoop,
                 rows: dict[str, Any]) -> None:
        self._pool, self._loop, self._rows = pool, loop, rows
        self._named: dict[str, PgPreferences] = {}
        self._last: asyncio.Future[None] | None = None
        self._watchers: list[Callable[[str], None]] = []

    @classmethod
    async def open(cls, pool: AsyncConnectionPool) -> PgPreferenceTable:
        async with connected(pool) as conn:
            rows = await (await conn.execute("SELECT name, doc::text FROM preferences")).fetchall()
        return cls(pool, asyncio.get_running_loop(), {name: json.loads(text) for name, text in rows})

    def named(self, name: str) -> PgPreferences:
        if name not in self._named:
            kept = self._rows.get(name, {})
            problem = None
            if not isinstance(kept, dict):
                problem = f"the preferences '{name}' kept in the database are not an object; they start empty."
                kept = {}
            self._named[name] = PgPreferences(self, name, kept, problem)
        return self._named[name]

    def names(self) -> list[str]:
        """The names of the objects kept (and of those made here since the store opened)."""
        return sorted(set(self._rows) | set(self._named))

    def keep(self, name: str, data: dict[str, Any]) -> None:
        """Write `name`'s object after the writes before it (from any thread), and tell the other
        processes (`PREFERENCES`) as it is written."""
        text = json.dumps(data, ensure_ascii=False)
        self._rows[name] = data
        self._loop.call_soon_threadsafe(self._queue, name, text)

    def watch(self, on_change: Callable[[str], None]) -> Callable[[], None]:
        """Call `on_change(name)` after an object another process changed was read again here; returns
        what stops it."""
        self._watchers.append(on_change)
        return lambda: self._watchers.remove(on_change) if on_change in self._watchers else None

    async def reread(self, name: str) -> None:
        """Read `name`'s object again from the database (another process changed it), then tell the
        watchers."""
        async with connected(self._pool) as conn:
            row = await (await conn.execute("SELECT doc::text FROM preferences WHERE name = %s", (name,))).fetchone()
        data = json.loads(row[0]) if row is not None else {}
        self._rows[name] = data
        if name in self._named:
            self._named[name].took(data if isinstance(data, dict) else {})
        for on_change in list(self._watchers):
            try:
                on_change(name)
            except Exception:  # one watcher's failure is not the others'
                log.exception("could not follow the preferences '%s' changed by another process", name)

    def _queue(self, name: str, text: str) -> None:
        before = self._last

        async def write() -> None:
            if before is not None:
                await asyncio.gather(before, return_exceptions=True)  # order only: its failure is its own
            async with connected(self._pool) as conn, conn.transaction():
                await conn.execute(KEEP, (name, Jsonb(text, dumps=str)))
                await conn.execute(NOTICE, (name,))

        task = asyncio.ensure_future(write())
        task.add_done_callback(_report)
        self._last = task

    async def settle(self) -> None:
        """Wait for every change made so far to be written."""
        await asyncio.sleep(0)  # changes handed over from other threads are queued first
        if self._last is not None:
            await asyncio.gather(self._last, return_exceptions=True)


class PgPreferences:
    """One named object, as `gui.prefs.PrefsFile` keeps one in a file."""

    def __init__(self, table: PgPreferenceTable, name: str, data: dict[str, Any], problem: str | None) -> None:
        self._table, self.name, self._data, self.problem = table, name, data, problem
        self._lock = threading.Lock()

    def read(self) -> dict[str, Any]:
        with self._lock:
            return copy.deepcopy(self._data)

    def update(self, **values: Any) -> dict[str, Any]:
        with self._lock:
            data = dict(self._data)
            for key, value in values.items():
                if value is None:
                    data.pop(key, None)
                else:
                    data[key] = value
            self._keep(data)
            return copy.deepcopy(data)

    def replace(self, data: dict[str, Any]) -> None:
        with self._lock:
            self._keep(dict(data))

    def took(self, data: dict[str, Any]) -> None:
        """What another process kept, read again (`PgPreferenceTable.reread`)."""
        with self._lock:
            self._data = data

    def _keep(self, data: dict[str, Any]) -> None:
        self._data = json.loads(json.dumps(data))  # what was kept, not the caller's objects
        self._table.keep(self.name, self._data)


def _report(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("could not keep preferences in the database: %s", task.exception())
