"""Benchmark: saving, reading back and starting a very large sequence, and what it does to the app.

Run it as a script (`python tests/bench/bench_large_documents.py [--groups 10000 1000] [--stored 10000]
[--runs N]`). It starts the real app with a fresh data folder and, for each number of groups, N
times: saves a sequence of that many one-tool groups (`POST /api/sequences`), replaces it (`PUT`),
reads it back (`GET /api/sequences/{name}`), starts a run of it (`POST /api/runs`), stops that run
and deletes the sequence. A document over the size SeqDesk accepts is refused (422): the figures
are then those of the refusal (and of the 404s that follow). With `--stored N`, a sequence of N
groups is put in the data folder through the store before the app starts (as a SeqDesk without
size limits could have saved it), and is read back and started N times too.

Meanwhile another process polls `GET /api/health` in a loop: the longest of those polls that
overlapped a request is how long the app stood still for everyone else. It prints the medians of
both; it exits 1 when a median stall is 100 ms or more. Not part of the test run (a minute or two);
on a machine shared with other work, the stalls grow with its load (printed first).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

from bench_editor import start_app  # the same way of starting the real app (this folder is on sys.path)

STALL_LIMIT = 0.100


def poll(host: str, port: int, spans: Connection, stop: Event) -> None:
    """In its own process (so this script's own work cannot delay it): GET /api/health in a loop,
    then send the (start, end) of every answer."""
    conn = http.client.HTTPConnection(host, port, timeout=120)
    found: list[tuple[float, float]] = []
    while not stop.is_set():
        start = time.perf_counter()  # CLOCK_MONOTONIC: the same clock in every process
        conn.request("GET", "/api/health")
        conn.getresponse().read()
        found.append((start, time.perf_counter()))
        stop.wait(0.005)  # a poll every ~5 ms besides its own time
    conn.close()
    spans.send(found)


@dataclass
class Poller:
    """The polling process and, once stopped, the spans it measured."""

    host: str
    port: int
    spans: list[tuple[float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self._stop = context.Event()
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(target=poll, args=(self.host, self.port, send, self._stop), daemon=True)
        self._process.start()

    def stop(self) -> None:
        self._stop.set()
        self.spans = self._receive.recv()
        self._process.join(10)

    def longest(self, start: float, end: float) -> float:
        """The longest poll that overlapped [start, end] (so a stall it began in counts whole)."""
        return max((b - a for a, b in self.spans if b >= start and a <= end), default=0.0)


def big_sequence(name: str, groups: int) -> dict[str, Any]:
    """`groups` groups, each with an input, an output, a condition and one echo: what a person writes."""
    tool = json.dumps({"tool": "echo", "args": {"value": "$args.host"}, "as": "r"}) + " ;"
    return {"name": name, "description": f"{groups} groups",
            "groups": [{"name": f"{name}-{g}", "in": {"host": "string"}, "out": {"r": "string"},
                        "when": '$args.host != ""', "tools": tool} for g in range(groups)]}


class Client:
    def __init__(self, host: str, port: int) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=300)

    def call(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes, float, float]:
        """Status, answer, and when the request began and its answer was read."""
        headers = {"Content-Type": "application/json"} if body is not None else {}
        start = time.perf_counter()
        self.conn.request(method, path, body=body, headers=headers)
        response = self.conn.getresponse()
        payload = response.read()
        return response.status, payload, start, time.perf_counter()


Step = tuple[int, float, float]  # status, start, end


def one_round(client: Client, groups: int, round_no: int) -> dict[str, Step]:
    """Each step's status and when it began and ended (the document is encoded before)."""
    name = f"big-{groups}-{round_no}"
    body = json.dumps(big_sequence(name, groups)).encode()
    steps: dict[str, Step] = {}

    def step(label: str, method: str, path: str, data: bytes | None = None) -> bytes:
        status, payload, start, end = client.call(method, path, data)
        steps[label] = (status, start, end)
        return payload

    step("POST /api/sequences", "POST", "/api/sequences", body)
    step("PUT /api/sequences/{name}", "PUT", f"/api/sequences/{name}", body)
    read_back_and_run(step, name)
    client.call("DELETE", f"/api/sequences/{name}")
    return steps


def read_back_and_run(step: Any, name: str) -> None:
    step("GET /api/sequences/{name}", "GET", f"/api/sequences/{name}")
    body = json.dumps({"sequence": name, "args": {"host": "h"}}).encode()
    started = step("POST /api/runs", "POST", "/api/runs", body)
    run_id = json.loads(started).get("run_id")
    if run_id:
        step("POST /api/runs/{id}/stop", "POST", f"/api/runs/{run_id}/stop")


def stored_round(client: Client) -> dict[str, Step]:
    steps: dict[str, Step] = {}

    def step(label: str, method: str, path: str, data: bytes | None = None) -> bytes:
        status, payload, start, end = client.call(method, path, data)
        steps[label] = (status, start, end)
        return payload

    read_back_and_run(step, "stored")
    return steps


def store_before_start(data: str, groups: int) -> None:
    """A sequence of `groups` groups in the data folder, saved through the store itself (no limits)."""
    from gui.core.sequences.model import Group, Sequence, ToolCall
    from gui.store.open import open_stores

    call = ToolCall(tool="echo", args={"value": "$args.host"}, as_="r")
    sequence = Sequence(name="stored", groups=tuple(
        Group(name=f"stored-{g}", in_={"host": "string"}, out={"r": "string"}, when='$args.host != ""', tools=(call,))
        for g in range(groups)))

    async def save() -> None:
        stores = await open_stores(Path(data))
        try:
            await stores.sequences.save(sequence)
        finally:
            stores.close()

    asyncio.run(save())


def report(title: str, rounds: list[dict[str, Step]], poller: Poller) -> float:
    print(f"\n{title}, {len(rounds)} rounds, medians:")
    worst = 0.0
    for label in rounds[0]:
        done = [r[label] for r in rounds if label in r]
        took = statistics.median(end - start for _, start, end in done)
        stall = statistics.median(poller.longest(start, end) for _, start, end in done)
        worst = max(worst, stall)
        statuses = "/".join(sorted({str(status) for status, _, _ in done}))
        print(f"  {label:28} {statuses:>4}  request {took:7.3f} s   "
              f"longest /api/health meanwhile {stall * 1000:6.0f} ms")
    return worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, nargs="*", default=[10_000, 1_000])
    parser.add_argument("--stored", type=int, default=10_000, help="groups of a sequence stored before start (0: none)")
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    measured: dict[int, list[dict[str, Step]]] = {}
    stored: list[dict[str, Step]] = []
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as data:
        if options.stored:
            store_before_start(data, options.stored)
        proc, url = start_app(data)
        host, port = url.removeprefix("http://").split(":")
        poller = Poller(host, int(port))
        try:
            client = Client(host, int(port))
            time.sleep(1.0)  # a second of nothing: how long /api/health takes at rest
            idle = (time.perf_counter() - 1.0, time.perf_counter())
            if options.stored:
                stored = [stored_round(client) for _ in range(options.runs)]
            for groups in options.groups:
                measured[groups] = [one_round(client, groups, n) for n in range(options.runs)]
        finally:
            poller.stop()
            proc.terminate()
            proc.wait(10)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"/api/health at rest: longest {poller.longest(*idle) * 1000:.0f} ms")
    worst = 0.0
    if stored:
        worst = report(f"a sequence of {options.stored} groups stored before the app started", stored, poller)
    for groups, rounds in measured.items():
        size = len(json.dumps(big_sequence(f"big-{groups}-0", groups)).encode())
        worst = max(worst, report(f"{groups} groups ({size / 1024 / 1024:.2f} MB of JSON)", rounds, poller))
    print(f"\nworst median stall: {worst * 1000:.0f} ms (limit {STALL_LIMIT * 1000:.0f} ms)")
    return 0 if worst < STALL_LIMIT else 1


if __name__ == "__main__":
    raise SystemExit(main())
