"""MCP figures for issue 14: how soon a tool a server adds is usable, what progress costs, how fast
the tool listing is.

Run: python tests/bench/bench_mcp_live.py
- list change: `grow` called on the real `tests/mcp/live_server.py` over stdio until the new tool is in
  the registry, then `shrink` until it left (median of 20 each, per protocol: auto = 2026-07-28 through
  subscriptions/listen, legacy = the notification);
- progress: a call reporting 200 steps (with a log line each) against the same call reporting 0
  steps (median of 10), so the cost per report through the connection, the runner and the bus;
- listing: `Engine.list_tools()` with the built-ins and the live server's tools (median of 200).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from gui.core.asks.elicitation import NoopElicitationHandler
from gui.core.door.engine import Engine
from gui.core.tools.registry import ToolContext
from gui.mcp.client import McpConnection
from gui.mcp.config import McpServerConfig
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import default_registry

LIVE = str(Path(__file__).resolve().parents[1] / "mcp" / "live_server.py")


def ctx(name: str) -> ToolContext:
    return ToolContext(run_id="bench", tool_call_id="bench-0", tool_name=name)


async def until(engine: Engine, holds: Any) -> None:
    changed = asyncio.Event()
    loop = asyncio.get_running_loop()
    engine.registry.on_change(lambda: loop.call_soon_threadsafe(changed.set))
    async with asyncio.timeout(10):
        while not holds():
            await changed.wait()
            changed.clear()


async def connected(engine: Engine, protocol: str) -> McpConnection:
    config = McpServerConfig(name="live", command=sys.executable, args=[LIVE], protocol=protocol)  # type: ignore[arg-type]
    conn = McpConnection(config, engine.registry, NoopElicitationHandler(), backoff=(30.0, 30.0))
    await conn.start()
    assert (await conn.wait_for("connected", "down", timeout=15)).status == "connected"
    return conn


async def list_change(protocol: str) -> tuple[float, float]:
    engine = compose_engine(default_registry(), MemoryStores())
    conn = await connected(engine, protocol)
    grow, shrink = engine.registry.get("live.grow"), engine.registry.get("live.shrink")
    assert grow is not None and shrink is not None
    appear, leave = [], []
    try:
        for i in range(20):
            name = f"t{i}"
            start = time.perf_counter()
            await grow.call({"name": name}, ctx("live.grow"))
            await until(engine, lambda n=name: f"live.{n}" in engine.registry)
            appear.append(time.perf_counter() - start)
            start = time.perf_counter()
            await shrink.call({"name": name}, ctx("live.shrink"))
            await until(engine, lambda n=name: f"live.{n}" not in engine.registry)
            leave.append(time.perf_counter() - start)
    finally:
        await conn.stop()
    return statistics.median(appear), statistics.median(leave)


async def progress_cost() -> tuple[float, float]:
    engine = compose_engine(default_registry(), MemoryStores())
    conn = await connected(engine, "auto")
    for steps in (0, 200):
        await engine.create({"name": f"c{steps}", "groups": [
            {"name": f"c{steps}-g", "in": {}, "out": {},
             "tools": f'{{"tool":"live.count","args":{{"steps":{steps}}}}} ;'}]})
    engine.modes.set("live.count", "always-allow")
    events = 0

    def count(event: Any) -> None:
        nonlocal events
        events += event.type == "tool.progress"

    engine.bus.subscribe(count)
    times: dict[int, list[float]] = {0: [], 200: []}
    try:
        for _ in range(10):
            for steps in (0, 200):
                start = time.perf_counter()
                record = await engine.run(f"c{steps}")
                times[steps].append(time.perf_counter() - start)
                assert record.status == "succeeded"
        listing = []
        for _ in range(200):
            start = time.perf_counter()
            await engine.list_tools()
            listing.append(time.perf_counter() - start)
    finally:
        await conn.stop()
        await engine.close()
    per_report = (statistics.median(times[200]) - statistics.median(times[0])) / 200
    print(f"progress: 200 reports + 200 log lines add {per_report * 1e6:.0f} µs per report "
          f"(run of 0: {statistics.median(times[0]) * 1e3:.1f} ms, "
          f"of 200: {statistics.median(times[200]) * 1e3:.1f} ms; {events} progress events published)")
    return per_report, statistics.median(listing)


async def raw_sdk_cost() -> float:
    """The same 200 reports with the SDK's own client and nothing of SeqDesk: the server's share."""
    from mcp import Client, StdioServerParameters

    async def ignore(*_: Any) -> None:
        return None

    times: dict[int, list[float]] = {0: [], 200: []}
    async with Client(StdioServerParameters(command=sys.executable, args=[LIVE]), log_level="info",
                      logging_callback=ignore) as client:
        for _ in range(10):
            for steps in (0, 200):
                start = time.perf_counter()
                await client.call_tool("count", {"steps": steps}, progress_callback=ignore)
                times[steps].append(time.perf_counter() - start)
    per_report = (statistics.median(times[200]) - statistics.median(times[0])) / 200
    print(f"progress, SDK client alone: {per_report * 1e6:.0f} µs per report (the server and the wire)")
    return per_report


async def main() -> None:
    for protocol in ("auto", "legacy"):
        appear, leave = await list_change(protocol)
        print(f"list change ({protocol}): a new tool usable after {appear * 1e3:.1f} ms, "
              f"a removed one gone after {leave * 1e3:.1f} ms (median of 20)")
    ours, listing = await progress_cost()
    raw = await raw_sdk_cost()
    print(f"progress: SeqDesk's own share {max(ours - raw, 0) * 1e6:.0f} µs per report (record, event, log line)")
    print(f"listing: Engine.list_tools() in {listing * 1e3:.2f} ms (median of 200)")


if __name__ == "__main__":
    asyncio.run(main())
