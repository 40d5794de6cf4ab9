"""What does one page of a query cost on PostgreSQL, with a small and a large history?

Run: python tests/bench/bench_pgstore_queries.py [sizes...]   (default: 100 100000)
- a PostgreSQL server of its own (tests/support/postgres.py: Debian's binaries, a temporary folder),
  one fresh database per size, filled with the TinyDB benchmark's generator (bench_store_queries.py:
  `size` finished runs and as many answered interactions, plus 20 running runs and 20 pending
  requests): the history as the stores write their rows (their `row`: the indexed fields and the
  document), by COPY in one transaction (100,000 in about a minute, not 15 of batches of `save_many`),
  the live records and the fill through the stores' own API; then VACUUM ANALYZE (what autovacuum
  does after a bulk insert, and `seqdesk data import` at its end);
- then, at every size alike, the records that fill each page compared (`fill`): newest of all, 50
  failed runs, 50 runs of 'deploy to production', 1,000 answered requests (pages 1 to 20 of answered
  requests) and 30 more pending requests (50 in all), from the same generator. So each page compared
  holds the same number of records (50) at both sizes, the same records in kind and size: what grows
  from the smallest size to the largest is only the history the query passes by. (Without the fill, at
  100 the pages are not full: 20 failed runs, 5 whose name holds 'production', none on page 20 of
  answered requests, and the growth compares a page of 20 or 0 records with one of 50.) The bench
  checks it: a page that holds another number of records at one size than at the other is not compared;
- every size built first, then measured with the sizes' calls taken in turn (one call at each size,
  then again), so that a change of the machine's load weighs on every size alike;
- per case (the same as the TinyDB benchmark): the first call apart, then the median time (ms) of one
  page of 50 with its spread (25th-75th percentile), how many records the page holds of how many that
  match, the database's part (the median of the same statements, their rows fetched and not turned
  into records) and the buffers (8 kB pages) those statements touch: the database's work, which load
  does not change;
- the machine's load average before and after, since these helpers share two cores.
Target: <= 20 ms, and <= 1.5x from the smallest size to the largest.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]

from bench_store_queries import LIVE, PAGE, REPEATS, cases, request, run, timed  # noqa: E402
from psycopg import AsyncConnection  # noqa: E402
from support.postgres import start_server  # noqa: E402

from gui.pgstore import PgStores, open_pg_stores  # noqa: E402
from gui.pgstore.interactions import row as interaction_row  # noqa: E402
from gui.pgstore.runs import row as run_row  # noqa: E402

RUN_COLUMNS = "run_id, status, sequence, created_at, finished, resumed_by, doc, raw, holder"
INTERACTION_COLUMNS = "interaction_id, status, kind, run_id, sequence, tool_name, created_at, doc, raw"
ANSWERED_PAGES = 20  # the deepest page compared: "interactions resolved, page 20"
Figures = dict[str, tuple[float, float, float, float, int, int, float, int]]
# first, median, p25, p75, records on the page, records that match, the database's part (ms), its buffers


async def build(stores: PgStores, history: int) -> None:
    async with stores.pool.connection() as conn, conn.transaction():
        await copy_rows(conn, "runs", RUN_COLUMNS, (run_row(run(n), stores.runs.holder) for n in range(history)))
        await copy_rows(conn, "interactions", INTERACTION_COLUMNS,
                        (interaction_row(request(n)) for n in range(history)))
    for n in range(history, history + LIVE):
        await stores.runs.save(run(n, "running"))
        await stores.interactions.save(request(n, "pending"))
    await fill(stores, history + LIVE)
    async with stores.pool.connection() as conn:
        await conn.execute("VACUUM ANALYZE")


async def copy_rows(conn: AsyncConnection, table: str, names: str, rows: Iterable[tuple[Any, ...]]) -> None:
    """The history written as the stores write it (their rows: the indexed fields and the document),
    by COPY in one statement: 100,000 runs and requests in seconds rather than minutes of batches."""
    async with conn.cursor().copy(f"COPY {table} ({names}) FROM STDIN") as copy:
        for values in rows:
            await copy.write_row(values)


async def fill(stores: PgStores, start: int) -> None:
    """The records that fill every page compared, the same at every size, newest of all (numbered
    from `start`, after the history): 50 failed runs, 50 runs of 'deploy to production', 1,000
    answered requests and the pending ones that make 50 with the history's 20."""
    failed = [run(start + i, "failed").model_copy(update={"sequence": "nightly build 0"}) for i in range(PAGE)]
    named = [run(start + PAGE + i, "succeeded").model_copy(update={"sequence": "deploy to production"})
             for i in range(PAGE)]
    await stores.runs.save_many(failed + named)
    answered, n = [], start
    while len(answered) < ANSWERED_PAGES * PAGE:
        if n % 4:  # the generator's n % 4 == 0 are cancelled: not answered
            answered.append(request(n))
        n += 1
    await stores.interactions.save_many(answered)
    for i in range(PAGE - LIVE):
        await stores.interactions.save(request(n + i, "pending"))


NAMES = ("SELECT array_agg(value) FROM (SELECT value FROM tallies WHERE tbl = 'runs' AND field = 'sequence' "
         "AND lower(value) LIKE '%production%' GROUP BY value HAVING sum(n) > 0) AS named")


async def statements(stores: PgStores) -> dict[str, list[tuple[str, tuple[Any, ...]]]]:
    """The statements of each case's page, as the stores send them (the totals from the tallies)."""
    from gui.pgstore.documents import page_by_values_query, page_query

    async with stores.pool.connection() as conn:
        names = (await (await conn.execute(NAMES)).fetchone() or [None])[0] or []
    tally = "SELECT coalesce(sum(n), 0) FROM tallies WHERE tbl = %s AND field = %s AND value = %s"
    interactions = page_query("interactions", "interaction_id", "TRUE AND status = %s")
    return {
        "interactions pending": [(interactions, ("pending", PAGE, 0)), (tally, ("interactions", "status", "pending"))],
        "interactions resolved, page 1": [(interactions, ("resolved", PAGE, 0)),
                                          (tally, ("interactions", "status", "resolved"))],
        "interactions resolved, page 20": [(interactions, ("resolved", PAGE, 19 * PAGE)),
                                           (tally, ("interactions", "status", "resolved"))],
        "runs, page 1": [(page_query("runs", "run_id", "TRUE"), (PAGE, 0)), (tally, ("runs", "*", ""))],
        "runs failed, page 1": [(page_query("runs", "run_id", "TRUE AND status = %s"), ("failed", PAGE, 0)),
                                (tally, ("runs", "status", "failed"))],
        "runs text 'production'": [(NAMES, ()), (page_by_values_query("runs", "run_id", "sequence", "TRUE"),
                                                 (names, PAGE, PAGE, 0))],
    }


async def buffers_of(stores: PgStores, said: list[tuple[str, tuple[Any, ...]]]) -> int:
    """The buffers the statements touch: the work the database does, which the machine's load does not
    change."""
    async with stores.pool.connection() as conn:
        buffers = 0
        for sql, params in said:
            explain = "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql
            plan = await (await conn.execute(explain, params or None)).fetchone()
            top = plan[0][0]["Plan"] if plan else {}
            buffers += int(top.get("Shared Hit Blocks", 0)) + int(top.get("Shared Read Blocks", 0))
        return buffers


def statements_alone(stores: PgStores, said: list[tuple[str, tuple[Any, ...]]]) -> Callable[[], Awaitable[None]]:
    """The database's part of a page: its statements sent, their rows fetched as text, not turned into records."""
    async def fetch() -> None:
        async with stores.pool.connection() as conn:
            for sql, params in said:
                await (await conn.execute(sql, params or None)).fetchall()
    return fetch


async def measure(by_size: dict[int, PgStores]) -> dict[int, Figures]:
    """Every case at every size, the sizes' calls taken in turn (one at each size, then again), so
    that the load of the machine, which these helpers share, weighs on every size alike."""
    figures: dict[int, Figures] = {size: {} for size in by_size}
    said = {size: await statements(stores) for size, stores in by_size.items()}
    calls = {size: cases(stores) for size, stores in by_size.items()}  # type: ignore[arg-type]
    for name in calls[next(iter(by_size))]:
        first = {size: await timed(calls[size][name]) for size in by_size}
        pages = {size: await calls[size][name]() for size in by_size}
        alone = {size: statements_alone(stores, said[size][name]) for size, stores in by_size.items()}
        times: dict[int, list[float]] = {size: [] for size in by_size}
        database: dict[int, list[float]] = {size: [] for size in by_size}
        for _ in range(REPEATS):
            for size in by_size:
                times[size].append(await timed(calls[size][name]))
                database[size].append(await timed(alone[size]))
        for size, stores in by_size.items():
            p25, median, p75 = statistics.quantiles(times[size], n=4)
            figures[size][name] = (first[size], statistics.median(times[size]), p25, p75, len(pages[size].items),
                                   pages[size].total, statistics.median(database[size]),
                                   await buffers_of(stores, said[size][name]))
    return figures


def load() -> str:
    return " ".join(f"{n:.1f}" for n in os.getloadavg())


async def main(sizes: list[int]) -> int:
    server = start_server()
    print(f"load average (1, 5, 15 min) before: {load()}")
    try:
        by_size: dict[int, PgStores] = {}
        try:
            for size in sizes:
                by_size[size] = stores = await open_pg_stores(server.create_database(), secret_key="")
                started = time.perf_counter()
                await build(stores, size)
                print(f"built {size:,} runs + {size:,} answered interactions, and the pages' fill ({2 * PAGE} runs, "
                      f"{ANSWERED_PAGES * PAGE + PAGE - LIVE:,} interactions) in {time.perf_counter() - started:.1f} s")
            print(f"load average before measuring: {load()}")
            results = await measure(by_size)
        finally:
            for stores in by_size.values():
                await stores.close()
        small, large = sizes[0], sizes[-1]
        print(f"one page of {PAGE}: first call, median [25th-75th] ms, records on the page / that match, database's "
              "part ms, buffers")
        unlike = []
        for name in results[small]:
            print(f"  {name}")
            for size in sizes:
                first, median, p25, p75, records, matching, database, buffers = results[size][name]
                print(f"    {size:>9,}: {first:7.2f}  {median:7.2f} [{p25:6.2f}-{p75:6.2f}]  {records:>3} / "
                      f"{matching:<7,}  {database:6.2f}  {buffers:>5}")
            if len({results[size][name][4] for size in sizes}) > 1:
                unlike.append(name)
                print("    not compared: its pages hold other numbers of records at the sizes")
                continue
            grow = results[large][name][1] / results[small][name][1]
            grow_db = results[large][name][6] / results[small][name][6]
            grow_buffers = results[large][name][7] / max(1, results[small][name][7])
            print(f"    growth {small:,} -> {large:,}: {grow:.2f}x the page, {grow_db:.2f}x the database's part, "
                  f"{grow_buffers:.2f}x its buffers")
        print(f"load average after: {load()}")
    finally:
        server.stop()
    return 1 if unlike else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main([int(a) for a in sys.argv[1:]] or [100, 100_000])))
