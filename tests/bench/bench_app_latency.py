"""Speed a person feels, through the running app (issue 24, target 1).

A script, not a test: `python tests/bench/bench_app_latency.py [--size 100000] [--repeat 20]
[--part pages,runs,respond,listing,browser] [--no-token] [--data DIR] [--app-root CHECKOUT]`.

The real app (`python -m gui --browser`) runs in a subprocess with a token (the token gate and the
request gate both at work, as for any client) on a hard-linked copy of a data folder with `--size`
answered requests and as many finished runs (built once by `bench_history.py`'s generator and kept
under `--data`). Every HTTP figure is one call through httpx, from sending to the whole answer read.

- pages: `GET /api/interactions` and `GET /api/runs`, fifty a page: pending, history (first, twentieth
  and last page), runs (first, twentieth and last page), runs filtered by status and by text; each
  with the app's CPU per call (all its threads, and the event loop's alone, from /proc: what the
  machine's other work changes far less), and its first call apart (the segments it reads are read
  for the first time since the app started);
- runs: `POST /api/runs` of an unsaved sequence whose `cmd_run` step asks; and from that call to its
  request listed by `GET /api/interactions?status=pending&run_id=…` (polled back to back);
- respond: `POST /api/interactions/{id}/respond` approving it (0.1 s after it was listed, as a
  person's answer would come), alone, with the app's CPU per answer; listing: the same while
  another client (a thread with its own connection) lists answered requests in a loop, pages 1 to
  40 back to back;
- browser: headless Chromium with the inbox open (logged in), nobody else asking the app anything
  meanwhile (the run is started by one POST; the command awaited by reading its stamp file here). A
  run asks; a MutationObserver in the page stamps (`Date.now()`) the moment its row is in the list:
  the figure is that moment less the request's `created_at` (when the tool asked). Then the row is
  opened and "Run once" clicked; a
  capture listener stamps the click, and the command (`date +%s%N > FILE`, the step's first and
  only act) stamps its start: the figure is the command's stamp less the click's, less the shell's
  own start (the median time from spawning the same `/bin/sh -c …` here to its stamp, measured apart).

Each figure: median of `--repeat` samples, with its quartiles and its 10th and 90th percentiles (the
spread), and the load average at the time (the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_history import kept_folder, snapshot  # noqa: E402  (the same kept folders)
from support.app import app_command, clean_env, free_port, wait_until_up  # noqa: E402

PAGE = 50
CHROMIUM = os.environ.get("SEQDESK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
PARTS = ("pages", "runs", "respond", "listing", "browser")


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def spread(samples: list[float]) -> str:
    ordered = sorted(samples)
    if len(ordered) < 2:
        return f"{ordered[0]:7.2f}" if ordered else "   (none)"
    quartiles = statistics.quantiles(ordered, n=4)
    tenths = statistics.quantiles(ordered, n=10)
    return (f"{statistics.median(ordered):7.2f}  (q1 {quartiles[0]:.2f}, q3 {quartiles[2]:.2f}; "
            f"p10 {tenths[0]:.2f}, p90 {tenths[-1]:.2f}; n={len(ordered)})")


def report(name: str, samples: list[float], unit: str = "ms") -> None:
    print(f"  {name:<58} {spread(samples)} {unit}   [{load()}]", flush=True)


def asking(command: str, name: str = "bench-latency") -> dict[str, Any]:
    """An unsaved sequence of one `cmd_run` step: it asks before it runs `command`."""
    call = {"tool": "cmd_run", "args": {"command": command}, "as": "said"}
    return {"name": name, "groups": [{"name": "ask", "in": {}, "out": {"said": "string"},
                                      "tools": json.dumps(call) + " ;"}]}


# -- the app ------------------------------------------------------------------------------------

class App:
    def __init__(self, data: Path, log: Path, token: str | None, root: Path = ROOT) -> None:
        self.token = token
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = clean_env(data)
        env["PYTHONPATH"] = str(root)
        if token:
            env["SEQDESK_TOKEN"] = token
        with log.open("wb") as out:
            self.proc = subprocess.Popen(app_command(self.port), cwd=root, env=env, stdout=out,
                                         stderr=subprocess.STDOUT)
        wait_until_up(self.proc, self.url, log)

    def client(self) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@contextmanager
def running(folder: Path, token: str | None, root: Path = ROOT) -> Iterator[App]:
    with snapshot(folder) as data:
        app = App(data, data.parent / "app.log", token, root)
        try:
            yield app
        finally:
            app.stop()


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = call()
    return (time.perf_counter() - start) * 1000, result


# -- HTTP -----------------------------------------------------------------------------------------

def cpu_ms(pid: int) -> tuple[float, float]:
    """CPU time the app's process has used (ms): all its threads, and its main thread (the event
    loop's). Read from /proc; (0, 0) where there is none."""
    tick = os.sysconf("SC_CLK_TCK")
    total = main = 0.0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return 0.0, 0.0
    for tid in tids:
        try:
            fields = Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:  # a worker thread that just ended
            continue
        used = (int(fields[11]) + int(fields[12])) * 1000 / tick  # utime + stime
        total += used
        main += used if int(tid) == pid else 0.0
    return total, main


def page_figures(name: str, app: App, http: httpx.Client, path: str, params: dict[str, Any], repeat: int) -> None:
    """`repeat` timed calls (after a first one, reported apart: the segments it reads are read for
    the first time since the app started), and under them what they cost the app in CPU: a figure
    the machine's other work changes far less than the time."""
    before = cpu_ms(app.proc.pid)
    first, response = timed(lambda: http.get(path, params=params))
    response.raise_for_status()
    after = cpu_ms(app.proc.pid)
    print(f"  {name + ' (first call)':<58} {first:7.2f} ms, app CPU {after[0] - before[0]:.0f} ms   [{load()}]",
          flush=True)
    samples = []
    before = cpu_ms(app.proc.pid)
    for _ in range(repeat):
        took, response = timed(lambda: http.get(path, params=params))
        response.raise_for_status()
        samples.append(took)
    after = cpu_ms(app.proc.pid)
    report(name, samples)
    print(f"    (app CPU per call: {(after[0] - before[0]) / repeat:.2f} ms, of it the event loop's thread "
          f"{(after[1] - before[1]) / repeat:.2f} ms)", flush=True)


def pages(app: App, http: httpx.Client, repeat: int) -> None:
    total = int(http.get("/api/interactions", params={"status": "ended", "limit": 1}).headers["x-total-count"])
    last = max(0, (total - 1) // PAGE * PAGE)
    cases = {
        "GET /api/interactions pending": {"status": "pending"},
        "GET /api/interactions ended, page 1": {"status": "ended"},
        "GET /api/interactions resolved, page 1": {"status": "resolved"},
        "GET /api/interactions resolved, page 20": {"status": "resolved", "offset": 19 * PAGE},
        f"GET /api/interactions ended, last page (offset {last:,})": {"status": "ended", "offset": last},
    }
    for name, params in cases.items():
        page_figures(name, app, http, "/api/interactions", {"limit": PAGE, **params}, repeat)
    runs_total = int(http.get("/api/runs", params={"limit": 1}).headers["x-total-count"])
    last_run = max(0, runs_total - PAGE)
    runs = {"GET /api/runs page 1": {}, "GET /api/runs status=failed": {"status": "failed"},
            "GET /api/runs q=production": {"q": "production"},
            "GET /api/runs page 20": {"offset": 19 * PAGE},
            f"GET /api/runs last 50 (offset {last_run:,})": {"offset": last_run}}
    for name, params in runs.items():
        page_figures(name, app, http, "/api/runs", {"limit": PAGE, **params}, repeat)


def start_asking(http: httpx.Client, command: str) -> tuple[float, float, str, dict[str, Any]]:
    """POST /api/runs (ms), then until its request is listed (ms from the POST), the run id, the request."""
    begin = time.perf_counter()
    response = http.post("/api/runs", json={"document": asking(command)})
    posted = (time.perf_counter() - begin) * 1000
    assert response.status_code == 202, response.text
    run_id = response.json()["run_id"]
    deadline = time.monotonic() + 30
    while True:
        listed = http.get("/api/interactions", params={"status": "pending", "run_id": run_id}).json()
        if listed:
            return posted, (time.perf_counter() - begin) * 1000, run_id, listed[0]
        if time.monotonic() > deadline:
            raise TimeoutError(f"run {run_id}'s request was never listed")


def wait_finished(http: httpx.Client, run_id: str, every: float = 0.01) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        record = http.get(f"/api/runs/{run_id}").json()
        if record["status"] not in ("running", "pending"):
            return dict(record)
        time.sleep(every)
    raise TimeoutError(f"run {run_id} did not finish")


def wait_file(path: Path) -> None:
    """Until the command has written its stamp (looked for here: the app is not asked meanwhile)."""
    deadline = time.monotonic() + 30
    while not (path.exists() and path.read_text().strip()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} was never written")
        time.sleep(0.002)


def respond_samples(app: App, http: httpx.Client, repeat: int) -> tuple[list[float], list[float], list[float]]:
    """POST /api/runs, until listed, and the answer (ms each); the app's CPU (all threads) from
    sending each answer to reading its reply is printed, per answer (the mean: /proc counts ticks)."""
    posts, listed, answers = [], [], []
    used = 0.0
    for n in range(repeat + 1):
        posted, seen, run_id, request = start_asking(http, "true")
        time.sleep(0.1)  # a person answers after the question
        before = cpu_ms(app.proc.pid)[0]
        took, response = timed(lambda r=request: http.post(f"/api/interactions/{r['interaction_id']}/respond",
                                                           json={"kind": "approval", "decision": "approved"}))
        after = cpu_ms(app.proc.pid)[0]
        assert response.status_code == 200, response.text
        wait_finished(http, run_id)
        if n:  # the first warms the path (imports, the first run)
            posts.append(posted)
            listed.append(seen)
            answers.append(took)
            used += after - before
    print(f"    (app CPU per answer, sent to replied, all threads: {used / max(repeat, 1):.2f} ms)", flush=True)
    return posts, listed, answers


class Lister(threading.Thread):
    """Another client listing answered requests, pages 1 to 40, back to back."""

    def __init__(self, app: App) -> None:
        super().__init__(daemon=True)
        self.app = app
        self.stop = threading.Event()
        self.count = 0
        self.took: list[float] = []

    def run(self) -> None:
        with self.app.client() as http:
            while not self.stop.is_set():
                took, response = timed(lambda: http.get("/api/interactions", params={
                    "status": "resolved", "limit": PAGE, "offset": (self.count % 40) * PAGE}))
                response.raise_for_status()
                self.took.append(took)
                self.count += 1


# -- browser --------------------------------------------------------------------------------------

WATCH_ROWS = """() => {
  window.__rows = {};
  const look = () => {
    for (const row of document.querySelectorAll('.inbox-row')) {
      const found = /bench-mark-(\\d+)/.exec(row.textContent || '');
      if (found && !(found[1] in window.__rows)) window.__rows[found[1]] = Date.now();
    }
  };
  new MutationObserver(look).observe(document.body, {childList: true, subtree: true, characterData: true});
  window.__clicks = [];
  document.addEventListener('click', () => window.__clicks.push(Date.now()), true);
}"""


def shell_start(folder: Path, repeat: int) -> list[float]:
    """The shell's own start: spawning `/bin/sh -c 'date +%s%N > FILE'` here, to its stamp (ms)."""
    samples = []
    for n in range(repeat):
        stamp = folder / f"shell-{n}"
        before = time.time_ns()
        subprocess.run(["/bin/sh", "-c", f"date +%s%N > {stamp}"], check=True)
        samples.append((int(stamp.read_text()) - before) / 1e6)
    return samples


def browser(app: App, repeat: int, stamps: Path) -> None:
    from playwright.sync_api import sync_playwright

    shells = shell_start(stamps, max(repeat, 20))
    shell = statistics.median(shells)
    rows, rows_from_post, clicks, clicks_raw = [], [], [], []
    with sync_playwright() as pw, app.client() as http:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = chromium.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(20_000)
        if app.token:
            page.goto(app.url + "/login")
            page.fill("#token", app.token)
            page.click("button[type=submit]")
            page.wait_for_url(app.url + "/")
        page.goto(app.url + "/inbox")
        page.wait_for_function("window.socket && window.socket.connected")
        page.evaluate(WATCH_ROWS)
        for n in range(repeat + 1):
            stamp = stamps / f"stamp-{n}"
            command = f"date +%s%N > {stamp} # bench-mark-{n}"
            posted_at = time.time() * 1000
            started = http.post("/api/runs", json={"document": asking(command)})  # nobody polls the app meanwhile
            assert started.status_code == 202, started.text
            run_id = started.json()["run_id"]
            page.wait_for_function(f"'{n}' in window.__rows")
            seen = page.evaluate(f"window.__rows['{n}']")
            [request] = http.get("/api/interactions", params={"status": "pending", "run_id": run_id}).json()
            row = page.locator(".inbox-row", has_text=f"bench-mark-{n}")
            row.click()
            page.locator(".q-card", has_text=f"bench-mark-{n}").get_by_role("button", name="Run once").wait_for()
            page.wait_for_timeout(150)  # the card settles (answering keys wait a moment after a change)
            page.evaluate("window.__clicks = []")
            page.locator(".q-card", has_text=f"bench-mark-{n}").get_by_role("button", name="Run once").click()
            wait_file(stamp)
            record = wait_finished(http, run_id, every=0.05)
            assert record["status"] == "succeeded", record
            clicked = page.evaluate("window.__clicks[0]")
            began = int(stamp.read_text()) / 1e6
            if n:
                rows.append(seen - request["request"]["created_at"])
                rows_from_post.append(seen - posted_at)
                clicks_raw.append(began - clicked)
                clicks.append(began - clicked - shell)
        chromium.close()
    report("browser: the tool asks -> its inbox row is there", rows)
    report("browser: POST /api/runs sent -> its inbox row is there", rows_from_post)
    report("browser: click 'Run once' -> the command's stamp (raw)", clicks_raw)
    report("shell's own start (spawn /bin/sh -c 'date > f' here)", shells)
    report("browser: click 'Run once' -> the command starts (less the shell)", clicks)


# -- main -----------------------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000, help="answered requests (and finished runs)")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--part", default=",".join(PARTS), help=f"comma-separated, of {', '.join(PARTS)}")
    parser.add_argument("--no-token", action="store_true", help="start the app without a token")
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "seqdesk-bench-history")
    parser.add_argument("--app-root", type=Path, default=ROOT,
                        help="run the app from this checkout (another version, for a before/after)")
    args = parser.parse_args()
    parts = set(args.part.split(","))
    unknown = parts - set(PARTS)
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}; choose from {', '.join(PARTS)}")
    folder = kept_folder(args.data, args.size)
    token = None if args.no_token else secrets.token_urlsafe(24)
    print(f"app on {args.size:,} answered requests and runs, {'no token' if token is None else 'with a token'}, "
          f"median of {args.repeat} (quartiles; p10, p90) [{load()}]", flush=True)
    with running(folder, token, args.app_root.resolve()) as app, app.client() as http:
        if "pages" in parts:
            pages(app, http, args.repeat)
        if parts & {"runs", "respond"}:
            posts, listed, answers = respond_samples(app, http, args.repeat)
            report("POST /api/runs", posts)
            report("POST /api/runs -> its request listed by the API", listed)
            report("POST .../respond, alone", answers)
        if "listing" in parts:
            lister = Lister(app)
            lister.start()
            try:
                _, _, answers = respond_samples(app, http, args.repeat)
            finally:
                lister.stop.set()
                lister.join()
            report("POST .../respond, while another client lists history", answers)
            report("  (the other client's pages meanwhile)", lister.took)
        if "browser" in parts:
            with tempfile.TemporaryDirectory(prefix="seqdesk-bench-stamps-") as stamps:
                browser(app, args.repeat, Path(stamps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
