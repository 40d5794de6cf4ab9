"""The totals of the commonest lists, read from the counts triggers keep (`migrations/0002`, once
per statement since 0006): every run or request, by status, runs by sequence (and by a text in the
sequence's name). A page of those lists then costs the same with a hundred records as with a hundred
thousand; any other filter is counted in the table."""

from __future__ import annotations

from psycopg import AsyncConnection

TALLY = "SELECT coalesce(sum(n), 0) FROM tallies WHERE tbl = %s AND field = %s AND value = %s"


async def tally(conn: AsyncConnection, table: str, field: str = "*", value: str = "") -> int:
    found = await (await conn.execute(TALLY, (table, field, value))).fetchone()
    return int(found[0]) if found else 0


async def counted(conn: AsyncConnection, table: str, condition: str, params: list[object]) -> int:
    found = await (await conn.execute(f"SELECT count(*) FROM {table} WHERE {condition}", params)).fetchone()
    return int(found[0]) if found else 0


async def values_like(conn: AsyncConnection, table: str, field: str, pattern: str) -> dict[str, int]:
    """The values of `field` matching the LIKE `pattern` (case aside) that some rows have, with how many."""
    rows = await (await conn.execute(
        "SELECT value, sum(n) FROM tallies WHERE tbl = %s AND field = %s AND lower(value) LIKE lower(%s) "
        "GROUP BY value HAVING sum(n) > 0", (table, field, pattern))).fetchall()
    return {str(value): int(n) for value, n in rows}
