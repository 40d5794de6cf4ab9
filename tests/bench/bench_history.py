"""History at any size (issue 15): pages, answers, start-up, the two history screens, and memory.

A script, not a test: `python tests/bench/bench_history.py [--sizes 100 10000 100000] [--repeat 30]
[--skip-browser] [--data /tmp/seqdesk-bench-history]`.

Data: for each size N, a data folder with N finished runs and N answered requests (plus 20 pending
requests), made through the stores' own API (`save_many`, one write per segment filled), never by
copying files. The folders are kept under `--data` (built once: 100,000 takes about half a minute)
and every measurement runs on a hard-linked copy of one (every store write replaces a file by
renaming a new one over it, so the kept folder is never changed).

Figures (medians; "first" is the first call after opening the folder):
1. one page of 50 through the door (`Engine.interaction_page`, `run_page`): pending requests,
   history filtered by status, runs, runs filtered by status and by text;
2. respond → stored → tool resumes, alone and while another client lists history in a loop (pages
   1 to 40 of the answered requests, back to back, in the same process); each answer comes 0.1 s
   after its question, as a person's would;
3. app start (`python -m gui --browser`) to the first page (`GET /runs` answering 200), against an
   empty data folder too;
4. in headless Chromium: the Runs page and the inbox's History tab, from navigation to the first
   rows drawn;
5. resident memory (VmRSS) of the app after those pages.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store_queries import request, run  # noqa: E402  (the same records as the query bench)

from gui.core.asks.interactions import ApprovalResponse, ShellApprovalRequest, ToolSource  # noqa: E402
from gui.store.open import open_stores  # noqa: E402

PAGE = 50
PENDING = 20
# bump when the generated data changes, so kept folders are built again (v2: segments keep their slices;
# v3: and the digests of the run texts they vouch for)
FORMAT = "v3"
CHROMIUM = os.environ.get("SEQDESK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


# -- data ---------------------------------------------------------------------------------------

async def build(folder: Path, size: int) -> None:
    stores = await open_stores(folder)
    try:
        await stores.runs.save_many(run(n) for n in range(size))
        await stores.interactions.save_many(request(n) for n in range(size))
        await stores.interactions.save_many(request(n, "pending") for n in range(size, size + PENDING))
    finally:
        stores.close()


def kept_folder(base: Path, size: int) -> Path:
    folder = base / f"{FORMAT}-{size}"
    done = folder / "complete"
    if not done.exists():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        started = time.perf_counter()
        if size:
            asyncio.run(build(folder, size))
        done.write_text("built by bench_history.py\n")
        print(f"  built {size:,} runs + {size:,} answered requests in {time.perf_counter() - started:.1f} s")
    if size and not (folder / "history" / "runs.catalog.json").exists():
        asyncio.run(open_once(folder))  # as after the app's first start: the history catalog is kept
    return folder


async def open_once(folder: Path) -> None:
    (await open_stores(folder)).close()


@contextlib.contextmanager
def snapshot(folder: Path) -> Iterator[Path]:
    """A hard-linked copy of `folder`, removed afterwards. Journals are copied: they are appended
    to (and emptied by a compaction) in place, which through a link would change the kept folder."""
    with tempfile.TemporaryDirectory(prefix="seqdesk-bench-run-", dir=folder.parent) as tmp:
        copy = Path(tmp) / "data"
        shutil.copytree(folder, copy, copy_function=_link_or_copy, ignore=shutil.ignore_patterns("complete", "*.lock"))
        yield copy


def _link_or_copy(source: str, target: str) -> None:
    if source.endswith(".journal"):
        shutil.copy2(source, target)
    else:
        os.link(source, target)


# -- 1 and 2: in the process ---------------------------------------------------------------------

async def timed(call: Callable[[], Awaitable[Any]]) -> float:
    start = time.perf_counter()
    await call()
    return (time.perf_counter() - start) * 1000


def page_cases(engine: Any) -> dict[str, Callable[[], Awaitable[Any]]]:
    return {
        "requests pending": lambda: engine.interaction_page(status="pending", limit=PAGE),
        "history answered (status)": lambda: engine.interaction_page(status="resolved", limit=PAGE),
        "history, all ended": lambda: engine.interaction_page(status="ended", limit=PAGE),
        "history answered, page 20": lambda: engine.interaction_page(status="resolved", limit=PAGE,
                                                                     offset=19 * PAGE),
        "runs": lambda: engine.run_page(limit=PAGE),
        "runs failed (status)": lambda: engine.run_page(status="failed", limit=PAGE),
        "runs search 'production'": lambda: engine.run_page(text="production", limit=PAGE),
    }


async def in_process(folder: Path, repeat: int) -> dict[str, tuple[float, float]]:
    from gui.runtime import open_runtime

    rt = await open_runtime(folder)
    engine = rt.engine
    try:
        figures: dict[str, tuple[float, float]] = {}
        for name, call in page_cases(engine).items():
            first = await timed(call)
            figures[name] = (first, statistics.median([await timed(call) for _ in range(repeat)]))
        figures["respond -> tool resumes, alone"] = (0.0, await respond_median(engine, repeat, listing=False))
        figures["respond -> tool resumes, history listed"] = (0.0, await respond_median(engine, repeat, listing=True))
        return figures
    finally:
        await rt.close()


async def respond_median(engine: Any, repeat: int, listing: bool) -> float:
    """Ask, answer, and time from `respond` to the asking tool getting its answer."""
    stop = asyncio.Event()
    listed = 0

    async def lister() -> None:
        nonlocal listed
        page = 0
        while not stop.is_set():
            await engine.interaction_page(status="resolved", limit=PAGE, offset=(page % 40) * PAGE)
            listed += 1
            page += 1

    task = asyncio.create_task(lister()) if listing else None
    samples = []
    try:
        for n in range(repeat):
            iid = f"bench-{time.time_ns()}-{n}"
            handle = await engine.interactions.request(ShellApprovalRequest(
                interaction_id=iid, turn_id="bench-run", created_at=int(time.time() * 1000),
                source=ToolSource(tool_call_id=f"b{n}", tool_name="cmd_run"), title="Run a command",
                command="make bench", cwd="/tmp", reason="bench", operation="exec"))
            await asyncio.sleep(0.1)  # a person's answer follows the question (the last one's move to history is done)
            start = time.perf_counter()
            await engine.respond(iid, ApprovalResponse(decision="approved"))
            await handle.result()
            samples.append((time.perf_counter() - start) * 1000)
    finally:
        stop.set()
        if task is not None:
            await task
    if listing and listed < repeat:
        print(f"  (the lister listed only {listed} pages during {repeat} answers)")
    return statistics.median(samples)


# -- 3 to 5: the app in a subprocess ------------------------------------------------------------

def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def app_env(data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "NICEGUI_")) and k not in ("SEQDESK_MEMORY", "SEQDESK_TOKEN")}
    env["SEQDESK_DATA"] = str(data)
    env["PYTHONPATH"] = str(ROOT)
    return env


class App:
    """`python -m gui --browser` on a data folder; `started` is seconds to the first page."""

    def __init__(self, data: Path, path: str = "/runs", timeout: float = 90.0) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        begin = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, "-m", "gui", "--browser", "--port", str(self.port)],
                                     env=app_env(data), cwd=ROOT, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the app exited: {self.proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            if time.perf_counter() - begin > timeout:
                self.stop()
                raise TimeoutError(f"no first page after {timeout:.0f} s")
            try:
                with urllib.request.urlopen(self.url + path, timeout=5) as response:
                    if response.status == 200:
                        self.started = time.perf_counter() - begin
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.02)

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def start_median(folder: Path, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        with snapshot(folder) as data:
            app = App(data)
            samples.append(app.started)
            app.stop()
    return statistics.median(samples)


def browser_figures(folder: Path, repeat: int) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    figures: dict[str, float] = {}
    with snapshot(folder) as data:
        app = App(data)
        try:
            with sync_playwright() as pw:
                chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = chromium.new_page(viewport={"width": 1400, "height": 900})
                runs, history, tab = [], [], []
                for n in range(repeat + 1):  # the first loads warm NiceGUI's files: not counted
                    start = time.perf_counter()
                    page.goto(app.url + "/runs")
                    page.locator(".runs-table tbody tr").first.wait_for(timeout=30_000)
                    took = (time.perf_counter() - start) * 1000
                    if n:
                        runs.append(took)
                    start = time.perf_counter()
                    page.goto(app.url + "/inbox")
                    page.get_by_role("tab", name="History").wait_for(timeout=30_000)
                    clicked = time.perf_counter()
                    page.get_by_role("tab", name="History").click()
                    page.locator(".history-list .q-card").first.wait_for(timeout=30_000)
                    end = time.perf_counter()
                    if n:
                        history.append((end - start) * 1000)
                        tab.append((end - clicked) * 1000)
                chromium.close()
            figures["Runs page, to first rows (ms)"] = statistics.median(runs)
            figures["inbox, to first History rows (ms)"] = statistics.median(history)
            figures["of which History click to first rows (ms)"] = statistics.median(tab)
            figures["app memory after the pages (MB)"] = app.rss_mb()
        finally:
            app.stop()
    return figures


# -- report -------------------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--starts", type=int, default=5, help="app starts per size")
    parser.add_argument("--skip-browser", action="store_true")
    parser.add_argument("--skip-app", action="store_true", help="only the figures in the process (1 and 2)")
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "seqdesk-bench-history")
    args = parser.parse_args()
    sizes: list[int] = args.sizes
    folders = {size: kept_folder(args.data, size) for size in [0, *sizes]}

    pages: dict[int, dict[str, tuple[float, float]]] = {}
    for size in sizes:
        with snapshot(folders[size]) as data:
            pages[size] = asyncio.run(in_process(data, args.repeat))
    print(f"\n{'through the door (ms)':<42}" + "".join(f"{f'{s:,}: first / median':>24}" for s in sizes))
    for name in pages[sizes[0]]:
        cells = "".join(f"{pages[s][name][0]:>13.2f} / {pages[s][name][1]:>7.2f}" for s in sizes)
        print(f"{name:<42}{cells}")
    last, base = sizes[-1], sizes[0]
    print(f"{'largest / smallest (medians)':<42}" + "  ".join(
        f"{name.split(',')[0]}: {pages[last][name][1] / pages[base][name][1]:.2f}x"
        for name in list(pages[base])[:7] if pages[base][name][1]))

    if args.skip_app:
        return 0
    starts = {size: start_median(folders[size], args.starts) for size in [0, *sizes]}
    print("\napp start to the first page (GET /runs), median of", args.starts)
    for size, took in starts.items():
        print(f"  {size:>7,}: {took:.2f} s ({took / starts[0]:.2f}x the empty folder)")

    if not args.skip_browser:
        print("\nheadless Chromium, median of", args.repeat)
        for size in sizes:
            figures = browser_figures(folders[size], max(3, args.repeat // 3))  # a browser sample costs seconds
            print(f"  {size:>7,}: " + "; ".join(f"{name} {value:.0f}" for name, value in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
