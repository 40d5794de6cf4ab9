"""Does a hot write slow down as history grows? Target: ratio of medians (20,000 vs 100) at most 1.2.

Run: python tests/bench/bench_store_growth.py [folder]
- two HotColdStores, one with 100 and one with 20,000 archived run records (~2 KB each), both with
  20 hot documents; the folder defaults to a temporary one (pass one on the disk you care about);
- median time of one `put_hot` of an interaction-sized document (~1 KB), measured alternately on
  both stores so that disk noise hits them alike; also, for information, the median of one
  `archive`, of reading a 50-record history page, and the time to open each store.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gui.store.files import dumps
from gui.store.hotcold import HotColdStore

SMALL, LARGE = 100, 20_000
ROUNDS, PER_ROUND = 20, 25
TARGET = 1.2


def run_record(n: int) -> dict[str, Any]:
    doc = {
        "id": f"run-{n:08d}", "sequence": "nightly-build", "status": "succeeded",
        "started_at": "2025-01-01T10:00:00+00:00", "finished_at": "2025-01-01T10:03:00+00:00",
        "args": {"branch": "main", "retries": 2},
        "tools": [{"tool": "cmd_run", "as": f"step{i}", "status": "ok", "duration_ms": 1234,
                   "output": "line of output\n" * 4} for i in range(5)],
    }
    doc["padding"] = "x" * max(0, 2048 - len(dumps(doc)))
    return doc


def interaction(n: int) -> dict[str, Any]:
    doc = {
        "id": f"int-{n % 20:04d}", "run_id": "run-live", "kind": "approval", "status": "pending",
        "created_at": "2025-01-01T10:00:00+00:00", "version": n,
        "request": {"title": "Run a command", "command": "make deploy", "cwd": "/srv/app",
                    "reason": "the sequence's deploy step"},
    }
    doc["padding"] = "x" * max(0, 1024 - len(dumps(doc)))
    return doc


def build(folder: Path, history: int) -> HotColdStore:
    store = HotColdStore(folder, "runs")
    store.add_history((f"run-{n:08d}", run_record(n)) for n in range(history))
    for n in range(20):
        store.put_hot(f"int-{n:04d}", interaction(n))
    return store


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(base: Path) -> int:
    stores = {size: build(base / f"history-{size}", size) for size in (SMALL, LARGE)}
    writes: dict[int, list[float]] = {SMALL: [], LARGE: []}
    counter = 0
    for _ in range(ROUNDS):
        for size, store in stores.items():
            for _ in range(PER_ROUND):
                counter += 1
                doc = interaction(counter)
                writes[size].append(timed(lambda s=store, d=doc: s.put_hot(d["id"], d)))

    archives: dict[int, list[float]] = {SMALL: [], LARGE: []}
    for n in range(100):
        for size, store in stores.items():
            run_id = f"run-live-{n:04d}"
            store.put_hot(run_id, run_record(SMALL + LARGE + n))
            archives[size].append(timed(lambda s=store, r=run_id: s.archive(r)))

    ms = {size: statistics.median(times) * 1000 for size, times in writes.items()}
    ratio = ms[LARGE] / ms[SMALL]
    for size, store in stores.items():
        page = statistics.median(timed(lambda s=store: s.iter_history(limit=50, offset=60)) for _ in range(20))
        store.close()
        opening = timed(lambda s=size: HotColdStore(base / f"history-{s}", "runs"))
        print(f"history {size:>6,}: hot write median {ms[size]:.3f} ms "
              f"(p90 {statistics.quantiles(writes[size], n=10)[-1] * 1000:.3f}); "
              f"archive median {statistics.median(archives[size]) * 1000:.3f} ms; "
              f"50-record page {page * 1000:.2f} ms; open {opening * 1000:.1f} ms")
    verdict = "OK" if ratio <= TARGET else "MISSED"
    print(f"hot write ratio {LARGE:,} / {SMALL}: {ratio:.2f} (target <= {TARGET}: {verdict})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.exit(main(Path(sys.argv[1])))
    with tempfile.TemporaryDirectory(prefix="seqdesk-bench-") as tmp:
        sys.exit(main(Path(tmp)))
