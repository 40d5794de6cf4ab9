"""A page of 50 on PostgreSQL reads its records where the index walk finds them, a few to a block,
whatever the history holds: fewer blocks than records (looking each record up again by its id, as
pages did before, costs an index descent and a block for each, three or four blocks a record once
the history is large). The benchmark (tests/bench/bench_pgstore_queries.py) shows the same at
100 and 100,000 records."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from contract_support import interaction, run

from gui.pgstore import open_pg_stores
from gui.pgstore.documents import page_by_values_query, page_query

pytestmark = pytest.mark.postgres
HISTORY = 3_000
PAGE = 50
NOTE = "line of output\n" * 40  # a record of about a kilobyte, as a run with a few steps' output is


def blocks(url: str, sql: str, params: tuple[Any, ...]) -> tuple[int, int]:
    """(the blocks one statement touches, the rows it returns)."""
    with psycopg.connect(url, autocommit=True) as conn:
        plan = conn.execute(f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {sql}", params).fetchone()
        top = plan[0][0]["Plan"] if plan else {}
        return int(top["Shared Hit Blocks"]) + int(top["Shared Read Blocks"]), int(top["Actual Rows"])


async def test_a_page_of_50_reads_fewer_blocks_than_records(seqdesk_database_url):
    stores = await open_pg_stores(seqdesk_database_url, secret_key="")
    try:
        await stores.runs.save_many(
            run(f"run-{n:06d}", sequence=f"nightly {n % 5}", status="failed" if n % 3 == 0 else "succeeded",
                created_at=float(n), args={"note": NOTE}) for n in range(HISTORY))
        await stores.interactions.save_many(
            interaction(f"int-{n:06d}", created_at=n, status="pending" if n % 2 else "resolved")
            for n in range(HISTORY))
        newest = await stores.runs.query(limit=PAGE)
        assert [r.run_id for r in newest.items] == [f"run-{n:06d}" for n in range(HISTORY - 1, HISTORY - 1 - PAGE, -1)]
    finally:
        await stores.close()
    with psycopg.connect(seqdesk_database_url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
    pages = {
        "runs": (page_query("runs", "run_id", "TRUE"), (PAGE, 0)),
        "failed runs": (page_query("runs", "run_id", "TRUE AND status = %s"), ("failed", PAGE, 0)),
        "runs of 'nightly 1'": (page_by_values_query("runs", "run_id", "sequence", "TRUE"),
                                (["nightly 1"], PAGE, PAGE, 0)),
        "pending requests": (page_query("interactions", "interaction_id", "TRUE AND status = %s"),
                             ("pending", PAGE, 0)),
    }
    for name, (sql, params) in pages.items():
        read, rows = blocks(seqdesk_database_url, sql, params)
        assert rows == PAGE, name
        assert read < PAGE, f"a page of {name} read {read} blocks for {PAGE} records"
