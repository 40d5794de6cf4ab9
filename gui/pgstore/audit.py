"""The record of decisions on a team's database, behind the core's `AuditLog` port (`gui.core.asks.audit`).

Each entry is a row of `audit_log` (migrations/0007): its position (unique, from 1), id, the hash of the
entry before it, its own hash, and its JSON exactly as hashed. Appends from every process of the team
go one at a time: each takes the row of `audit_head` (the chain's last position and hash) with
`SELECT … FOR UPDATE`, chains its entries after it, inserts them and moves the head, in one
transaction; a second process waits for the first to commit, then chains after its entries. So the
chain never forks, and an entry is durable (committed) when `append` returns.

What the head adds: `verify` checks that the entries end where the head says. Removing the newest
entries (or adding one past the head by hand) is then seen, which the chain alone cannot show. The
database refuses UPDATE, DELETE and TRUNCATE of the entries (triggers), so cutting entries off takes
someone who can disable those triggers; someone who can also rewrite the head row and every hash is
not stopped by this: a copy of the head kept outside the database would be needed for that.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from gui.core.asks import AuditDraft, AuditEntry, AuditHead, chain, entry_document
from gui.pgstore.pool import check_reachable, connected

HEAD = "SELECT position, hash FROM audit_head WHERE id = 1"
APPEND = """
INSERT INTO audit_log (position, entry_id, prev, hash, at, entry)
SELECT * FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], %s::bigint[], %s::text[])
"""
MOVE_HEAD = "UPDATE audit_head SET position = %s, hash = %s WHERE id = 1"
ENTRIES = "SELECT entry FROM audit_log ORDER BY position"


def _document(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class PgAuditLog:
    """The team's one chain of decisions, on `pool`."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    async def append(self, draft: AuditDraft) -> AuditEntry:
        return (await self.append_many([draft]))[0]

    async def append_many(self, drafts: list[AuditDraft]) -> list[AuditEntry]:
        if not drafts:
            return []
        async with connected(self._pool) as conn, conn.transaction():
            found = await (await conn.execute(HEAD + " FOR UPDATE")).fetchone()
            last: dict[str, Any] | None = None
            if found is not None and found[0] > 0:
                last = {"position": found[0], "hash": found[1]}
            entries: list[AuditEntry] = []
            columns: list[list[Any]] = [[], [], [], [], [], []]
            for draft in drafts:
                entry = chain(draft, last)
                document = entry_document(entry)
                text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
                for column, value in zip(columns, (entry.position, entry.entry_id, entry.prev, entry.hash,
                                                   entry.at, text), strict=True):
                    column.append(value)
                entries.append(entry)
                last = document
            await conn.execute(APPEND, columns)
            await conn.execute(MOVE_HEAD, (entries[-1].position, entries[-1].hash))
        return entries

    async def documents(self) -> list[dict[str, Any] | None]:
        async with connected(self._pool) as conn:
            rows = await (await conn.execute(ENTRIES)).fetchall()
        return [_document(row[0]) for row in rows]

    async def head(self) -> AuditHead | None:
        async with connected(self._pool) as conn:
            found = await (await conn.execute(HEAD)).fetchone()
        return AuditHead(int(found[0]), str(found[1])) if found is not None else None


async def read_record(url: str) -> tuple[list[dict[str, Any] | None], AuditHead | None]:
    """The entries (each as stored) and the head of the database at `url`, read without opening the
    stores (`seqdesk audit` works beside running servers): DatabaseUnreachable when it cannot be
    reached; LookupError with a sentence when the database holds no record of decisions."""
    await check_reachable(url)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        try:
            rows = await (await conn.execute(ENTRIES)).fetchall()
            found = await (await conn.execute(HEAD)).fetchone()
        except psycopg.errors.UndefinedTable:
            raise LookupError("this database has no record of decisions: SeqDesk has not been started on it "
                              "(or an older SeqDesk set it up: start this one on it once)") from None
    head = AuditHead(int(found[0]), str(found[1])) if found is not None else None
    return [_document(row[0]) for row in rows], head
