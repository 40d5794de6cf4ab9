"""What does one page of a query cost, with a small and a large history? (The API's and pages' lists.)

Run: python tests/bench/bench_store_queries.py [folder]
- two data folders, with 100 and with 10,000 finished runs and as many answered interactions (plus
  20 running runs and 20 pending requests), made through the stores' own API (`save_many`, then a
  few `save`s); the folder defaults to a temporary one;
- median time (ms) of one page of 50: pending interactions, answered interactions filtered by status
  (first page and page 20), runs (first page), runs filtered by status and by text in the name; the
  first call after opening the folder (indexes loaded, no segment parsed yet) is shown apart.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from gui.core.asks.interactions import (
    ApprovalResponse,
    CancelledResult,
    InteractionRecord,
    ResolvedResult,
    ShellApprovalRequest,
    ToolSource,
)
from gui.core.runs.records import GroupRecord, RunRecord, ToolRecord
from gui.store.open import Stores, open_stores

SIZES = (100, 10_000)
REPEATS = 30
PAGE = 50
LIVE = 20
SEQUENCES = [f"nightly build {n}" for n in range(19)] + ["deploy to production"]


def run(n: int, status: str | None = None) -> RunRecord:
    status = status or ("failed" if n % 5 == 0 else "stopped" if n % 11 == 0 else "succeeded")
    tools = [ToolRecord(index=i, tool="cmd_run", tool_call_id=f"{n}-{i}", status="succeeded", started_at=n,
                        finished_at=n + 1, args={"command": f"make step{i}"}, result="line of output\n" * 4)
             for i in range(5)]
    return RunRecord(run_id=f"run-{n:08d}", sequence=SEQUENCES[n % len(SEQUENCES)], status=status,  # type: ignore[arg-type]
                     created_at=1_700_000_000 + n, finished_at=None if status == "running" else 1_700_000_003 + n,
                     args={"branch": "main"}, groups=[GroupRecord(index=0, name="build", status="succeeded",
                                                                  tools=tools)])


def request(n: int, status: str = "resolved") -> InteractionRecord:
    iid = f"int-{n:08d}"
    req = ShellApprovalRequest(interaction_id=iid, turn_id=f"run-{n:08d}", created_at=1_700_000_000_000 + n,
                               source=ToolSource(tool_call_id=f"c{n}", tool_name="cmd_run"), title="Run a command",
                               command="make deploy", cwd="/srv/app", reason="the deploy step", operation="exec",
                               sequence_name=SEQUENCES[n % len(SEQUENCES)])
    if status == "pending":
        return InteractionRecord(request=req)
    if n % 4 == 0:
        return InteractionRecord(request=req, status="cancelled", resolved_at=req.created_at + 5,
                                 result=CancelledResult(interaction_id=iid, reason="turn_stopped"))
    return InteractionRecord(request=req, status="resolved", resolved_at=req.created_at + 5,
                             result=ResolvedResult(interaction_id=iid, response=ApprovalResponse(decision="approved")))


async def build(folder: Path, history: int) -> None:
    stores = await open_stores(folder)
    try:
        await stores.runs.save_many(run(n) for n in range(history))
        await stores.interactions.save_many(request(n) for n in range(history))
        for n in range(history, history + LIVE):
            await stores.runs.save(run(n, "running"))
            await stores.interactions.save(request(n, "pending"))
    finally:
        stores.close()


async def timed(call: Callable[[], Awaitable[Any]]) -> float:
    start = time.perf_counter()
    await call()
    return (time.perf_counter() - start) * 1000


def cases(stores: Stores) -> dict[str, Callable[[], Awaitable[Any]]]:
    interactions, runs = stores.interactions, stores.runs
    return {
        "interactions pending": lambda: interactions.query(status="pending", limit=PAGE),
        "interactions resolved, page 1": lambda: interactions.query(status="resolved", limit=PAGE),
        "interactions resolved, page 20": lambda: interactions.query(status="resolved", limit=PAGE, offset=19 * PAGE),
        "runs, page 1": lambda: runs.query(limit=PAGE),
        "runs failed, page 1": lambda: runs.query(status="failed", limit=PAGE),
        "runs text 'production'": lambda: runs.query(text="production", limit=PAGE),
    }


async def measure(folder: Path) -> dict[str, tuple[float, float]]:
    stores = await open_stores(folder)
    try:
        figures = {}
        for name, call in cases(stores).items():
            first = await timed(call)
            figures[name] = (first, statistics.median([await timed(call) for _ in range(REPEATS)]))
        return figures
    finally:
        stores.close()


async def main(base: Path) -> int:
    results = {}
    for size in SIZES:
        folder = base / f"history-{size}"
        started = time.perf_counter()
        await build(folder, size)
        print(f"built {size:,} runs + {size:,} answered interactions in {time.perf_counter() - started:.1f} s")
        results[size] = await measure(folder)
    print(f"{'one page of 50':<32}" + "".join(f"{f'{s:,}: first / median':>26}" for s in SIZES))
    for name in results[SIZES[0]]:
        cells = "".join(f"{results[s][name][0]:>14.2f} / {results[s][name][1]:>6.2f} ms" for s in SIZES)
        print(f"{name:<32}{cells}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.exit(asyncio.run(main(Path(sys.argv[1]))))
    with tempfile.TemporaryDirectory(prefix="seqdesk-bench-") as tmp:
        sys.exit(asyncio.run(main(Path(tmp))))
