"""`seqdesk ask` from a script, against the real app (medians of 20): request → inbox row, answer → exit.

A script, not a test: `python tests/bench/bench_ask.py [--count 20]`.

The app runs in a subprocess (`python -m gui --browser`) on a temporary data folder; this script
reads its event stream (`GET /api/events`) in a thread. Each sample starts `seqdesk ask --approve …`
as a script would (a new `python -m gui ask` process, its start-up included):

- request → inbox row: from just before the process starts to the app's `interaction.created`
  event arriving on the stream (what the inbox draws its row from);
- answer → exit: from just before the approval is posted (`POST /api/interactions/{id}/respond`, as
  the inbox sends it) to the process's exit (its exit code checked: 0).

Prints every sample and the medians, in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def events(base: str, into: queue.Queue[tuple[float, dict]], subscribed: threading.Event) -> None:
    """Every event of the app's stream, stamped on arrival (`subscribed` once its first line came)."""
    with urllib.request.urlopen(base + "/api/events", timeout=3600) as stream:
        for raw in stream:
            subscribed.set()  # ": connected": nothing published from now on is missed
            line = raw.decode("utf-8").strip()
            if line.startswith("data:"):
                into.put((time.perf_counter(), json.loads(line[5:])))


def created(arrived: queue.Queue[tuple[float, dict]]) -> tuple[float, str]:
    while True:
        at, event = arrived.get(timeout=120)
        if event.get("type") == "interaction.created":
            return at, str(event["data"]["interaction_id"])


def measure(count: int) -> tuple[list[float], list[float]]:
    from support.app import app_command, clean_env, free_port, wait_until_up

    asked, answered = [], []
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        log = Path(tmp) / "app.log"
        env = clean_env(Path(tmp) / "data")
        proc = subprocess.Popen(app_command(port), cwd=ROOT, env=env, stdout=log.open("wb"),
                                stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(proc, base, log)
            arrived: queue.Queue[tuple[float, dict]] = queue.Queue()
            subscribed = threading.Event()
            threading.Thread(target=events, args=(base, arrived, subscribed), daemon=True).start()
            assert subscribed.wait(60), "the app's event stream did not open"
            for i in range(count + 1):
                started = time.perf_counter()
                ask = subprocess.Popen([sys.executable, "-m", "gui", "ask", "--approve", f"echo {i}",
                                        "--from", "bench"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
                at, iid = created(arrived)
                body = json.dumps({"kind": "approval", "decision": "approved"}).encode()
                request = urllib.request.Request(f"{base}/api/interactions/{iid}/respond", data=body, method="POST",
                                                 headers={"Content-Type": "application/json"})
                answering = time.perf_counter()
                with urllib.request.urlopen(request, timeout=30):
                    pass
                code = ask.wait(timeout=120)
                ended = time.perf_counter()
                assert code == 0, f"seqdesk ask exited {code}"
                if i:  # the first one warms the app's first answers: left out
                    asked.append((at - started) * 1000)
                    answered.append((ended - answering) * 1000)
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    return asked, answered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20)
    args = parser.parse_args()
    os.environ.pop("SEQDESK_MEMORY", None)
    asked, answered = measure(args.count)
    print("request → inbox row:", " ".join(f"{s:.0f}" for s in asked))
    print("answer → exit:      ", " ".join(f"{s:.0f}" for s in answered))
    print(f"median request → inbox row {statistics.median(asked):.0f} ms, answer → exit "
          f"{statistics.median(answered):.0f} ms, over {len(asked)} asks")


if __name__ == "__main__":
    main()
