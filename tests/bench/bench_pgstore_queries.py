"""What does one page of a query cost on PostgreSQL, with a small and a large history?

Run: python tests/bench/bench_pgstore_queries.py [sizes...]   (default: 100 100000)
- a PostgreSQL server of its own (tests/support/postgres.py: Debian's binaries, a temporary folder),
  one fresh database per size, filled with the TinyDB benchmark's generator (bench_store_queries.py:
  finished runs and as many answered interactions, plus 20 running runs and 20 pending requests)
  through the stores' own API;
- median time (ms) of one page of 50 (the same cases as the TinyDB benchmark), the first call apart;
  target: <= 20 ms, and <= 1.5x from the smallest size to the largest.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]

from bench_store_queries import LIVE, REPEATS, cases, request, run, timed  # noqa: E402
from support.postgres import start_server  # noqa: E402

from gui.pgstore import PgStores, open_pg_stores  # noqa: E402

BATCH = 5_000


async def build(stores: PgStores, history: int) -> None:
    for start in range(0, history, BATCH):
        span = range(start, min(history, start + BATCH))
        await stores.runs.save_many(run(n) for n in span)
        await stores.interactions.save_many(request(n) for n in span)
    for n in range(history, history + LIVE):
        await stores.runs.save(run(n, "running"))
        await stores.interactions.save(request(n, "pending"))
    async with stores.pool.connection() as conn:
        await conn.execute("ANALYZE")


async def measure(stores: PgStores) -> dict[str, tuple[float, float]]:
    figures = {}
    for name, call in cases(stores).items():  # type: ignore[arg-type]
        first = await timed(call)
        figures[name] = (first, statistics.median([await timed(call) for _ in range(REPEATS)]))
    return figures


async def main(sizes: list[int]) -> int:
    server = start_server()
    try:
        results = {}
        for size in sizes:
            url = server.create_database()
            stores = await open_pg_stores(url, secret_key="")
            try:
                started = time.perf_counter()
                await build(stores, size)
                print(f"built {size:,} runs + {size:,} answered interactions in {time.perf_counter() - started:.1f} s")
                results[size] = await measure(stores)
            finally:
                await stores.close()
        print(f"{'one page of 50':<32}" + "".join(f"{f'{s:,}: first / median':>26}" for s in sizes))
        for name in results[sizes[0]]:
            cells = "".join(f"{results[s][name][0]:>14.2f} / {results[s][name][1]:>6.2f} ms" for s in sizes)
            print(f"{name:<32}{cells}")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main([int(a) for a in sys.argv[1:]] or [100, 100_000])))
