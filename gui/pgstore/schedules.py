"""Schedules in PostgreSQL, behind the core's `ScheduleStore` port (few: one row each)."""

from __future__ import annotations

import builtins

from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from gui.core.runs import Schedule
from gui.pgstore.documents import load_all
from gui.pgstore.pool import connected


class PgScheduleStore:
    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    async def list(self) -> builtins.list[Schedule]:
        async with connected(self._pool) as conn:
            rows = await (await conn.execute(
                "SELECT doc::text FROM schedules ORDER BY created_at, schedule_id")).fetchall()
        return load_all(Schedule, (r[0] for r in rows))

    async def get(self, schedule_id: str) -> Schedule | None:
        async with connected(self._pool) as conn:
            found = await (await conn.execute("SELECT doc::text FROM schedules WHERE schedule_id = %s",
                                              (schedule_id,))).fetchone()
        items = load_all(Schedule, [found[0]]) if found else []
        return items[0] if items else None

    async def save(self, schedule: Schedule) -> None:
        async with connected(self._pool) as conn:
            await conn.execute(
                "INSERT INTO schedules (schedule_id, created_at, doc) VALUES (%s, %s, %s) ON CONFLICT (schedule_id) "
                "DO UPDATE SET created_at = EXCLUDED.created_at, doc = EXCLUDED.doc",
                (schedule.schedule_id, schedule.created_at, Jsonb(schedule.model_dump_json(), dumps=str)))

    async def delete(self, schedule_id: str) -> bool:
        async with connected(self._pool) as conn:
            gone = await (await conn.execute("DELETE FROM schedules WHERE schedule_id = %s RETURNING schedule_id",
                                             (schedule_id,))).fetchone()
        return gone is not None
