"""Run records in PostgreSQL, behind the core's `RunStore` port.

Each run is one row: its record as a document, and the fields queries filter and sort on
(`run_fields`) as indexed columns, so a page of 50 is an index scan whatever the history holds.
Each running run has a lease (`holder`, `heartbeat`: migrations/0004) that its process renews;
`take_over_expired` finds those whose process is gone. Resuming is a conditional write: the old
run's `resumed_by` is set once, and a second process that resumes it too loses with `WriteConflict`
and changes nothing.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from typing import Any

from psycopg_pool import AsyncConnectionPool

from gui.core.queries import DEFAULT_LIMIT, Page, check_window
from gui.core.runs import RunRecord, RunStatus, run_fields
from gui.pgstore.documents import TEXT, columns, columns_of, load_all, page_query
from gui.pgstore.errors import WriteConflict
from gui.pgstore.pool import connected
from gui.pgstore.tallies import counted, tally, tally_like

# The first save names the holder of the run's lease (the process that runs it); its saves renew it.
COLUMNS = "run_id, status, sequence, created_at, finished, resumed_by, doc, raw, holder, heartbeat"
ON_CONFLICT = """
ON CONFLICT (run_id) DO UPDATE SET status = EXCLUDED.status, sequence = EXCLUDED.sequence,
    created_at = EXCLUDED.created_at, finished = EXCLUDED.finished, resumed_by = EXCLUDED.resumed_by,
    doc = EXCLUDED.doc, raw = EXCLUDED.raw,
    heartbeat = CASE WHEN runs.holder = EXCLUDED.holder THEN now() ELSE runs.heartbeat END
WHERE runs.resumed_by IS NULL OR runs.resumed_by = EXCLUDED.resumed_by
"""
SAVE = f"INSERT INTO runs ({COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, now()) {ON_CONFLICT} RETURNING run_id"
# A batch in one statement: the tallies change once, and it is written whole or not at all.
SAVE_MANY = f"""
INSERT INTO runs ({COLUMNS})
SELECT *, now() FROM unnest(%s::text[], %s::text[], %s::text[], %s::float8[], %s::bool[], %s::text[], %s::jsonb[],
                            %s::text[], %s::text[])
{ON_CONFLICT}
"""
RENEW = "UPDATE runs SET heartbeat = now() WHERE holder = %s AND NOT finished"
# Runs whose lease expired (or that never had one), taken over by this process: one taker each.
TAKE_OVER = f"""
WITH expired AS (
    SELECT run_id FROM runs
    WHERE NOT finished AND coalesce(heartbeat, '-infinity') < now() - make_interval(secs => %s)
    FOR UPDATE SKIP LOCKED)
UPDATE runs SET holder = %s, heartbeat = now() FROM expired WHERE runs.run_id = expired.run_id
RETURNING {TEXT}
"""


def like_escaped(text: str) -> str:
    """`text` matched as it is by LIKE (its `%`, `_` and `\\` are no wildcards)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def row(record: RunRecord, holder: str) -> tuple[Any, ...]:
    fields = run_fields(record)
    doc, raw = columns(record)
    return (record.run_id, fields["status"], fields["sequence"], float(fields["created_at"]), record.finished,
            record.resumed_by, doc, raw, holder)


class PgRunStore:
    """`holder`: the name of this process's connections, which holds the leases of the runs it starts."""

    def __init__(self, pool: AsyncConnectionPool, holder: str) -> None:
        self._pool, self.holder = pool, holder

    async def renew_leases(self) -> None:
        async with connected(self._pool) as conn:
            await conn.execute(RENEW, (self.holder,))

    async def take_over_expired(self, lease: float) -> builtins.list[RunRecord]:
        """The running runs whose lease is older than `lease` seconds, now held by this process (which
        ends them): each is taken by one process only."""
        async with connected(self._pool) as conn:
            rows = await (await conn.execute(TAKE_OVER, (lease, self.holder))).fetchall()
        return load_all(RunRecord, (r[0] for r in rows))

    async def save(self, record: RunRecord) -> None:
        async with connected(self._pool) as conn:
            saved = await (await conn.execute(SAVE, row(record, self.holder))).fetchone()
        if saved is None:
            raise WriteConflict(f"run {record.run_id} was resumed already, by another SeqDesk process: "
                                "this change was not kept")

    async def save_many(self, records: Iterable[RunRecord]) -> None:
        arrays = columns_of(row(r, self.holder) for r in records)
        if arrays:
            async with connected(self._pool) as conn:
                await conn.execute(SAVE_MANY, arrays)

    async def get(self, run_id: str) -> RunRecord | None:
        async with connected(self._pool) as conn:
            found = await (await conn.execute(f"SELECT {TEXT} FROM runs WHERE run_id = %s", (run_id,))).fetchone()
        items = load_all(RunRecord, [found[0]]) if found else []
        return items[0] if items else None

    async def list(self, limit: int = 100, offset: int = 0) -> builtins.list[RunRecord]:
        return (await self.query(limit=limit, offset=offset)).items

    async def running(self) -> builtins.list[RunRecord]:
        async with connected(self._pool) as conn:
            rows = await (await conn.execute(f"SELECT {TEXT} FROM runs WHERE NOT finished")).fetchall()
        return load_all(RunRecord, (r[0] for r in rows))

    async def count(self) -> int:
        async with connected(self._pool) as conn:
            return await tally(conn, "runs")

    async def ids_starting(self, prefix: str, limit: int) -> builtins.list[str]:
        pattern = like_escaped(prefix) + "%"
        async with connected(self._pool) as conn:
            rows = await (await conn.execute(
                "SELECT run_id FROM runs WHERE run_id LIKE %s ORDER BY run_id LIMIT %s", (pattern, limit))).fetchall()
        return [r[0] for r in rows]

    async def query(
        self,
        *,
        status: RunStatus | None = None,
        sequence: str | None = None,
        started_from: float | None = None,
        started_to: float | None = None,
        text: str | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> Page[RunRecord]:
        check_window(limit, offset)
        where: list[str] = ["TRUE"]
        params: list[Any] = []
        for clause, value in (("status = %s", status), ("sequence = %s", sequence),
                              ("created_at >= %s", started_from), ("created_at < %s", started_to)):
            if value is not None:
                where.append(clause)
                params.append(value)
        if text:
            where.append("lower(sequence) LIKE lower(%s)")  # found by the trigram index
            params.append("%" + like_escaped(text) + "%")
        condition = " AND ".join(where)
        async with connected(self._pool) as conn:
            page = page_query("runs", "run_id", condition)
            rows = await (await conn.execute(page, (*params, limit, offset))).fetchall()
            if text and not (status or sequence or started_from is not None or started_to is not None):
                total = await tally_like(conn, "runs", "sequence", params[-1])  # by name: one row per sequence
            elif text or started_from is not None or started_to is not None or (status and sequence):
                total = await counted(conn, "runs", condition, params)
            elif status or sequence:
                total = await tally(conn, "runs", "status" if status else "sequence", status or sequence or "")
            else:
                total = await tally(conn, "runs")
        return Page(load_all(RunRecord, (r[0] for r in rows)), total)
