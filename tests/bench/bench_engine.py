"""Engine overhead, parallelism and the approval round trip (issue 3's figures).

Run: python tests/bench/bench_engine.py [--only overhead]
- 1,000 `echo` tools in one parallel group, and 100 groups × 10 tools, approvals off: the engine's
  run against a plain asyncio.gather of the tools' own calls, 25 pairs timed back to back, by wall
  clock and by CPU time: the median ratio with its quartiles (issue 24's target: ≤ 3×), and the
  per-tool overhead; the sequence is one tree run again and again, as a saved one is (the store keeps
  its tree), and start-up's objects are frozen out of full collections, as the app freezes them;
- 50 `sleep 0.5` tools in one group (target: under 0.6 s);
- approval round trip in memory: request persisted → response → tool resumes (target: < 5 ms).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from gui.core.asks.interactions import ApprovalResponse
from gui.core.door.engine import Engine
from gui.core.sequences.validator import parse_sequence
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import default_registry
from gui.tools.echo import Echo


def sequence(groups: int, tools: int, tool: str = "echo", args: dict[str, Any] | None = None) -> Any:
    call = json.dumps({"tool": tool, "args": args if args is not None else {"value": 1}}) + " ;"
    return parse_sequence({"name": "bench", "groups": [
        {"name": f"g{g}", "tools": " ".join([call] * tools)} for g in range(groups)]})


Clock = Callable[[], float]


async def bare_gather(n: int, clock: Clock = time.perf_counter) -> float:
    """A plain asyncio.gather of the tools' own calls (each `echo` reads its arguments as in the run)."""
    echo = Echo()
    args = {"value": 1}

    async def noop() -> Any:
        return await echo.call(args, None)  # type: ignore[arg-type]

    start = clock()
    await asyncio.gather(*(noop() for _ in range(n)))
    return clock() - start


async def engine_run(engine: Engine, seq: Any, clock: Clock = time.perf_counter) -> float:
    start = clock()
    record = await engine.runner.run(seq, {})
    elapsed = clock() - start
    assert record.status == "succeeded", record.error
    return elapsed


def quartiles(values: list[float]) -> str:
    q = statistics.quantiles(values, n=4)
    return f"{q[0]:.1f}–{q[2]:.1f}"


async def overhead(label: str, groups: int, tools: int, repeats: int = 25, listener: bool = False) -> None:
    """Each repeat times one engine run and one bare gather back to back (so a busy moment of the
    machine hits both), by the wall clock and by the process's CPU time (which other processes on a
    loaded machine disturb less); the ratio of each pair, then their median and quartiles."""
    engine = compose_engine(default_registry(), MemoryStores())
    if listener:  # what the app adds: someone receives every event
        engine.bus.subscribe(lambda event: None)
        label += " (with an event listener)"
    seq = sequence(groups, tools)
    n = groups * tools
    await engine_run(engine, seq)  # warm up
    await bare_gather(n)
    gc.freeze()  # as the app does once started: what start-up made stays out of full collections
    runs: dict[str, list[float]] = {"wall": [], "cpu": []}
    bare: dict[str, list[float]] = {"wall": [], "cpu": []}
    for _ in range(repeats):
        for name, clock in (("wall", time.perf_counter), ("cpu", time.process_time)):
            runs[name].append(await engine_run(engine, seq, clock))
            bare[name].append(await bare_gather(n, clock))
    print(f"{label}, {repeats} runs ({load()}):")
    for name in ("wall", "cpu"):
        ratios = [r / b for r, b in zip(runs[name], bare[name], strict=True) if b > 0]
        run_med, bare_med = statistics.median(runs[name]), statistics.median(bare[name])
        per_tool = (run_med - bare_med) / n * 1e6
        ratio = statistics.median(ratios)
        print(f"  {name:>4}: engine median {run_med * 1000:.1f} ms (quartiles "
              f"{quartiles([r * 1000 for r in runs[name]])}), bare gather {bare_med * 1000:.2f} ms, "
              f"overhead {per_tool:.1f} µs/tool; ratio median {ratio:.2f}× (quartiles {quartiles(ratios)}, "
              f"min {min(ratios):.2f}, max {max(ratios):.2f}; target ≤ 3×: {'OK' if ratio <= 3 else 'MISSED'})")


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


async def parallel_sleep() -> None:
    engine = compose_engine(default_registry(), MemoryStores())
    seq = sequence(1, 50, "sleep", {"seconds": 0.5})
    times = [await engine_run(engine, seq) for _ in range(5)]
    med = statistics.median(times)
    print(f"50 × sleep 0.5 in one group: median {med:.3f} s (target < 0.6 s: {'OK' if med < 0.6 else 'MISSED'})")


async def approval_round_trip() -> None:
    engine = compose_engine(default_registry(), MemoryStores())
    engine.modes.set("cmd_run", "ask")
    samples: list[float] = []
    created: asyncio.Queue[str] = asyncio.Queue()
    resumed: dict[str, float] = {}

    def on_event(event: Any) -> None:
        if event.type == "tool.waiting":
            created.put_nowait(event.data["interaction_id"])
        elif event.type == "tool.resumed":
            resumed[event.run_id or ""] = time.perf_counter()

    engine.bus.subscribe(on_event)
    seq = parse_sequence({"name": "ask", "groups": [
        {"name": "g", "tools": json.dumps({"tool": "file_write", "args": {"path": "/dev/null", "content": "x",
                                                                       "append": True}}) + " ;"}]})
    for _ in range(50):
        run = await engine.runner.start(seq, {})
        iid = await created.get()
        start = time.perf_counter()
        await engine.interactions.respond(iid, ApprovalResponse(decision="approved"))
        await engine.runner.wait(run.run_id)
        samples.append(resumed[run.run_id] - start)
    med = statistics.median(samples) * 1000
    print(f"approval round trip (respond → stored → tool resumes), in memory: median {med:.3f} ms "
          f"(target < 5 ms: {'OK' if med < 5 else 'MISSED'})")


async def main(only: str | None) -> None:
    await overhead("1,000 echo tools in one parallel group", 1, 1000)
    await overhead("100 groups × 10 echo tools", 100, 10)
    await overhead("1,000 echo tools in one parallel group", 1, 1000, listener=True)
    await overhead("100 groups × 10 echo tools", 100, 10, listener=True)
    if only == "overhead":
        return
    await parallel_sleep()
    await approval_round_trip()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[2] if sys.argv[1:2] == ["--only"] else None))
