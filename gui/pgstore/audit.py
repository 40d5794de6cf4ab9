"""The record of decisions (`gui.core.asks.AuditLog`) in PostgreSQL: one chain for all of a team's
processes, append-only.

Each entry is a row (its position and its document as the exact text that was hashed over). An
append takes the table's lock, reads the last entry, chains the new one after it and inserts it, in
one transaction: two processes deciding at once still make one unbroken chain. A trigger refuses to
change or delete a row; someone who edits the table anyway (as a superuser, the trigger off) is found
by `seqdesk audit verify`, as for the file."""

from __future__ import annotations

import json
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from gui.core.asks import AuditDraft, AuditEntry, chain, entry_document
from gui.pgstore.errors import DatabaseUnreachable
from gui.pgstore.pool import connected


def _document(text: str) -> dict[str, Any] | None:
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


class PgAuditLog:
    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    async def append(self, draft: AuditDraft) -> AuditEntry:
        [entry] = await self.append_many([draft])
        return entry

    async def append_many(self, drafts: list[AuditDraft]) -> list[AuditEntry]:
        if not drafts:
            return []
        async with connected(self._pool) as conn, conn.transaction():
            await conn.execute(b"LOCK TABLE audit IN EXCLUSIVE MODE")
            row = await (await conn.execute(b"SELECT doc FROM audit ORDER BY position DESC LIMIT 1")).fetchone()
            last = _document(row[0]) if row else None
            made: list[AuditEntry] = []
            async with conn.cursor() as cursor:
                rows = []
                for draft in drafts:
                    entry = chain(draft, last)
                    last = entry_document(entry)
                    rows.append((entry.position, json.dumps(last, ensure_ascii=False)))
                    made.append(entry)
                await cursor.executemany(b"INSERT INTO audit (position, doc) VALUES (%s, %s)", rows)
        return made

    async def documents(self) -> list[dict[str, Any] | None]:
        async with connected(self._pool) as conn:
            rows = await (await conn.execute(b"SELECT doc FROM audit ORDER BY position")).fetchall()
        return [_document(r[0]) for r in rows]


def read_documents(url: str) -> list[dict[str, Any] | None]:
    """Every entry of the database at `url`, as stored (`seqdesk audit`, without opening the stores);
    DatabaseUnreachable (a sentence) when it cannot be read."""
    try:
        with psycopg.connect(url, connect_timeout=10) as conn:
            rows = conn.execute(b"SELECT doc FROM audit ORDER BY position").fetchall()
    except psycopg.Error as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise DatabaseUnreachable(f"the record of decisions cannot be read from the database ({reason})") from None
    return [_document(r[0]) for r in rows]
