"""How long the inbox takes to show 1,000 pending requests (target: under a second).

A script, not a test: `python tests/bench/bench_inbox.py [--count 1000] [--repeat 7] [--browser]`.

- Simulated (default): NiceGUI's user simulation runs `gui/main.py` with the in-memory engine, the
  requests are created through `engine.interactions.request`, and each sample is one
  `user.open("/inbox")`: the server builds the whole page and answers the HTTP request.
- `--browser`: the app runs as a real server in a subprocess (this file with `--serve`) and headless
  Chromium loads `/inbox`; a sample ends when the fiftieth row is on screen. `--count 0` gives the
  baseline: the same page with nothing pending (NiceGUI's own JavaScript and Tailwind start-up).

Prints every sample and the median, in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


if TYPE_CHECKING:
    from gui.context import AppContext


def shell_request(i: int, now: int):  # noqa: ANN201 - imported lazily below
    from gui.core.asks.interactions import ShellApprovalRequest, ToolSource

    return ShellApprovalRequest(
        interaction_id=f"bench-{i:05d}", turn_id=f"run-{i % 17:03d}", created_at=now - i * 1000,
        source=ToolSource(tool_call_id=f"c{i}", tool_name="cmd_run"), sequence_name="Bench", group_name="Many",
        title="Run a command", command=f"echo request number {i}", cwd="/tmp", reason="benchmark",
        operation="exec", expires_at=now + 3_600_000)


async def seed(ctx: AppContext, count: int) -> None:
    await ctx.wait_open(10)  # start-up opens the engine in a task of its own
    service = ctx.engine.interactions
    now = int(time.time() * 1000)
    for i in range(count):
        await service.request(shell_request(i, now))


async def simulated(count: int, repeat: int) -> list[float]:
    import tempfile

    from nicegui import app
    from nicegui.storage import Storage
    from nicegui.testing.user_simulation import user_simulation

    # What NiceGUI's pytest plugin does before its `user` fixture: a throw-away storage folder, and
    # PYTEST_CURRENT_TEST so that resetting the app between simulations does not need a page.
    os.environ["SEQDESK_MEMORY"] = "1"
    os.environ.setdefault("PYTEST_CURRENT_TEST", "bench_inbox.py::simulated")
    Storage.path = Path(tempfile.mkdtemp(prefix="seqdesk-bench-storage-"))
    app.storage = Storage()
    samples: list[float] = []
    async with user_simulation(main_file=ROOT / "gui" / "main.py") as user:
        await seed(count)
        await user.open("/inbox")  # warm-up: imports, first compile of templates
        await user.should_see(f"Needs you ({count})")
        for _ in range(repeat):
            start = time.perf_counter()
            await user.open("/inbox")
            samples.append((time.perf_counter() - start) * 1000)
        await user.should_see(f"Needs you ({count})")
    return samples


def serve(port: int, count: int) -> None:
    """The server side of `--browser`: the app in memory with `count` pending requests."""
    from nicegui import app, ui

    from gui.api.request_gate import Served
    from gui.app import create_app
    from gui.settings import Settings

    ctx = create_app(settings=Settings(memory=True), served=Served.in_process())
    app.on_startup(lambda: seed(ctx, count))
    ui.run(host="127.0.0.1", port=port, reload=False, show=False, storage_secret="bench",
           show_welcome_message=False, uvicorn_logging_level="warning")


def in_browser(count: int, repeat: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "NICEGUI_"))}
    env["SEQDESK_MEMORY"] = "1"
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port), "--count", str(count)], env=env,
                              cwd=ROOT)
    samples: list[float] = []
    try:
        url = f"http://127.0.0.1:{port}/inbox"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(url, timeout=1)
                break
            except OSError:
                time.sleep(0.05)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                        args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            for attempt in range(repeat + 1):
                start = time.perf_counter()
                page.goto(url)
                if count:
                    page.locator(".inbox-row").nth(min(count, 50) - 1).wait_for(state="visible", timeout=30_000)
                else:  # the baseline: the same page with nothing to show
                    page.get_by_text("You're all caught up.").wait_for(timeout=30_000)
                page.get_by_text(f"Needs you ({count})").wait_for(timeout=30_000)
                if attempt:  # the first load warms the browser's cache
                    samples.append((time.perf_counter() - start) * 1000)
            browser.close()
    finally:
        server.terminate()
        server.wait(10)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--browser", action="store_true", help="measure in headless Chromium")
    parser.add_argument("--serve", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.count)
        return
    how = "headless Chromium, until 50 rows are visible" if args.browser else "simulated user.open('/inbox')"
    samples = in_browser(args.count, args.repeat) if args.browser else asyncio.run(simulated(args.count, args.repeat))
    print(f"inbox with {args.count} pending requests, {how}:")
    print("  samples (ms): " + ", ".join(f"{s:.0f}" for s in samples))
    print(f"  median: {statistics.median(samples):.0f} ms")


if __name__ == "__main__":
    main()
