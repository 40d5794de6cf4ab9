"""Saved sequences in PostgreSQL, behind the core's `SequenceStore` port: one row per name, the tree
as a document and its identity beside it (read without the tree). Nothing is cached: another
process may have saved a sequence since."""

from __future__ import annotations

import builtins

from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from gui.core.sequences import Sequence
from gui.pgstore.documents import load_all
from gui.pgstore.pool import connected

SAVE = """
INSERT INTO sequences (name, identity, doc) VALUES (%s, %s, %s)
ON CONFLICT (name) DO UPDATE SET identity = EXCLUDED.identity, doc = EXCLUDED.doc
"""


def as_row(sequence: Sequence) -> tuple[str, str, Jsonb]:
    return sequence.name, sequence.identity or "", Jsonb(sequence.model_dump_json(by_alias=True), dumps=str)


class PgSequenceStore:
    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    async def get(self, name: str) -> Sequence | None:
        async with connected(self._pool) as conn:
            found = await (await conn.execute("SELECT doc::text FROM sequences WHERE name = %s", (name,))).fetchone()
        items = load_all(Sequence, [found[0]]) if found else []
        return items[0] if items else None

    async def list(self) -> builtins.list[Sequence]:
        async with connected(self._pool) as conn:
            rows = await (await conn.execute("SELECT doc::text FROM sequences ORDER BY name")).fetchall()
        return load_all(Sequence, (r[0] for r in rows))

    async def save(self, sequence: Sequence) -> None:
        async with connected(self._pool) as conn:
            await conn.execute(SAVE, as_row(sequence))

    async def delete(self, name: str) -> bool:
        async with connected(self._pool) as conn:
            gone = await (await conn.execute("DELETE FROM sequences WHERE name = %s RETURNING name",
                                             (name,))).fetchone()
        return gone is not None

    async def identity_of(self, name: str) -> str | None:
        async with connected(self._pool) as conn:
            found = await (await conn.execute("SELECT identity FROM sequences WHERE name = %s", (name,))).fetchone()
        return None if found is None else (found[0] or "")

    async def replace(self, old_name: str, sequence: Sequence) -> None:
        async with connected(self._pool) as conn, conn.transaction():
            await conn.execute("DELETE FROM sequences WHERE name = %s", (old_name,))
            await conn.execute(SAVE, as_row(sequence))
