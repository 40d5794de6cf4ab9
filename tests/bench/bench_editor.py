"""Benchmark: open a sequence of 50 groups × 10 tools in the editor, in headless Chromium.

Run it as a script (`python tests/bench/bench_editor.py [--runs N]`). It starts the real app with
a fresh data folder, saves the big sequence through the HTTP API, then opens its editor page N
times and measures, in the browser, from navigation to the last group card being visible. It
prints every run and the median, and exits 1 when the median is 2 s or more. Opening one large
card (10 tools with their argument forms) is measured too, as people do next.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
GROUPS, TOOLS, LIMIT = 50, 10, 2.0


def big_sequence() -> dict[str, Any]:
    groups = []
    for g in range(1, GROUPS + 1):
        tools = " ".join(json.dumps({"tool": "echo", "args": {"value": f"step {t} of $args.host"}, "as": f"r{g}"})
                         + " ;" for t in range(1, TOOLS + 1))
        groups.append({"name": f"bench-group-{g}", "description": f"Group {g}", "in": {"host": "string"},
                       "out": {f"r{g}": "array"}, "when": '$args.host != ""', "timeout": "30s", "tools": tools})
    return {"name": "bench-50x10", "description": "50 groups of 10 tools", "groups": groups}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_app(data: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "NICEGUI_"))}
    env["SEQDESK_DATA"] = data
    proc = subprocess.Popen([sys.executable, "-m", "gui", "--browser", "--port", str(port)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/health", timeout=1):
                return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the app did not start") from None
            time.sleep(0.1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as data:
        proc, url = start_app(data)
        try:
            request = urllib.request.Request(f"{url}/api/sequences", data=json.dumps(big_sequence()).encode(),
                                             headers={"Content-Type": "application/json"}, method="POST")
            with urllib.request.urlopen(request, timeout=30):
                pass
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.set_default_timeout(30_000)
                opens, expands = [], []
                for run in range(options.runs):
                    start = time.perf_counter()
                    page.goto(f"{url}/sequences/bench-50x10/edit")
                    page.get_by_text(f"bench-group-{GROUPS}", exact=True).wait_for(state="visible")
                    opens.append(time.perf_counter() - start)
                    start = time.perf_counter()
                    page.get_by_text("bench-group-1", exact=True).click()
                    page.get_by_label("Value *").nth(TOOLS - 1).wait_for(state="visible")
                    expands.append(time.perf_counter() - start)
                    print(f"run {run + 1}: open {opens[-1]:.3f} s, open one card of {TOOLS} tools {expands[-1]:.3f} s")
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)
    median = statistics.median(opens)
    print(f"median to open {GROUPS} groups × {TOOLS} tools: {median:.3f} s (limit {LIMIT:.1f} s); "
          f"median to open one card: {statistics.median(expands):.3f} s")
    return 0 if median < LIMIT else 1


if __name__ == "__main__":
    raise SystemExit(main())
