"""What watching a run of 200 parallel tools costs the run panel, in a real browser.

Run: python tests/bench/bench_run_panel.py [--tools 200] [--collapsed] [--screenshot PATH]

The app is served in this process (in-memory stores); a headless Chromium opens `/run/{id}` for a
run of one parallel group: half the tools are gates released in 20 waves, half `sleep` for
2–6 s. The group is opened (all 200 cards live) unless --collapsed. Reported:
- the panel's refresh cost per batch (mean / p95 / max ms) and how many batches there were,
  plus the cost of reading the live record that each refresh starts with;
- the server's event-loop lag while the run goes on (a 20 ms probe: p95 / max overshoot), i.e.
  whether the page keeps the app responsive;
- what the browser received over the websocket (KB, messages);
- how long after the run ends the page says so.
Targets: refresh p95 < 50 ms, loop lag p95 < 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ["SEQDESK_MEMORY"] = "1"
for key in [k for k in os.environ if k.startswith(("PYTEST_", "NICEGUI_"))]:
    del os.environ[key]

from nicegui import app, background_tasks, ui  # noqa: E402
from nicegui.client import Client  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from gui.api.request_gate import Served  # noqa: E402
from gui.app import create_app  # noqa: E402
from gui.context import AppContext  # noqa: E402
from gui.core.tools.registry import ModelTool, ToolContext  # noqa: E402
from gui.settings import Settings  # noqa: E402
from gui.ui.components.run.panel import RunPanel  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
WAVES = 20


class GateArgs(BaseModel):
    key: int


class Gate(ModelTool):
    """Waits until the benchmark opens its gate."""

    name = "bench_gate"
    description = "waits for the benchmark"
    Args: ClassVar = GateArgs

    def __init__(self) -> None:
        self.gates: dict[int, asyncio.Event] = {}

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> int:
        await self.gates.setdefault(args["key"], asyncio.Event()).wait()
        return int(args["key"])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def find_panel() -> RunPanel | None:
    for client in Client.instances.values():
        for element in client.elements.values():
            if isinstance(element, RunPanel):
                return element
    return None


async def probe_lag(lags: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(0.02)
        lags.append(time.perf_counter() - start - 0.02)


async def bench(ctx: AppContext, port: int, tools: int, collapsed: bool, shot: str | None) -> None:
    from playwright.async_api import async_playwright, expect

    await ctx.wait_open(10)
    engine = ctx.engine
    gate = Gate()
    engine.registry.add(gate)
    rng = random.Random(7)
    calls = []
    for i in range(tools):
        if i % 2 == 0:
            calls.append({"tool": "bench_gate", "args": {"key": i}})
        else:
            calls.append({"tool": "sleep", "args": {"seconds": round(rng.uniform(2.0, 6.0), 2)}})
    await engine.create({"name": "bench-panel", "groups": [
        {"name": "wide", "in": {}, "out": {}, "tools": " ".join(json.dumps(c) + " ;" for c in calls)}]})

    received = {"bytes": 0, "messages": 0, "counting": False}

    def on_frame(payload: str | bytes) -> None:
        if received["counting"]:
            received["bytes"] += len(payload)
            received["messages"] += 1

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = await browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("websocket", lambda ws: ws.on("framereceived", on_frame))
        record = await engine.start("bench-panel", {})
        t_start = time.perf_counter()
        await page.goto(f"http://127.0.0.1:{port}/run/{record.run_id}")
        await expect(page.get_by_text("Group 1 of 1").first).to_be_visible(timeout=20_000)
        if not collapsed:
            await page.get_by_text("Group 1 · wide").click()
            await expect(page.get_by_text("bench_gate").first).to_be_visible(timeout=20_000)
        panel = find_panel()
        assert panel is not None, "the run panel was not found"
        panel.costs.clear()
        received["counting"] = True
        lags: list[float] = []
        stop = asyncio.Event()
        prober = asyncio.create_task(probe_lag(lags, stop))
        keys = [i for i in range(tools) if i % 2 == 0]
        snapshots: list[float] = []
        for wave in range(WAVES):
            t0 = time.perf_counter()
            engine.runner.snapshot(record.run_id)
            snapshots.append((time.perf_counter() - t0) * 1000)
            for key in keys[wave::WAVES]:
                gate.gates.setdefault(key, asyncio.Event()).set()
            await asyncio.sleep(0.2)  # the benchmark's own pacing of the waves
            if wave == WAVES // 2 and shot:
                await page.screenshot(path=shot, full_page=False, animations="disabled")
        final = await engine.runner.wait(record.run_id, timeout=60)
        t_end = time.perf_counter()
        await expect(page.get_by_text(f"Finished · {tools} of {tools} tools succeeded")).to_be_visible(
            timeout=20_000)
        shown_after = time.perf_counter() - t_end
        stop.set()
        await prober
        received["counting"] = False
        costs = [c * 1000 for c in panel.costs]
        lag_ms = [lag * 1000 for lag in lags]
        await browser.close()

    print(f"run panel, {tools} parallel tools ({'collapsed' if collapsed else 'all cards open'}): "
          f"run {final.status} in {t_end - t_start:.1f} s")
    print(f"  refreshes: {len(costs)}, cost per refresh mean {statistics.mean(costs):.1f} ms, "
          f"p95 {percentile(costs, 0.95):.1f} ms, max {max(costs):.1f} ms")
    print(f"  reading the live record (runner.snapshot, once per refresh): median "
          f"{statistics.median(snapshots):.1f} ms")
    print(f"  event-loop lag while watching: p95 {percentile(lag_ms, 0.95):.1f} ms, max {max(lag_ms):.1f} ms "
          f"({len(lag_ms)} probes)")
    print(f"  browser received {received['bytes'] / 1024:.0f} KB in {received['messages']} websocket messages "
          f"({received['bytes'] / 1024 / max(t_end - t_start, 0.001):.0f} KB/s)")
    print(f"  page showed the end {shown_after * 1000:.0f} ms after the run finished")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=200)
    parser.add_argument("--collapsed", action="store_true", help="leave the group collapsed (no cards)")
    parser.add_argument("--screenshot", help="save a picture of the page halfway through the run to this path")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"no Chromium at {CHROMIUM}: install it with apt-get install chromium", file=sys.stderr)
        raise SystemExit(2)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ctx = create_app(settings=Settings(memory=True), served=Served.in_process())

    async def run_bench() -> None:
        try:
            await bench(ctx, port, args.tools, args.collapsed, args.screenshot)
        finally:
            app.shutdown()

    app.on_startup(lambda: background_tasks.create(run_bench(), name="bench"))
    ui.run(host="127.0.0.1", port=port, reload=False, show=False, show_welcome_message=False,
           storage_secret="bench")


if __name__ in {"__main__", "__mp_main__"}:
    main()
