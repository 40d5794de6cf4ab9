"""The record of decisions on a team's database, behind the core's `AuditLog` port (`gui.core.asks.audit`).

Each entry is a row of `audit_log` (migrations/0007): its position (unique, from 1), id, the hash of the
entry before it, its own hash, and its JSON exactly as hashed. Appends from every process of the team
go one at a time: each takes the row of `audit_head` (the chain's last position and hash) with
`SELECT … FOR UPDATE`, chains its entries after it, inserts them and moves the head, in one
transaction; a second process waits for the first to commit, then chains after its entries. So the
chain never forks, and an entry is durable (committed) when `append` returns.

One decision per request, across processes: the service appends a decision before it stores the
request's end. `append` does so only while the request is pending and no other process is deciding
it, and claims the request in the same transaction (`interaction_claims`: the entry's id); the
interaction store then keeps only the claimant's end (`PgInteractionStore.save`). Of two processes
answering one request at once, the second is refused here (`InteractionNotPendingError`, as the
store would refuse it) and leaves no entry. A claim older than CLAIM_TTL is void: its process died
between the two writes (the entry stays, as in a data folder's file, and the request ends otherwise).
`append_many` (a process ending its own runs' requests in bulk) claims nothing.

A record moved from another store (`seqdesk data import`) is appended as it was stored there
(`append_stored`), onto an empty record only, with the head moved to its last entry.

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

from gui.core.asks import AuditDraft, AuditEntry, AuditHead, InteractionNotPendingError, chain, entry_document
from gui.pgstore.interactions import CLAIM_TTL
from gui.pgstore.pool import check_reachable, connected

DECIDING = f"""
SELECT i.status, coalesce(c.claimed_at > now() - interval '{CLAIM_TTL} seconds', false)
FROM interactions i LEFT JOIN interaction_claims c USING (interaction_id)
WHERE i.interaction_id = %s FOR UPDATE OF i
"""
CLAIM = """
INSERT INTO interaction_claims (interaction_id, claim, claimed_at) VALUES (%s, %s, now())
ON CONFLICT (interaction_id) DO UPDATE SET claim = EXCLUDED.claim, claimed_at = EXCLUDED.claimed_at
"""

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
    """The team's one chain of decisions, on `pool`; `claims`: the requests this process is deciding
    (id → its claim), shared with its interaction store."""

    def __init__(self, pool: AsyncConnectionPool, claims: dict[str, str]) -> None:
        self._pool, self._claims = pool, claims

    async def append(self, draft: AuditDraft) -> AuditEntry:
        return (await self._append([draft], claim=True))[0]

    async def append_many(self, drafts: list[AuditDraft]) -> None:
        await self._append(drafts, claim=False)

    async def _append(self, drafts: list[AuditDraft], *, claim: bool) -> list[AuditEntry]:
        if not drafts:
            return []
        iid = drafts[0].interaction_id
        # Two round trips (pipelined): take the head (and the request), then write and commit.
        async with connected(self._pool) as conn, conn.pipeline() as pipeline, conn.transaction():
            head = await conn.execute(HEAD + " FOR UPDATE")
            deciding = await conn.execute(DECIDING, (iid,)) if claim else None
            await pipeline.sync()
            found = await head.fetchone()
            if deciding is not None:
                self._deciding(iid, await deciding.fetchone())
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
            if claim:
                await conn.execute(CLAIM, (iid, entries[0].entry_id))
        if claim:
            self._claims[iid] = entries[0].entry_id
        return entries

    async def append_stored(self, documents: list[dict[str, Any]]) -> bool:
        """Entries chained in another store (its record, moved by `seqdesk data import`), appended as
        they were stored there, hashes and all, and the head moved to the last, when this record holds
        none: it then verifies as theirs did. False, and nothing written, when it holds entries already
        (theirs do not continue its chain). The documents are whole entries (`AuditEntry`), in order."""
        if not documents:
            return True
        columns: list[list[Any]] = [[], [], [], [], [], []]
        for document in documents:
            text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
            for column, value in zip(columns, (int(document["position"]), str(document["entry_id"]),
                                               str(document["prev"]), str(document["hash"]), int(document["at"]),
                                               text), strict=True):
                column.append(value)
        async with connected(self._pool) as conn, conn.transaction():
            found = await (await conn.execute(HEAD + " FOR UPDATE")).fetchone()
            if found is None or found[0] > 0:
                return False
            await conn.execute(APPEND, columns)
            await conn.execute(MOVE_HEAD, (columns[0][-1], columns[3][-1]))
        return True

    @staticmethod
    def _deciding(interaction_id: str, found: tuple[Any, ...] | None) -> None:
        """InteractionNotPendingError when the request has ended, or another process is deciding it."""
        if found is None:
            return  # not stored yet: an approval a rule gave, stored ended at once
        status, claimed = found
        if status != "pending":
            raise InteractionNotPendingError(
                f"interaction {interaction_id} was already {status} (by another SeqDesk process)", interaction_id)
        if claimed:
            raise InteractionNotPendingError(
                f"interaction {interaction_id} is being answered in another SeqDesk process", interaction_id)

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
