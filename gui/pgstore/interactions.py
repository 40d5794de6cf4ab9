"""Requests for a person in PostgreSQL, behind the core's `InteractionStore` port.

One row per request: the record as a document, and `interaction_fields` as indexed columns (a page
of pending, answered, or one run's requests is an index scan). Ending a request is a conditional
write: it applies only while the stored request is still pending, so when two processes answer (or
one answers while another cancels) exactly one wins; the other gets `InteractionNotPendingError`
(409) and nothing of its answer is kept. A pending request never replaces an ended one either, and a
change that keeps it pending (an approval of several) applies only over the revision it was made from.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from psycopg_pool import AsyncConnectionPool

from gui.core.asks import (
    AuditDraft,
    AuditLog,
    InteractionKind,
    InteractionNotPendingError,
    InteractionRecord,
    InteractionStatus,
    InteractionStatusFilter,
    interaction_fields,
)
from gui.core.queries import DEFAULT_LIMIT, Page, StoredText, check_window
from gui.pgstore.documents import TEXT, columns, columns_of, load_all, page_query
from gui.pgstore.pool import connected
from gui.pgstore.tallies import counted, tally

UPSERT = """
INSERT INTO interactions (interaction_id, status, kind, run_id, sequence, tool_name, created_at, doc, raw)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (interaction_id) DO UPDATE SET status = EXCLUDED.status, kind = EXCLUDED.kind,
    run_id = EXCLUDED.run_id, sequence = EXCLUDED.sequence, tool_name = EXCLUDED.tool_name,
    created_at = EXCLUDED.created_at, doc = EXCLUDED.doc, raw = EXCLUDED.raw
"""
CLAIM_TTL = 30  # seconds another process's claim to decide a request holds (`gui.pgstore.audit`)
# Only a pending request changes (and not while another process's claim to decide it holds), or one
# stored exactly so already (saving the same again). A change that keeps it pending (one approval of
# several, a hand-over, a reminder) applies only over the revision just before it: of two processes
# changing it at once, one wins and the other is told, even when both made the same change (two
# leaders' sweeps reminding it at the same moment: the reminder is sent once).
CHANGES = f"""
WHERE (interactions.status = 'pending' AND NOT EXISTS (
        SELECT 1 FROM interaction_claims c WHERE c.interaction_id = interactions.interaction_id
        AND c.claim IS DISTINCT FROM {{claim}} AND c.claimed_at > now() - interval '{CLAIM_TTL} seconds')
    AND (EXCLUDED.status <> 'pending'
        OR COALESCE((interactions.doc->>'revision')::int, 0) = COALESCE((EXCLUDED.doc->>'revision')::int, 0) - 1))
    OR ((interactions.doc = EXCLUDED.doc OR interactions.raw = EXCLUDED.raw)
        AND (EXCLUDED.status <> 'pending' OR COALESCE((EXCLUDED.doc->>'revision')::int, 0) = 0))
RETURNING interaction_id
"""
SAVE = UPSERT + CHANGES.format(claim="%s")
# A batch in one statement (closing ends its runs' requests; an import): the tallies change once, and
# it is written whole or not at all (none of it when another process ended one of them meanwhile).
SAVE_MANY = UPSERT.replace("VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)", """
SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::bigint[],
                     %s::jsonb[], %s::text[])""") + CHANGES.format(claim="NULL")


def row(record: InteractionRecord) -> tuple[Any, ...]:
    fields = interaction_fields(record)
    doc, raw = columns(record)
    return (record.interaction_id, fields["status"], fields["kind"], fields["run_id"], fields["sequence"],
            fields["tool_name"], int(fields["created_at"]), doc, raw)


class PgInteractionStore:
    """`claims`: the requests this process is deciding (its record of decisions claimed them)."""

    def __init__(self, pool: AsyncConnectionPool, claims: dict[str, str]) -> None:
        self._pool, self._claims = pool, claims

    async def save(self, record: InteractionRecord) -> None:
        claim = self._claims.pop(record.interaction_id, None)
        async with connected(self._pool) as conn:
            saved = await (await conn.execute(SAVE, (*row(record), claim))).fetchone()
            if saved is not None:
                if claim is not None:  # decided: the claim has done its work
                    await conn.execute("DELETE FROM interaction_claims WHERE interaction_id = %s",
                                       (record.interaction_id,))
                return
            stored = await (await conn.execute("SELECT status FROM interactions WHERE interaction_id = %s",
                                               (record.interaction_id,))).fetchone()
        status = stored[0] if stored else "ended"
        if status == "pending":
            status = "changed"
        raise InteractionNotPendingError(
            f"interaction {record.interaction_id} was already {status} (by another SeqDesk process)",
            record.interaction_id)

    async def save_with(self, record: InteractionRecord, decision: AuditDraft, audit: AuditLog) -> None:
        """The record of decisions first (on a team's database it claims the request for this process,
        `gui.pgstore.audit`), then the record, saved over that claim."""
        await audit.append(decision)
        await self.save(record)

    async def save_many(self, records: Sequence[InteractionRecord],
                        documents: Sequence[dict[str, Any]] | None = None) -> None:
        """Every record in one statement (`documents`, their JSON forms, are not needed: the rows are made
        from the records)."""
        arrays = columns_of(row(r) for r in records)
        if not arrays:
            return
        async with connected(self._pool) as conn, conn.transaction():
            saved = {r[0] for r in await (await conn.execute(SAVE_MANY, arrays)).fetchall()}
            refused = [iid for iid in arrays[0] if iid not in saved]
            if refused:  # rolled back: the caller ends them one by one, each as the store has it
                raise InteractionNotPendingError(
                    f"{len(refused)} of these requests were already ended (by another SeqDesk process): "
                    f"none of them was changed ({', '.join(refused[:5])})", refused[0])

    async def get(self, interaction_id: str) -> InteractionRecord | None:
        async with connected(self._pool) as conn:
            found = await (await conn.execute(f"SELECT {TEXT} FROM interactions WHERE interaction_id = %s",
                                              (interaction_id,))).fetchone()
        items = load_all(InteractionRecord, [found[0]]) if found else []
        return items[0] if items else None

    async def list(self, status: InteractionStatus | None = None) -> builtins.list[InteractionRecord]:
        condition, params = ("status = %s", (status,)) if status is not None else ("TRUE", ())
        async with connected(self._pool) as conn:
            rows = await (await conn.execute(
                f"SELECT {TEXT} FROM interactions WHERE {condition} ORDER BY created_at, interaction_id",
                params)).fetchall()
        return load_all(InteractionRecord, (r[0] for r in rows))

    async def query(
        self,
        *,
        status: InteractionStatusFilter | None = None,
        kind: InteractionKind | None = None,
        run_id: str | None = None,
        sequence: str | None = None,
        tool_name: str | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> Page[InteractionRecord]:
        check_window(limit, offset)
        where: list[str] = ["TRUE"]
        params: list[Any] = []
        if status == "ended":
            where.append("status <> 'pending'")
        elif status is not None:
            where.append("status = %s")
            params.append(status)
        for column, value in (("kind", kind), ("run_id", run_id), ("sequence", sequence), ("tool_name", tool_name)):
            if value is not None:
                where.append(f"{column} = %s")
                params.append(value)
        condition = " AND ".join(where)
        async with connected(self._pool) as conn:
            rows = await (await conn.execute(page_query("interactions", "interaction_id", condition),
                                             (*params, limit, offset))).fetchall()
            if any(value is not None for value in (kind, run_id, sequence, tool_name)):
                total = await counted(conn, "interactions", condition, params)
            elif status == "ended":
                total = await tally(conn, "interactions") - await tally(conn, "interactions", "status", "pending")
            elif status is not None:
                total = await tally(conn, "interactions", "status", status)
            else:
                total = await tally(conn, "interactions")
        return Page(load_all(InteractionRecord, (r[0] for r in rows)), total)

    async def query_texts(
        self,
        *,
        status: InteractionStatusFilter | None = None,
        kind: InteractionKind | None = None,
        run_id: str | None = None,
        sequence: str | None = None,
        tool_name: str | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> Page[InteractionRecord | StoredText]:
        """`query`: this store vouches for no text, each record is given as it is read."""
        page = await self.query(status=status, kind=kind, run_id=run_id, sequence=sequence, tool_name=tool_name,
                                limit=limit, offset=offset)
        return Page(list[InteractionRecord | StoredText](page.items), page.total)
